/**
 * The caller's capture tokens, newest first: workspace, created and last used, each with a
 * Revoke button (confirmed first). Props in, events out; the screen owns the store calls.
 */
import type { CaptureTokenInfo } from "../state/capture_tokens.ts";
import { fullDate, RelativeTime } from "./idea_time.tsx";

export function CaptureTokenList(
  { tokens, workspaceName, shownId, busyId, onRevoke }: {
    tokens: CaptureTokenInfo[];
    /** The workspace's name, or null when the caller is no longer a member. */
    workspaceName: (workspaceId: string) => string | null;
    /** The token shown on screen (just created), marked as such. */
    shownId: string | null;
    /** The token being revoked, if any. */
    busyId: string | null;
    onRevoke: (token: CaptureTokenInfo) => void;
  },
) {
  if (tokens.length === 0) {
    return <p class="capture-muted">You have no capture tokens.</p>;
  }
  return (
    <ul class="capture-token-list" aria-label="Your capture tokens">
      {tokens.map((t) => {
        const name = workspaceName(t.workspace_id);
        const created = fullDate(t.created_at);
        return (
          <li key={t.token_id} class="capture-token-item">
            <div class="capture-token-info">
              <p class="capture-token-name">
                <span>{name ?? "A workspace you left"}</span>
                {t.token_id === shownId && <span class="badge capture-token-new">New</span>}
                {t.active && <span class="badge">Latest</span>}
              </p>
              <p class="capture-token-dates">
                <span>
                  Created <time dateTime={t.created_at}>{created}</time>
                </span>
                <span>
                  {t.last_used_at
                    ? <RelativeTime iso={t.last_used_at} prefix="Last used " />
                    : "Never used"}
                </span>
              </p>
            </div>
            <button
              type="button"
              class="button secondary capture-danger-text"
              aria-label={`Revoke the ${name ?? "former workspace"} token created ${created}`}
              disabled={busyId !== null}
              onClick={() => onRevoke(t)}
            >
              {busyId === t.token_id ? "Revoking…" : "Revoke"}
            </button>
          </li>
        );
      })}
    </ul>
  );
}
