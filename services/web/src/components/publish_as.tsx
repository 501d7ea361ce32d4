/**
 * "Publish as": the connected LinkedIn member or one of the organization pages the member
 * administers. Shown only when the workspace's connection lists pages (or the post already
 * names one); owners and editors choose, since publishing speaks for the member or the page;
 * everyone else, and everyone once the post is published, reads who it is published as.
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

  const nameOf = (value: string) =>
    value === "member"
      ? `${c.name ?? "The connected member"} (member)`
      : `${
        pages.find((o) => o.urn === value)?.name ?? "A page no longer in the connection"
      } (page)`;

  // Once published, or for a member who may not choose, who it is (or was) published as.
  if (!canChoose || post.status === "published") {
    return (
      <p class="review-line publish-as-readonly">
        {post.status === "published" ? "Published as" : "Publishes as"}{" "}
        <strong>{nameOf(post.publish_as)}</strong>
      </p>
    );
  }

  return (
    <div class="field publish-as">
      <label for="publish-as">Publish as</label>
      <select
        id="publish-as"
        value={post.publish_as}
        disabled={busy}
        onChange={(e) => void choose(e.currentTarget.value)}
      >
        <option value="member">{nameOf("member")}</option>
        {pages.map((o) => <option key={o.urn} value={o.urn}>{nameOf(o.urn)}</option>)}
        {!known && <option value={post.publish_as}>{nameOf(post.publish_as)}</option>}
      </select>
      <ErrorMessage error={error} />
    </div>
  );
}
