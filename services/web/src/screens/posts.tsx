/**
 * Posts (`/workspaces/:id/posts`): tabs by status (the tab is in the URL, `?status=in_review`,
 * and filters on the server), newest first and loaded a page at a time as the person scrolls;
 * each row with its title (or first line), author and last edit, linking to the editor; "New
 * post" creates a draft and opens it.
 */
import { useEffect, useState } from "preact/hooks";
import type { Schemas } from "../state/api.ts";
import { createPost, postBoard, type PostQuery } from "../state/posts.ts";
import { EmptyState } from "../components/empty_state.tsx";
import { ErrorMessage } from "../components/error_message.tsx";
import { RelativeTime } from "../components/idea_time.tsx";
import { Loading } from "../components/loading.tsx";
import { LoadMore } from "../components/load_more.tsx";
import { Link, navigate, url } from "../router.tsx";
import type { ScreenProps } from "../screen_props.ts";
import { workspaces } from "../state/workspaces.ts";
import { formatInZone } from "../components/schedule_time.ts";

type Post = Schemas["Post"];
type Status = Post["status"];

const STATUSES: { value: Status; label: string; emptyTitle: string; empty: string }[] = [
  {
    value: "draft",
    label: "Drafts",
    emptyTitle: "No drafts",
    empty: "Start one with New post, or with “Write a post” on an idea.",
  },
  {
    value: "in_review",
    label: "In review",
    emptyTitle: "Nothing in review",
    empty:
      "Nothing waiting for review. Move a draft here when it is ready for a second pair of eyes.",
  },
  {
    value: "approved",
    label: "Approved",
    emptyTitle: "Nothing approved",
    empty: "No approved posts yet. Reviewers approve posts that are in review.",
  },
  {
    value: "scheduled",
    label: "Scheduled",
    emptyTitle: "Nothing scheduled",
    empty: "Nothing scheduled. Schedule an approved post from its editor.",
  },
  {
    value: "published",
    label: "Published",
    emptyTitle: "Nothing published",
    empty: "Nothing published yet. Scheduled posts land here once they go out.",
  },
];

const LABEL: Record<Status, string> = {
  draft: "Draft",
  in_review: "In review",
  approved: "Approved",
  scheduled: "Scheduled",
  published: "Published",
};

/** The title, else the first non-empty line of the text, else a placeholder. */
function headline(post: Post): { text: string; untitled: boolean } {
  if (post.title.trim()) return { text: post.title.trim(), untitled: false };
  const line = post.content.split("\n").map((l) => l.trim()).find(Boolean);
  if (line) return { text: line.length > 120 ? `${line.slice(0, 119)}…` : line, untitled: false };
  return { text: "Untitled draft", untitled: true };
}

export default function PostsScreen({ params }: ScreenProps) {
  const workspaceId = params.workspaceId;
  const base = `/workspaces/${encodeURIComponent(workspaceId)}`;
  const wanted = url.value.search.get("status");
  const tab = STATUSES.find((s) => s.value === wanted)?.value ?? "all";
  const query: PostQuery = { workspaceId, status: tab === "all" ? undefined : tab };
  const reload = () => void postBoard.load(query);
  useEffect(reload, [workspaceId, tab]);
  const board = postBoard.state.value?.key === postBoard.keyOf(query)
    ? postBoard.state.value
    : null;
  const [creating, setCreating] = useState(false);
  const [createError, setCreateError] = useState<unknown>(null);

  const newPost = async () => {
    setCreating(true);
    setCreateError(null);
    try {
      const post = await createPost(workspaceId);
      navigate(`${base}/posts/${encodeURIComponent(post.post_id)}`);
    } catch (err) {
      setCreateError(err);
      setCreating(false);
    }
  };

  const shown = board?.items ?? [];
  const loaded = board?.loaded ?? false;
  const zone = workspaces.value?.find((w) => w.workspace_id === workspaceId)?.timezone ?? "UTC";
  const tabs = [{ value: "all" as const, label: "All" }, ...STATUSES];

  return (
    <section class="posts-screen stack">
      <header class="post-list-header">
        <h1>Posts</h1>
        <button type="button" class="button" disabled={creating} onClick={() => void newPost()}>
          {creating ? "Creating…" : "New post"}
        </button>
      </header>
      <ErrorMessage error={createError} />

      <nav class="post-list-tabs" aria-label="Post status">
        {tabs.map((t) => {
          const href = t.value === "all" ? `${base}/posts` : `${base}/posts?status=${t.value}`;
          return (
            <a
              key={t.value}
              href={href}
              class="post-list-tab"
              aria-current={tab === t.value ? "page" : undefined}
              onClick={(e) => {
                if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
                e.preventDefault();
                navigate(href, { replace: true });
              }}
            >
              {t.label}
            </a>
          );
        })}
      </nav>

      {!loaded && board?.error
        ? <ErrorMessage error={board.error} onRetry={reload} />
        : !loaded
        ? <Loading label="Loading posts" />
        : shown.length === 0 && board?.nextCursor === null
        ? (
          tab === "all"
            ? (
              <EmptyState title="No posts yet">
                <p>
                  Turn an idea into a post with “Write a post” on the{" "}
                  <Link href={`${base}/ideas`}>ideas board</Link>, or start from a blank page.
                </p>
                <button
                  type="button"
                  class="button"
                  disabled={creating}
                  onClick={() => void newPost()}
                >
                  Start a blank draft
                </button>
              </EmptyState>
            )
            : (
              <EmptyState title={STATUSES.find((s) => s.value === tab)!.emptyTitle}>
                <p>{STATUSES.find((s) => s.value === tab)!.empty}</p>
              </EmptyState>
            )
        )
        : (
          <ul class="post-list" aria-label={tab === "all" ? "All posts" : `${LABEL[tab]} posts`}>
            {shown.map((post) => {
              const h = headline(post);
              return (
                <li key={post.post_id} class="post-list-row">
                  <Link
                    href={`${base}/posts/${encodeURIComponent(post.post_id)}`}
                    class={`post-list-link${h.untitled ? " post-list-untitled" : ""}`}
                  >
                    {h.text}
                  </Link>
                  <span class={`post-list-status post-list-status-${post.status}`}>
                    {LABEL[post.status]}
                  </span>
                  <span class="post-list-meta">
                    {post.author_name || "Unknown author"} ·{" "}
                    <RelativeTime
                      iso={post.updated_at}
                      prefix="edited "
                    />
                    {post.status === "scheduled" && post.scheduled_at && (
                      <span class="post-list-when">
                        {" · goes out "}
                        <time dateTime={post.scheduled_at}>
                          {formatInZone(post.scheduled_at, zone)}
                        </time>
                        {` (${zone})`}
                      </span>
                    )}
                    {post.status === "published" && post.linkedin_post_url && (
                      <>
                        {" · "}
                        <a href={post.linkedin_post_url} target="_blank" rel="noopener noreferrer">
                          View on LinkedIn
                          <span class="visually-hidden">
                            {` (${h.text}, opens in a new tab)`}
                          </span>
                        </a>
                      </>
                    )}
                  </span>
                </li>
              );
            })}
          </ul>
        )}
      {board && <LoadMore list={board} onMore={() => void postBoard.more()} noun="posts" />}
    </section>
  );
}
