/// <reference lib="deno.worker" />
/**
 * A module worker that runs Harper (harper.js: a grammar and spelling checker compiled to
 * WebAssembly, offline, no model) off the main thread: loading it takes about a second and a
 * 3,000-character post about 20 ms, which would otherwise stall the one event loop serving every
 * route. The WASM is the npm package's own file (`harper.js/slimBinary` reads it from
 * node_modules). Posts `{ready: true}` once loaded (or `{failed}`), then answers each job with
 * the lints as plain data.
 */
import { Dialect, LocalLinter } from "harper.js";
import { slimBinary } from "harper.js/slimBinary";
import { errorText } from "../../shared/log.ts";

export interface CheckJob {
  id: number;
  text: string;
}

/** One finding of Harper. Offsets are JavaScript string indices (UTF-16), end exclusive. */
export interface RawLint {
  start: number;
  end: number;
  /** Harper's category: `Spelling`, `Grammar`, `Repetition`, `WordChoice`, `Style`... */
  kind: string;
  message: string;
  /** Replace (0), Remove (1) or InsertAfter (2), with the text it puts in. */
  suggestions: { kind: number; text: string }[];
}

export type CheckerMessage =
  | { ready: true }
  | { failed: string }
  | { id: number; lints: RawLint[] }
  | { id: number; error: string };

/**
 * Harper builds its spelling index on the first misspelt word it meets (seconds, not
 * milliseconds): one throwaway check does that while loading, not in a user's proofread.
 */
const WARM_UP = "Loading: this is an tset of teh checker, Kowalczyk wrote.";

const linter = new LocalLinter({ binary: slimBinary, dialect: Dialect.American });
const loading = (async () => {
  await linter.setup();
  for (const lint of await linter.lint(WARM_UP, { language: "plaintext" })) lint.free();
})();
loading.then(
  () => self.postMessage({ ready: true } satisfies CheckerMessage),
  (err) => self.postMessage({ failed: errorText(err) } satisfies CheckerMessage),
);

self.onmessage = async (event: MessageEvent<CheckJob>) => {
  const { id, text } = event.data;
  try {
    await loading;
    const lints = await linter.lint(text, { language: "plaintext" });
    const out = lints.map((lint): RawLint => {
      const span = lint.span();
      const found: RawLint = {
        start: span.start,
        end: span.end,
        kind: lint.lint_kind(),
        message: lint.message(),
        suggestions: lint.suggestions().slice(0, 3).map((s) => ({
          kind: s.kind(),
          text: s.get_replacement_text(),
        })),
      };
      lint.free();
      return found;
    });
    self.postMessage({ id, lints: out } satisfies CheckerMessage);
  } catch (err) {
    self.postMessage({ id, error: errorText(err) } satisfies CheckerMessage);
  }
};
