/**
 * The LinkedIn section of the workspace settings: the connected member, when the
 * connection expires and who connected it, with "Disconnect"; or "Connect LinkedIn", which
 * goes through LinkedIn's consent and comes back to the settings. 503 (not configured) says
 * what the server's admin sets.
 */
import { useState } from "preact/hooks";
import { ApiError } from "../state/api.ts";
import { disconnectLinkedIn, linkedInAuthorizeUrl, loadLinkedIn } from "../state/linkedin.ts";
import { loadMembers } from "../state/members.ts";
import { ErrorMessage } from "./error_message.tsx";
import { Loading } from "./loading.tsx";
import { useResource } from "./use_resource.ts";
import { ConfirmDialog } from "./workspace_dialog.tsx";

const DAY = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "long", year: "numeric" });

export function LinkedInSettings(
  { workspaceId, canEdit }: { workspaceId: string; canEdit: boolean },
) {
  const id = workspaceId;
  const conn = useResource(
    () => loadLinkedIn(id),
    [id],
  );
  const members = useResource(
    () => loadMembers(id),
    [id],
  );
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [confirming, setConfirming] = useState(false);
  const c = conn.data;
  const by = c?.connected_by
    ? members.data?.members.find((m) => m.user_id === c.connected_by)
    : undefined;
  // "A former member" only once the member list says so; while it loads, no name at all.
  const byName = by
    ? by.name || by.email
    : c?.connected_by && members.data
    ? "a former member"
    : "";

  const connect = async () => {
    setBusy(true);
    setError(null);
    try {
      const authorize_url = await linkedInAuthorizeUrl(id);
      globalThis.location.assign(authorize_url);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  return (
    <section id="linkedin" class="card settings-section" aria-labelledby="linkedin-heading">
      <h2 id="linkedin-heading">LinkedIn</h2>
      <p class="wa-muted">
        Scheduled posts are published on LinkedIn as the connected member. One connection per
        workspace.
      </p>
      {conn.loading && !c && <Loading label="Loading the LinkedIn connection" />}
      {conn.error ? <ErrorMessage error={conn.error} onRetry={conn.reload} /> : null}
      {c && (
        <div class="linkedin-connection">
          {c.connected
            ? (
              <p>
                Connected as <strong>{c.name}</strong>
                {c.expires_at && (
                  <>
                    {" "}· until{" "}
                    <time dateTime={c.expires_at}>
                      {DAY.format(new Date(c.expires_at))}
                    </time>
                  </>
                )}
                {byName && <>{" "}· connected by {byName}</>}
              </p>
            )
            : c.name
            ? (
              <p>
                The connection of <strong>{c.name}</strong> has expired
                {c.expires_at ? ` (${DAY.format(new Date(c.expires_at))})` : ""}: connect again to
                keep publishing.
              </p>
            )
            : <p>Not connected. Scheduled posts cannot go out until someone connects LinkedIn.</p>}
          {canEdit && (
            <div class="button-row">
              {c.connected
                ? (
                  <button
                    type="button"
                    class="button secondary"
                    onClick={() => setConfirming(true)}
                  >
                    Disconnect
                  </button>
                )
                : (
                  <button
                    type="button"
                    class="button"
                    disabled={busy}
                    onClick={() => void connect()}
                  >
                    {busy
                      ? "Opening LinkedIn…"
                      : c.name
                      ? "Reconnect LinkedIn"
                      : "Connect LinkedIn"}
                  </button>
                )}
            </div>
          )}
        </div>
      )}
      {!canEdit && c && !c.connected && (
        <p class="wa-muted">The owner or an editor can connect LinkedIn.</p>
      )}
      {error instanceof ApiError && error.status === 503
        ? (
          <div class="error-message" role="alert">
            <p>{error.message}.</p>
            <p class="hint">
              The server's admin sets <code>LINKEDIN_CLIENT_ID</code> and{" "}
              <code>LINKEDIN_CLIENT_SECRET</code>{" "}
              (a LinkedIn app with the products “Sign In with LinkedIn using OpenID Connect” and
              “Share on LinkedIn”), then restarts the service.
            </p>
          </div>
        )
        : <ErrorMessage error={error} />}
      <ConfirmDialog
        open={confirming}
        title="Disconnect LinkedIn"
        confirmLabel="Disconnect"
        onClose={() => setConfirming(false)}
        onConfirm={async () => {
          await disconnectLinkedIn(id);
          conn.reload();
        }}
      >
        <p>
          Disconnect{" "}
          <strong>{c?.name}</strong>? Scheduled posts of this workspace will fail to publish until
          LinkedIn is connected again.
        </p>
      </ConfirmDialog>
    </section>
  );
}
