/**
 * The post editor: the live CodeMirror editor on the post's `Y.Text` "content", presence,
 * connection state, counters, and the post's title, tags and status; below the text what is
 * published with it (media, the first comment). The comments and AI panels (their own
 * helpers' components) plug in through `EditorSession`.
 */
import { useCallback, useEffect, useState } from "preact/hooks";
import type { ScreenProps } from "../screen_props.ts";
import { ApiError, type Schemas } from "../state/api.ts";
import { Link } from "../router.tsx";
import { getPost } from "../state/posts.ts";
import { keepDownloadUrls } from "../state/post_media.ts";
import { useResource } from "../components/use_resource.ts";
import { Loading } from "../components/loading.tsx";
import { ErrorMessage } from "../components/error_message.tsx";
import { claims } from "../state/session.ts";
import { createEditorSession, type LiveEditorSession } from "../editor/session.ts";
import { EditorPane } from "../components/editor_pane.tsx";
import { EditorStatusBar } from "../components/editor_status_bar.tsx";
import { PresenceAvatars } from "../components/presence_avatars.tsx";
import { EditorPostFields } from "../components/editor_post_fields.tsx";
import { ReviewBar } from "../components/review_bar.tsx";
import { VersionHistory } from "../components/version_history.tsx";
import { LinkedInPreview } from "../components/linkedin_preview.tsx";
import { PostMedia } from "../components/post_media.tsx";
import { FirstComment } from "../components/first_comment.tsx";
// ── Slots owned by the comments + AI helper (they replace these components) ──
import { CommentsPanel } from "../components/comments_panel.tsx";
import { AiPanel } from "../components/ai_panel.tsx";

type Post = Schemas["Post"];

export default function PostEditorScreen({ params }: ScreenProps) {
  const { workspaceId, postId } = params;
  const post = useResource(
    () => getPost(workspaceId, postId),
    [workspaceId, postId],
  );
  if (post.loading && !post.data) return <Loading label="Loading post" />;
  if (post.error || !post.data) {
    // a post that is not there will not come back on Retry: say so and lead back to the list
    const gone = post.error instanceof ApiError && post.error.status === 404;
    return (
      <section class="stack">
        <h1>Post</h1>
        {gone
          ? <ErrorMessage error="This post does not exist, or it was deleted." />
          : <ErrorMessage error={post.error} onRetry={post.reload} />}
        <p>
          <Link href={`/workspaces/${encodeURIComponent(workspaceId)}/posts`}>Back to posts</Link>
        </p>
      </section>
    );
  }
  return <PostEditor key={`${workspaceId}/${postId}`} initial={post.data} />;
}

function PostEditor({ initial }: { initial: Post }) {
  const [post, setPostState] = useState<Post>(initial);
  const setPost = useCallback(
    (next: Post) => setPostState((prev) => keepDownloadUrls(next, prev)),
    [],
  );
  const [session, setSession] = useState<LiveEditorSession | null>(null);
  const me = claims.value;

  useEffect(() => {
    const s = createEditorSession({
      workspaceId: initial.workspace_id,
      postId: initial.post_id,
      user: { id: me?.sub ?? "anonymous", name: me?.name || me?.email || "Someone" },
    });
    setSession(s);
    return () => s.destroy();
  }, [initial.workspace_id, initial.post_id]);

  return (
    <div class="post-editor">
      <div class="post-editor-main stack">
        {/* the title is an editable field: the page's main heading names the post for screen readers */}
        <h1 class="visually-hidden">{post.title.trim() || "Untitled post"}</h1>
        <EditorPostFields post={post} onSaved={setPost} />
        {session && (
          <>
            <div class="post-editor-toolbar">
              <PresenceAvatars session={session} />
              <EditorStatusBar session={session} />
              <VersionHistory session={session} post={post} onChange={setPost} />
            </div>
            {post.status === "published" && (
              <p class="review-line review-warning post-live-notice" role="note">
                This text is live on LinkedIn. Editing it here changes nothing there
                {post.linkedin_post_url
                  ? (
                    <>
                      {": "}
                      <a href={post.linkedin_post_url} target="_blank" rel="noopener noreferrer">
                        see the post on LinkedIn
                        <span class="visually-hidden">(opens in a new tab)</span>
                      </a>.
                    </>
                  )
                  : "."}
              </p>
            )}
            <EditorPane session={session} />
          </>
        )}
        <PostMedia post={post} onChange={setPost} />
        <FirstComment post={post} onSaved={setPost} />
        {session && <LinkedInPreview session={session} post={post} />}
      </div>
      {session && (
        <aside class="post-editor-side stack" aria-label="Review, comments and AI">
          <ReviewBar post={post} onChange={setPost} />
          {/* ── SLOT: comments panel (owned by the comments helper) ── */}
          <CommentsPanel session={session} />
          {/* ── SLOT: AI panel (owned by the AI helper) ── */}
          <AiPanel session={session} post={post} />
        </aside>
      )}
    </div>
  );
}
