import type { InlineConfig } from "vite";

/** The web app's directory (holds `index.html` and `src/`). */
export const WEB_ROOT = new URL(".", import.meta.url).pathname.replace(/\/$/, "");

/**
 * The Vite build of the app. Preact's JSX through Oxc's automatic runtime (no Babel preset);
 * every built file is hashed and served under `/static/` (`/assets` belongs to the asset store).
 */
export function viteConfig(outDir: string): InlineConfig {
  return {
    configFile: false,
    root: WEB_ROOT,
    base: "/",
    logLevel: "warn",
    publicDir: false,
    oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
    build: {
      outDir,
      assetsDir: "static",
      emptyOutDir: true,
      sourcemap: false,
      target: "es2022",
      chunkSizeWarningLimit: 600,
    },
  };
}
