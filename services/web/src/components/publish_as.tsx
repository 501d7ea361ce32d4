/**
 * "Publish as": the connected LinkedIn member or one of the organization pages the member
 * administers. Shown only when the workspace's connection lists pages (or the post already
 * names one); owners and editors choose, since publishing speaks for the member or the page,
 * and everyone else sees who the post will be published as.
 */
import { useState } from "preact/hooks";
import type { Schemas } from "../state/api.ts";
import { loadLinkedIn } from "../state/linkedin.ts";
import { savePublishing } from "../state/posts.ts";
import { ErrorMessage } from "./error_message.tsx";
import { useResource } from "./use_resource.ts";

type Post = Schemas["Post"];
type Workspace = Schemas["WorkspaceDetail"];

export function PublishAs(
  { post, workspace, onChange }: {
    post: Post;
    workspace: Workspace;
    onChange: (post: Post) => void;
  },
) {
  const connection = useResource(
    () => loadLinkedIn(post.workspace_id),
    [post.workspace_id],
  );
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const c = connection.data;
  if (!c || !c.connected) return null;
  const pages = c.organizations;
  const known = post.publish_as === "member" || pages.some((o) => o.urn === post.publish_as);
  if (pages.length === 0 && post.publish_as === "member") return null;
  const canChoose = workspace.member_role === "owner" || workspace.member_role === "editor";

  async function choose(value: string) {
    setBusy(true);
    setError(null);
    try {
      onChange(await savePublishing(post, { publish_as: value }));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div class="field publish-as">
      <label for="publish-as">Publish as</label>
      <select
        id="publish-as"
        value={post.publish_as}
        disabled={!canChoose || busy}
        aria-describedby={canChoose ? undefined : "publish-as-hint"}
        onChange={(e) => void choose(e.currentTarget.value)}
      >
        <option value="member">{c.name ?? "The connected member"} (member)</option>
        {pages.map((o) => <option key={o.urn} value={o.urn}>{o.name} (page)</option>)}
        {!known && <option value={post.publish_as}>A page no longer in the connection</option>}
      </select>
      {!canChoose && (
        <p id="publish-as-hint" class="field-hint">
          The workspace's owners and editors choose who the post is published as.
        </p>
      )}
      <ErrorMessage error={error} />
    </div>
  );
}
