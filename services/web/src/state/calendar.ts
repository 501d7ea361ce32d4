/**
 * A workspace's calendar: its scheduled and published posts and free publishing slots over a
 * range of days (in the workspace's timezone), each post with its approval, and the posts ready
 * to be scheduled (approved, or any draft when the workspace needs no approval). Moving a post
 * is scheduling it again at the new time.
 */
import { call, client, type Schemas } from "./api.ts";
import { schedulePost } from "./posts.ts";

type Post = Schemas["Post"];
type CalendarItem = Schemas["Calendar"]["items"][number];

export interface PlannedPost {
  kind: "scheduled" | "published";
  at: string;
  post_id: string;
  title: string;
  /** Approved by a reviewer (false: scheduled without one, where none is required). */
  approved: boolean;
}

export interface FreeSlot {
  kind: "slot";
  at: string;
}

export type PlanItem = PlannedPost | FreeSlot;

export interface Planning {
  timezone: string;
  items: PlanItem[];
  /** Posts that can go into a slot: not scheduled nor published, and approved if required. */
  ready: Pick<Post, "post_id" | "title" | "content" | "status">[];
}

function listByStatus(workspaceId: string, status: Post["status"]) {
  return call(client().GET("/api/posts", { params: { query: { workspaceId, status } } }));
}

/** `from` to `to` (days, both included) of the workspace's calendar. */
export async function loadPlanning(
  workspaceId: string,
  from: string,
  to: string,
  { approvalRequired }: { approvalRequired: boolean },
): Promise<Planning> {
  const readyStatuses: Post["status"][] = approvalRequired
    ? ["approved"]
    : ["approved", "in_review", "draft"];
  const [calendar, scheduled, ...ready] = await Promise.all([
    call(
      client().GET("/api/workspaces/{id}/calendar", {
        params: { path: { id: workspaceId }, query: { from, to } },
      }),
    ),
    listByStatus(workspaceId, "scheduled"),
    ...readyStatuses.map((s) => listByStatus(workspaceId, s)),
  ]);
  const approvals = new Map(scheduled.items.map((p) => [p.post_id, p]));
  return {
    timezone: calendar.timezone,
    items: calendar.items.map((item) => planItem(item, approvals)),
    ready: ready.flatMap((list) =>
      list.items.map(({ post_id, title, content, status }) => ({ post_id, title, content, status }))
    ),
  };
}

function planItem(item: CalendarItem, posts: Map<string, Post>): PlanItem {
  if (item.kind === "slot" || !item.post_id) return { kind: "slot", at: item.at };
  const post = posts.get(item.post_id);
  return {
    kind: item.kind,
    at: item.at,
    post_id: item.post_id,
    title: item.title ?? "",
    approved: !!post?.approved_by,
  };
}

/** Puts the post at `at` (scheduling it, or moving it when it is already scheduled). */
export function movePost(workspaceId: string, postId: string, at: string): Promise<Post> {
  return schedulePost(workspaceId, postId, at);
}
