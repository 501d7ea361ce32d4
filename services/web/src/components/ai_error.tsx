import { ApiError, errorMessage } from "../state/api.ts";

/** Where the person who runs the server learns to connect a model. */
export const AI_SETUP_DOC = "docs/ai_backends.md";

/**
 * An AI call's failure said plainly, with what to do: no model connected (503), a busy model
 * (503), a model that failed (502, with the server's reason), too many requests (429), a
 * failure without a message (500); otherwise the server's words.
 */
export function AiError({ error }: { error: unknown }) {
  if (!error) return null;
  const status = error instanceof ApiError ? error.status : null;
  const message = errorMessage(error);
  let text = message;
  let detail: string | null = null;
  if (status === 503 && /not configured/i.test(message)) {
    text = "No AI model is set up on this server, so this needs one. An admin connects a model " +
      "(Ollama, or any OpenAI-compatible server) with OPENAI_BASE_URL and OPENAI_MODEL, as " +
      `${AI_SETUP_DOC} shows. Proofread and idea titles work without it.`;
  } else if (status === 503 && /busy/i.test(message)) {
    text = "The AI model is busy right now. Try again in a minute.";
    detail = message;
  } else if (status === 502) {
    const reason = message.replace(/^AI backend failed:\s*/i, "");
    text = `The AI model did not answer: ${reason}. Tell your admin: the AI settings need a ` +
      `look (${AI_SETUP_DOC}). Writing and proofreading still work.`;
  } else if (status === 429) {
    text = "Too many AI requests; try again in a minute.";
    detail = message;
  } else if (status === 500 && message.startsWith("The server answered")) {
    text = "The AI service failed to answer. Try again in a moment; if it keeps failing, " +
      "tell your admin.";
  }
  return (
    <div class="error-message" role="alert">
      <p>{text}</p>
      {detail && detail !== text && <p class="hint">{detail}</p>}
    </div>
  );
}

/** A button's busy face: a spinner beside the label. */
export function BusyLabel(
  { busy, idle, working }: { busy: boolean; idle: string; working: string },
) {
  return (
    <>
      {busy && <span class="spinner" aria-hidden="true" />}
      {busy ? working : idle}
    </>
  );
}
