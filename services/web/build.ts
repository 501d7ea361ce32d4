/**
 * `deno task web:build`: builds the app with Vite when `dist/` is missing or older than its
 * sources. Freshness is a fingerprint (SHA-256 over the sources, the Vite config and the
 * dependency pins) stored in `dist/.fingerprint`, so a clean checkout, a pull and an edit all
 * rebuild, and a second run does nothing.
 */
import { viteConfig, WEB_ROOT } from "./vite_config.ts";

const REPO_ROOT = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
export const DIST_DIR = `${WEB_ROOT}/dist`;
const FINGERPRINT_FILE = ".fingerprint";

async function* walk(dir: string): AsyncGenerator<string> {
  const entries: Deno.DirEntry[] = [];
  for await (const entry of Deno.readDir(dir)) entries.push(entry);
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* walk(path);
    else if (entry.isFile) yield path;
  }
}

/** The files whose content decides the bundle. */
async function sourceFiles(): Promise<string[]> {
  const files: string[] = [];
  for await (const path of walk(`${WEB_ROOT}/src`)) files.push(path);
  files.push(
    `${WEB_ROOT}/index.html`,
    `${WEB_ROOT}/vite_config.ts`,
    `${REPO_ROOT}/deno.json`,
  );
  return files;
}

export async function sourceFingerprint(): Promise<string> {
  const enc = new TextEncoder();
  const parts: Uint8Array[] = [];
  for (const path of await sourceFiles()) {
    parts.push(enc.encode(`\0${path.slice(REPO_ROOT.length)}\0`), await Deno.readFile(path));
  }
  const total = parts.reduce((n, p) => n + p.length, 0);
  const all = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", all));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function builtFingerprint(dir: string): Promise<string | null> {
  try {
    return (await Deno.readTextFile(`${dir}/${FINGERPRINT_FILE}`)).trim();
  } catch {
    return null;
  }
}

/**
 * Builds into a temporary directory and swaps it in, so a server reading `dist/` (or a
 * second build started at the same time) never sees half a bundle.
 */
export async function ensureBuilt(
  { force = false, log = console.log }: { force?: boolean; log?: (line: string) => void } = {},
): Promise<{ built: boolean; fingerprint: string }> {
  const fingerprint = await sourceFingerprint();
  if (!force && await builtFingerprint(DIST_DIR) === fingerprint) {
    return { built: false, fingerprint };
  }
  const { build } = await import("vite");
  const tmp = `${DIST_DIR}.tmp-${crypto.randomUUID().slice(0, 8)}`;
  const started = performance.now();
  try {
    await build(viteConfig(tmp));
    await Deno.writeTextFile(`${tmp}/${FINGERPRINT_FILE}`, fingerprint + "\n");
    if (!force && await builtFingerprint(DIST_DIR) === fingerprint) {
      return { built: false, fingerprint };
    }
    const old = `${DIST_DIR}.old-${crypto.randomUUID().slice(0, 8)}`;
    await Deno.rename(DIST_DIR, old).catch(() => {});
    await Deno.rename(tmp, DIST_DIR);
    await Deno.remove(old, { recursive: true }).catch(() => {});
  } finally {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
  log(`web: built services/web/dist in ${Math.round(performance.now() - started)} ms`);
  return { built: true, fingerprint };
}

if (import.meta.main) {
  await ensureBuilt({ force: Deno.args.includes("--force") });
}
