/**
 * Fallback titles (fallback_title.ts: the text's most telling phrase) made in a worker that
 * ends once no title has been asked for `FALLBACK_TITLES_IDLE_MS`. Without a model every
 * captured idea needs one, and retext-pos's lexicon (about 20 MiB of heap) would otherwise stay
 * in the main heap for good once the first was made; in the worker it is loaded again (about
 * 0.3 s) by the first title after a quiet spell. A worker that fails or crashes makes the title
 * in this thread instead, so a title never fails for it.
 */
import type { TitleAnswer, TitleJob } from "./title_worker.ts";

/** How long the worker stays without a title before it ends. */
export const FALLBACK_TITLES_IDLE_MS = 10_000;

interface Pending {
  text: string;
  resolve(title: string): void;
}

let worker: Worker | null = null;
const pending = new Map<number, Pending>();
let nextId = 1;
let idleTimer: ReturnType<typeof setTimeout> | null = null;

/** The title made in this thread: the worker failed. */
async function inThread(text: string): Promise<string> {
  const { fallbackTitle } = await import("./fallback_title.ts");
  return fallbackTitle(text);
}

/** Ends the worker; titles still waiting are made in this thread. */
function stop(): void {
  if (idleTimer !== null) clearTimeout(idleTimer);
  idleTimer = null;
  worker?.terminate();
  worker = null;
  const waiting = [...pending.values()];
  pending.clear();
  for (const p of waiting) inThread(p.text).then(p.resolve);
}

function start(): Worker {
  const w = new Worker(new URL("./title_worker.ts", import.meta.url).href, { type: "module" });
  w.onmessage = (event: MessageEvent<TitleAnswer>) => {
    const answer = event.data;
    const p = pending.get(answer.id);
    if (!p) return;
    pending.delete(answer.id);
    if ("title" in answer) p.resolve(answer.title);
    else inThread(p.text).then(p.resolve);
    if (pending.size === 0) armIdle();
  };
  w.onerror = (event: ErrorEvent) => {
    event.preventDefault();
    stop();
  };
  return w;
}

function armIdle(): void {
  if (idleTimer !== null) clearTimeout(idleTimer);
  idleTimer = setTimeout(stop, FALLBACK_TITLES_IDLE_MS);
  // The idle end alone never keeps the process alive.
  Deno.unrefTimer(idleTimer);
}

/** The fallback title of `text`, made in the worker (started if it is not running). */
export function fallbackTitle(text: string): Promise<string> {
  if (idleTimer !== null) clearTimeout(idleTimer);
  idleTimer = null;
  worker ??= start();
  const id = nextId++;
  return new Promise<string>((resolve) => {
    pending.set(id, { text, resolve });
    worker!.postMessage({ id, text } satisfies TitleJob);
  });
}

/** Whether the worker is running. */
export function fallbackTitlesRunning(): boolean {
  return worker !== null;
}

/** Ends the worker now (a service closing); the next title starts it again. */
export function endFallbackTitles(): void {
  stop();
}
