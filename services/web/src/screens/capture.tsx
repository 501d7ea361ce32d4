/**
 * Quick capture (`/workspaces/:id/capture`, `/capture`): create a capture token (shown once),
 * revoke it, and the two ways to use it: a bookmarklet that works on any page (strict CSP
 * included: it opens a small window on our origin instead of calling the API from the page)
 * and a curl line.
 */
import { useEffect, useState } from "preact/hooks";
import { api, call, type Schemas } from "../api/client.ts";
import { bookmarkletCode, bookmarkletHref, curlLine } from "../components/capture_bookmarklet.ts";
import { CaptureCopyField } from "../components/capture_copy.tsx";
import { EmptyState } from "../components/empty_state.tsx";
import { ErrorMessage } from "../components/error_message.tsx";
import { Loading } from "../components/loading.tsx";
import { Link, navigate } from "../router.tsx";
import type { ScreenProps } from "../routes.ts";
import { workspaces, workspacesError } from "../state/workspaces.ts";

type Token = Schemas["CaptureToken"];

export default function CaptureScreen({ params }: ScreenProps) {
  const list = workspaces.value;
  const workspaceId = params.workspaceId ?? list?.[0]?.workspace_id ?? null;
  const workspace = list?.find((w) => w.workspace_id === workspaceId);
  const [token, setToken] = useState<Token | null>(null);
  const [busy, setBusy] = useState<null | "create" | "revoke">(null);
  const [error, setError] = useState<unknown>(null);
  const [revoked, setRevoked] = useState(false);
  const [clickHint, setClickHint] = useState(false);

  // A token belongs to one workspace: switching workspace forgets the one on screen.
  useEffect(() => {
    setToken(null);
    setError(null);
    setRevoked(false);
  }, [workspaceId]);

  if (!list) {
    return workspacesError.value
      ? <ErrorMessage error={workspacesError.value} />
      : <Loading label="Loading workspaces" />;
  }
  if (!workspaceId) {
    return (
      <section class="stack">
        <h1>Quick capture</h1>
        <EmptyState title="No workspace yet">
          <p>Quick capture saves ideas into a workspace. Create one first.</p>
          <Link href="/" class="button">Create a workspace</Link>
        </EmptyState>
      </section>
    );
  }

  const create = async () => {
    setBusy("create");
    setError(null);
    try {
      setToken(
        await call(api.POST("/api/quick-capture/token", { body: { workspace_id: workspaceId } })),
      );
      setRevoked(false);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  };
  const revoke = async () => {
    setBusy("revoke");
    setError(null);
    try {
      await call(api.DELETE("/api/quick-capture/token"));
      setToken(null);
      setRevoked(true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  };

  const origin = location.origin;
  const name = workspace?.name ?? "your workspace";

  return (
    <section class="capture-screen stack">
      <header>
        <h1>Quick capture</h1>
        <p class="capture-lead">
          Save ideas into <strong>{name}</strong>{" "}
          from any web page or script, without opening the app. Captured ideas get an AI title and
          land on the{" "}
          <Link href={`/workspaces/${encodeURIComponent(workspaceId)}/ideas`}>ideas board</Link>.
        </p>
      </header>

      {list.length > 1 && (
        <div class="field capture-workspace">
          <label for="capture-workspace">Workspace</label>
          <select
            id="capture-workspace"
            value={workspaceId}
            onChange={(e) =>
              navigate(`/workspaces/${encodeURIComponent(e.currentTarget.value)}/capture`)}
          >
            {list.map((w) => <option key={w.workspace_id} value={w.workspace_id}>{w.name}</option>)}
          </select>
        </div>
      )}

      <section class="card stack" aria-labelledby="capture-token-heading">
        <h2 id="capture-token-heading">1. Your capture token</h2>
        {token
          ? (
            <>
              <p class="capture-warning">
                Copy it now: it is shown only this once. Anyone holding it can add ideas to {name}
                {" "}
                as you, so keep it like a password.
              </p>
              <CaptureCopyField id="capture-token" label="Token" value={token.token} />
            </>
          )
          : (
            <p>
              A token lets the bookmarklet and your scripts add ideas as you, without signing in.
              Creating a new one does not stop older ones; revoking stops your latest one.
            </p>
          )}
        {revoked && (
          <p class="capture-ok" role="status">
            Token revoked: the bookmarklet and curl line that use it no longer work.
          </p>
        )}
        <div class="capture-actions">
          <button
            type="button"
            class="button"
            disabled={busy !== null}
            onClick={() => void create()}
          >
            {busy === "create"
              ? "Creating…"
              : token
              ? "Create a new token"
              : "Create capture token"}
          </button>
          <button
            type="button"
            class="button secondary capture-danger-text"
            disabled={busy !== null}
            onClick={() => void revoke()}
          >
            {busy === "revoke" ? "Revoking…" : "Revoke token"}
          </button>
        </div>
        <ErrorMessage error={error} />
      </section>

      <section class="card stack" aria-labelledby="capture-bookmarklet-heading">
        <h2 id="capture-bookmarklet-heading">2. The bookmarklet</h2>
        {token
          ? (
            <>
              <p>
                Drag this button to your bookmarks bar. On any page, select some text (or nothing)
                and click the bookmark: a small window saves the selection, the page's title and its
                address as an idea, then closes. It works on every site, even those that forbid
                scripts to call other servers, because the window it opens is this app.
              </p>
              <p class="capture-muted">
                The page's address goes into the idea's text as a last line, “Source: …”.
              </p>
              <p>
                <a
                  class="capture-bookmarklet"
                  href={bookmarkletHref(origin, token.token)}
                  draggable
                  onClick={(e) => {
                    // Our own CSP forbids running it here, and it is meant for other pages.
                    e.preventDefault();
                    setClickHint(true);
                  }}
                >
                  Capture to {name}
                </a>
              </p>
              <p class="capture-hint" role="status">
                {clickHint
                  ? "Drag the button to your bookmarks bar, then use it on the page you want to capture."
                  : ""}
              </p>
              <details class="capture-details">
                <summary>No bookmarks bar? Copy the code instead</summary>
                <p>
                  Create a bookmark by hand and paste this as its address (the{" "}
                  <code>javascript:</code> prefix included).
                </p>
                <CaptureCopyField
                  id="capture-bookmarklet-code"
                  label="Bookmarklet code"
                  value={`javascript:${bookmarkletCode(origin, token.token)}`}
                  multiline
                />
              </details>
            </>
          )
          : <p class="capture-muted">Create a token first: the bookmarklet carries it.</p>}
      </section>

      <section class="card stack" aria-labelledby="capture-curl-heading">
        <h2 id="capture-curl-heading">3. From a terminal or script</h2>
        {token
          ? (
            <>
              <p>
                Send the idea's text as <code>title</code> (and optional{" "}
                <code>tags</code>); the AI writes the title.
              </p>
              <CaptureCopyField
                id="capture-curl"
                label="curl command"
                value={curlLine(token.api_url, token.token)}
                multiline
                buttonLabel="Copy curl command"
              />
            </>
          )
          : <p class="capture-muted">Create a token first: the command carries it.</p>}
      </section>
    </section>
  );
}
