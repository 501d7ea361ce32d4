/**
 * "Version history" in the editor's toolbar: a dialog listing the post's versions (who, when,
 * why: the reason and a saved version's label), the word-by-word difference between the chosen
 * version and the live text (jsdiff, loaded when the dialog first shows one), "Save version"
 * with an optional label, and Restore for owners and editors (the server sets the live text,
 * which every open editor sees at once).
 */
import { useEffect, useState } from "preact/hooks";
import type { Schemas } from "../state/api.ts";
import {
  loadVersion,
  loadVersions,
  restoreVersion,
  saveVersion,
  type Version,
  type VersionSummary,
} from "../state/versions.ts";
import { loadWorkspace } from "../state/workspaces.ts";
import type { EditorSession } from "../editor/session.ts";
import { WorkspaceDialog } from "./workspace_dialog.tsx";
import { ErrorMessage } from "./error_message.tsx";
import { Loading } from "./loading.tsx";
import { useResource } from "./use_resource.ts";
import { useLiveText } from "./use_live_text.ts";
import { useConfirm } from "./confirm_dialog.tsx";

type Post = Schemas["Post"];

const REASON: Record<VersionSummary["reason"], string> = {
  approved: "Approved",
  published: "Published",
  saved: "Saved",
  restored: "Restored",
};

const WHEN = new Intl.DateTimeFormat(undefined, {
  day: "numeric",
  month: "short",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
});

export function VersionHistory(
  { session, post, onChange }: {
    session: EditorSession;
    post: Post;
    onChange: (post: Post) => void;
  },
) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        class="button secondary wa-small"
        aria-haspopup="dialog"
        onClick={() => setOpen(true)}
      >
        Version history
      </button>
      <WorkspaceDialog title="Version history" open={open} onClose={() => setOpen(false)} wide>
        {open && <History session={session} post={post} onChange={onChange} />}
      </WorkspaceDialog>
    </>
  );
}

function History(
  { session, post, onChange }: {
    session: EditorSession;
    post: Post;
    onChange: (post: Post) => void;
  },
) {
  const { workspace_id: workspaceId, post_id: postId } = post;
  const versions = useResource(() => loadVersions(workspaceId, postId), [workspaceId, postId]);
  const workspace = useResource(() => loadWorkspace(workspaceId), [workspaceId]);
  const role = workspace.data?.member_role;
  const canRestore = role === "owner" || role === "editor";
  const [chosen, setChosen] = useState<string | null>(null);
  const items = versions.data?.items ?? [];
  const current = chosen ?? items[0]?.version_id ?? null;
  return (
    <div class="vh">
      <SaveVersion
        workspaceId={workspaceId}
        postId={postId}
        onSaved={(v) => {
          setChosen(v.version_id);
          versions.reload();
        }}
      />
      {versions.error && <ErrorMessage error={versions.error} onRetry={versions.reload} />}
      {versions.loading && !versions.data && <Loading label="Loading versions" />}
      {versions.data && items.length === 0 && (
        <p class="wa-muted">
          No versions yet. One is kept at each approval and publication, and whenever someone saves
          one.
        </p>
      )}
      {items.length > 0 && (
        <div class="vh-body">
          <ol class="vh-list" aria-label="Versions">
            {items.map((v) => (
              <li key={v.version_id}>
                <button
                  type="button"
                  class="vh-item"
                  aria-pressed={v.version_id === current}
                  onClick={() => setChosen(v.version_id)}
                >
                  <span class="vh-reason">
                    {REASON[v.reason]}
                    {v.label && <span class="vh-label">“{v.label}”</span>}
                  </span>
                  <span class="vh-meta">
                    {v.created_by_name} ·{" "}
                    <time dateTime={v.created_at}>{WHEN.format(new Date(v.created_at))}</time>
                  </span>
                </button>
              </li>
            ))}
          </ol>
          {current && (
            <VersionDiff
              key={current}
              session={session}
              workspaceId={workspaceId}
              postId={postId}
              versionId={current}
              canRestore={canRestore}
              onRestored={(p) => {
                onChange(p);
                setChosen(null);
                versions.reload();
              }}
            />
          )}
        </div>
      )}
    </div>
  );
}

function SaveVersion(
  { workspaceId, postId, onSaved }: {
    workspaceId: string;
    postId: string;
    onSaved: (v: VersionSummary) => void;
  },
) {
  const [label, setLabel] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState("");
  return (
    <form
      class="vh-save"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        try {
          const saved = await saveVersion(workspaceId, postId, label);
          setLabel("");
          setDone(saved.label ? `Saved “${saved.label}”` : "Version saved");
          onSaved(saved);
        } catch (err) {
          setError(err);
        } finally {
          setBusy(false);
        }
      }}
    >
      <div class="field">
        <label for="vh-label">Label (optional)</label>
        <input
          id="vh-label"
          value={label}
          maxLength={200}
          placeholder="e.g. Before the legal review"
          onInput={(e) => setLabel(e.currentTarget.value)}
        />
      </div>
      <button type="submit" class="button" disabled={busy}>
        {busy ? "Saving…" : "Save version"}
      </button>
      <p class="vh-done" role="status">{done}</p>
      <ErrorMessage error={error} />
    </form>
  );
}

type Part = { value: string; added?: boolean; removed?: boolean };

/** jsdiff, fetched the first time a difference is shown (it is not in the editor's bundle). */
let differ: Promise<(a: string, b: string) => Part[]> | null = null;
function loadDiffer() {
  differ ??= import("diff").then((m) => (a: string, b: string) => m.diffWordsWithSpace(a, b));
  return differ;
}

function VersionDiff(
  { session, workspaceId, postId, versionId, canRestore, onRestored }: {
    session: EditorSession;
    workspaceId: string;
    postId: string;
    versionId: string;
    canRestore: boolean;
    onRestored: (post: Post) => void;
  },
) {
  const version = useResource(
    () => loadVersion(workspaceId, postId, versionId),
    [workspaceId, postId, versionId],
  );
  const live = useLiveText(session);
  const [diff, setDiff] = useState<((a: string, b: string) => Part[]) | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [confirm, ask] = useConfirm();
  useEffect(() => {
    loadDiffer().then((fn) => setDiff(() => fn), setError);
  }, []);
  const v: Version | undefined = version.data;
  if (version.error) return <ErrorMessage error={version.error} onRetry={version.reload} />;
  if (!v || !diff) return <Loading label="Comparing" />;
  const parts = diff(v.text, live);
  const same = parts.every((p) => !p.added && !p.removed);
  const restore = async () => {
    const ok = await ask({
      title: "Restore this version?",
      body: (
        <p>
          The post's text becomes this version's for everyone editing it now. Its media, first
          comment and author come back too. A new “Restored” version records it.
        </p>
      ),
      confirmLabel: "Restore",
      danger: false,
    });
    if (!ok) return;
    setBusy(true);
    setError(null);
    try {
      onRestored(await restoreVersion(workspaceId, postId, versionId));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="vh-diff-pane">
      <h3 class="vh-diff-title">From this version to the live text</h3>
      <p class="wa-muted wa-small">
        <span class="vh-key vh-del">Only in this version</span>{" "}
        <span class="vh-key vh-add">Only in the live text</span>
      </p>
      <div class="vh-diff" role="region" aria-label="Differences" tabIndex={0} dir="auto">
        {same ? <p class="wa-muted">No differences: the live text is this version.</p> : (
          parts.map((p, i) =>
            p.added
              ? <ins key={i} class="vh-add">{p.value}</ins>
              : p.removed
              ? <del key={i} class="vh-del">{p.value}</del>
              : <span key={i}>{p.value}</span>
          )
        )}
      </div>
      {v.first_comment !== null && (
        <p class="wa-small">
          <strong>First comment in this version:</strong> {v.first_comment}
        </p>
      )}
      {canRestore && (
        <div class="button-row wa-start">
          <button type="button" class="button" disabled={busy || same} onClick={restore}>
            {busy ? "Restoring…" : "Restore this version"}
          </button>
        </div>
      )}
      <ErrorMessage error={error} />
      {confirm}
    </div>
  );
}
