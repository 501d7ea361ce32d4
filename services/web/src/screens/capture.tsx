/**
 * Quick capture (`/workspaces/:id/capture`, `/capture`): create a capture token (shown once,
 * optionally revoking the caller's older ones for the workspace), the list of the caller's
 * tokens with a Revoke button each, and the two ways to use a token: a bookmarklet that works
 * on any page (strict CSP included: it opens a small window on our origin instead of calling
 * the API from the page) and a curl line.
 */
import { useEffect, useState } from "preact/hooks";
import { bookmarkletCode, bookmarkletHref, curlLine } from "../components/capture_bookmarklet.ts";
import { CaptureCopyField } from "../components/capture_copy.tsx";
import { CaptureTokenList } from "../components/capture_token_list.tsx";
import { useConfirm } from "../components/confirm_dialog.tsx";
import { EmptyState } from "../components/empty_state.tsx";
import { ErrorMessage } from "../components/error_message.tsx";
import { Loading } from "../components/loading.tsx";
import { Link, navigate } from "../router.tsx";
import type { ScreenProps } from "../screen_props.ts";
import {
  captureTokens,
  captureTokensError,
  createCaptureToken,
  forgetCaptureTokens,
  loadCaptureTokens,
  type NewCaptureToken,
  revokeCaptureToken,
} from "../state/capture_tokens.ts";
import { fullDate } from "../components/idea_time.tsx";
import { workspaces, workspacesError } from "../state/workspaces.ts";

export default function CaptureScreen({ params }: ScreenProps) {
  const list = workspaces.value;
  const workspaceId = params.workspaceId ?? list?.[0]?.workspace_id ?? null;
  const workspace = list?.find((w) => w.workspace_id === workspaceId);
  const [token, setToken] = useState<NewCaptureToken | null>(null);
  const [busy, setBusy] = useState<null | "create" | "revoke">(null);
  const [error, setError] = useState<unknown>(null);
  const [revoked, setRevoked] = useState(false);
  const [clickHint, setClickHint] = useState(false);
  const [revokeOlder, setRevokeOlder] = useState(true);
  const [olderRevoked, setOlderRevoked] = useState(0);
  const [listBusy, setListBusy] = useState<string | null>(null);
  const [listError, setListError] = useState<unknown>(null);
  const [listNote, setListNote] = useState("");
  const [confirmDialog, ask] = useConfirm();
  const tokens = captureTokens.value;

  useEffect(() => {
    forgetCaptureTokens();
    void loadCaptureTokens();
  }, []);

  // A token belongs to one workspace: switching workspace forgets the one on screen.
  useEffect(() => {
    setToken(null);
    setError(null);
    setRevoked(false);
    setOlderRevoked(0);
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

  /** The caller's other tokens for this workspace: what "Revoke my older tokens" stops. */
  const older = (tokens ?? []).filter((t) =>
    t.workspace_id === workspaceId && t.token_id !== token?.token_id
  );
  const workspaceName = (id: string) => list.find((w) => w.workspace_id === id)?.name ?? null;

  const create = async () => {
    setBusy("create");
    setError(null);
    setListNote("");
    try {
      const olderIds = revokeOlder ? older.map((t) => t.token_id) : [];
      const created = await createCaptureToken(workspaceId, olderIds);
      setToken(created.token);
      setOlderRevoked(created.revoked);
      setRevoked(false);
      if (created.revokeError) setError(created.revokeError);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  };
  /** Revokes the token on screen: the one just created. */
  const revoke = async () => {
    if (!token) return;
    setBusy("revoke");
    setError(null);
    try {
      await revokeCaptureToken(token.token_id);
      setToken(null);
      setRevoked(true);
      setOlderRevoked(0);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  };
  /** Revokes a token from the list, once confirmed. */
  const revokeListed = async (
    t: { token_id: string; workspace_id: string; created_at: string },
  ) => {
    const name = workspaceName(t.workspace_id) ?? "a workspace you left";
    const ok = await ask({
      title: "Revoke this token?",
      body: `The token for ${name} created ${
        fullDate(t.created_at)
      } stops working at once: every bookmarklet and script that uses it gets refused.`,
      confirmLabel: "Revoke",
    });
    if (!ok) return;
    setListBusy(t.token_id);
    setListError(null);
    setListNote("");
    try {
      await revokeCaptureToken(t.token_id);
      if (t.token_id === token?.token_id) {
        setToken(null);
        setRevoked(true);
      }
      setListNote(`Token for ${name} revoked.`);
    } catch (err) {
      setListError(err);
    } finally {
      setListBusy(null);
    }
  };

  const origin = location.origin;
  const name = workspace?.name ?? "your workspace";

  return (
    <section class="capture-screen stack">
      {confirmDialog}
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
              Each token works until you revoke it.
            </p>
          )}
        <p class="capture-ok" role="status">
          {revoked
            ? "Token revoked: the bookmarklet and curl line that use it no longer work."
            : olderRevoked > 0
            ? `Your ${
              olderRevoked === 1 ? "older token" : `${olderRevoked} older tokens`
            } for ${name} ${olderRevoked === 1 ? "was" : "were"} revoked.`
            : ""}
        </p>
        {older.length > 0 && (
          <label class="settings-toggle capture-revoke-older">
            <input
              type="checkbox"
              checked={revokeOlder}
              onChange={(e) => setRevokeOlder(e.currentTarget.checked)}
            />
            <span>
              Revoke my older tokens for {name} ({older.length}) when I create a new one
            </span>
          </label>
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
          {token && (
            <button
              type="button"
              class="button secondary capture-danger-text"
              disabled={busy !== null}
              onClick={() => void revoke()}
            >
              {busy === "revoke" ? "Revoking…" : "Revoke token"}
            </button>
          )}
        </div>
        <ErrorMessage error={error} />
      </section>

      <section class="card stack" aria-labelledby="capture-tokens-heading">
        <h2 id="capture-tokens-heading">Your capture tokens</h2>
        <p class="capture-muted">
          Every token you have created and not revoked, in all your workspaces. Revoke any you no
          longer use or that someone else may have seen.
        </p>
        {tokens
          ? (
            <CaptureTokenList
              tokens={tokens}
              workspaceName={workspaceName}
              shownId={token?.token_id ?? null}
              busyId={listBusy}
              onRevoke={(t) => void revokeListed(t)}
            />
          )
          : captureTokensError.value
          ? (
            <ErrorMessage
              error={captureTokensError.value}
              onRetry={() => void loadCaptureTokens()}
            />
          )
          : <Loading label="Loading your tokens" />}
        <p class="capture-ok" role="status">{listNote}</p>
        <ErrorMessage error={listError} />
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
