import type { Logger } from "../log.ts";
import { errorMessage } from "../log.ts";
import { type AiBackend, AiBackendError } from "./backend.ts";
export { endFallbackTitles, fallbackTitle } from "./fallback_titles.ts";
import { fallbackTitle } from "./fallback_titles.ts";

/** The server side of a title call stops before the client's 5 s deadline. */
export const TITLE_BACKEND_TIMEOUT_MS = 4_500;
/** Only the start of a long text is sent; a title needs no more. */
export const TITLE_INPUT_MAX = 4_000;
/** An idea title is 1 to 500 characters. */
export const TITLE_MAX = 500;

const TITLE_SYSTEM = "You write short, specific titles for ideas for professional social-network " +
  "posts. Answer with the title only: at most 12 words, no quotes, no trailing period.";

/** Cleans a model's answer into one line: no surrounding quotes, no `Title:` label. */
export function cleanTitle(raw: string): string {
  const line = raw.split("\n").map((l) => l.trim()).find((l) => l.length > 0) ?? "";
  return line
    .replace(/^(title\s*:\s*)/i, "")
    .replace(/^["'“”‘’*`#\s]+|["'“”‘’*`\s]+$/g, "")
    .slice(0, TITLE_MAX)
    .trim();
}

export interface TitleResult {
  title: string;
  source: "ai" | "fallback";
}

/**
 * A title for `text`: the model's, or the fallback when no backend is
 * configured, the backend fails or times out, or it answers nothing usable.
 */
export async function makeTitle(
  backend: AiBackend | null,
  text: string,
  logger: Logger,
): Promise<TitleResult> {
  if (!backend) return { title: await fallbackTitle(text), source: "fallback" };
  try {
    const answer = await backend.chat([
      { role: "system", content: TITLE_SYSTEM },
      { role: "user", content: text.slice(0, TITLE_INPUT_MAX) },
    ], { timeoutMs: TITLE_BACKEND_TIMEOUT_MS, temperature: 0.3, maxTokens: 60 });
    const title = cleanTitle(answer);
    if (title) return { title, source: "ai" };
  } catch (err) {
    logger.warn("title generation failed; using the fallback title", {
      error: err instanceof AiBackendError ? err.message : errorMessage(err),
    });
  }
  return { title: await fallbackTitle(text), source: "fallback" };
}

/**
 * A title for `text` within `deadlineMs`: the model's when it answers in time, else the
 * fallback. Never fails, so a capture is never lost to an AI failure.
 */
export async function titleWithin(
  backend: AiBackend | null,
  text: string,
  logger: Logger,
  deadlineMs: number,
): Promise<string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), deadlineMs);
  });
  try {
    const made = await Promise.race([makeTitle(backend, text, logger), deadline]);
    if (made) return made.title;
    logger.warn("title took too long; using the fallback title", { deadline_ms: deadlineMs });
  } finally {
    clearTimeout(timer);
  }
  return await fallbackTitle(text);
}
