/// <reference lib="deno.worker" />
/**
 * A module worker that makes fallback titles (fallback_title.ts) outside the main heap:
 * retext-pos builds its part-of-speech lexicon (about 20 MiB of heap) as it loads, and that
 * stays only as long as this worker does (fallback_titles.ts ends it when idle).
 */
import { fallbackTitle } from "./fallback_title.ts";

export interface TitleJob {
  id: number;
  text: string;
}

export type TitleAnswer = { id: number; title: string } | { id: number; error: string };

self.onmessage = (event: MessageEvent<TitleJob>) => {
  const { id, text } = event.data;
  try {
    self.postMessage({ id, title: fallbackTitle(text) } satisfies TitleAnswer);
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    self.postMessage({ id, error } satisfies TitleAnswer);
  }
};
