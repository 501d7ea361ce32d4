import { ApiError, errorMessage } from "../state/api.ts";

/**
 * An error where it happened, with the server's message; `onRetry` adds a Retry button.
 * Put it right above or below the control whose action failed.
 */
export function ErrorMessage({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  if (!error) return null;
  const status = error instanceof ApiError ? error.status : null;
  return (
    <div class="error-message" role="alert">
      <p>{errorMessage(error)}</p>
      {status === 503 && <p class="hint">This part of the service is not available right now.</p>}
      {onRetry && <button type="button" class="button secondary" onClick={onRetry}>Retry</button>}
    </div>
  );
}
