import { ApiError, errorMessage } from "../state/api.ts";

/**
 * An AI call's failure said plainly, with what to do: no backend configured (503), too many
 * requests (429), the backend failing (500 without a message); otherwise the server's words.
 */
export function AiError({ error }: { error: unknown }) {
  if (!error) return null;
  const status = error instanceof ApiError ? error.status : null;
  const message = errorMessage(error);
  let text = message;
  let detail: string | null = null;
  if (status === 503 && /not configured/i.test(message)) {
    text = "AI is not set up on this server: an admin sets OPENAI_BASE_URL and OPENAI_API_KEY " +
      "in its configuration and restarts it. Writing works without AI meanwhile.";
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
