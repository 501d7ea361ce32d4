/**
 * Posts ready to be scheduled (approved, or any draft where no approval is required): dragged
 * into a free slot or onto a day, or scheduled with their Schedule button.
 */
import { Link } from "../../router.tsx";
import type { Planning } from "../../state/calendar.ts";
import { DRAG_TYPE } from "./day.tsx";
import { type Moving, titleOf } from "./model.ts";

const STATUS: Record<string, string> = {
  approved: "Approved",
  in_review: "In review",
  draft: "Draft",
};

/** The title, else the text's first line. */
function readyTitle(post: Planning["ready"][number]): string {
  return titleOf(post.title || post.content.split("\n").find((l) => l.trim()) || "");
}

export function ReadyPosts(
  { posts, postHref, onDragStart, onDragEnd, onSchedule }: {
    posts: Planning["ready"];
    postHref: (postId: string) => string;
    onDragStart: (moving: Moving) => void;
    onDragEnd: () => void;
    onSchedule: (moving: Moving) => void;
  },
) {
  return (
    <section class="cal-ready" aria-labelledby="cal-ready-heading">
      <h2 id="cal-ready-heading" class="cal-ready-heading">
        Ready to schedule <span class="wa-muted">({posts.length})</span>
      </h2>
      {posts.length === 0
        ? (
          <p class="wa-muted wa-small">
            Nothing waiting. Approved posts show up here, to drag into a free slot.
          </p>
        )
        : (
          <ul class="cal-ready-list">
            {posts.map((post) => {
              const moving: Moving = { post_id: post.post_id, title: readyTitle(post), at: null };
              return (
                <li
                  key={post.post_id}
                  class="cal-post cal-ready-post"
                  draggable
                  onDragStart={(e) => {
                    e.dataTransfer?.setData(DRAG_TYPE, post.post_id);
                    if (e.dataTransfer) e.dataTransfer.effectAllowed = "move";
                    onDragStart(moving);
                  }}
                  onDragEnd={onDragEnd}
                >
                  <Link
                    href={postHref(post.post_id)}
                    class="cal-post-title"
                    draggable={false}
                  >
                    {moving.title}
                  </Link>
                  <span class="cal-badge">{STATUS[post.status] ?? post.status}</span>
                  <button
                    type="button"
                    class="cal-move"
                    aria-label={`Schedule “${moving.title}”`}
                    onClick={() => onSchedule(moving)}
                  >
                    Schedule
                  </button>
                </li>
              );
            })}
          </ul>
        )}
    </section>
  );
}
