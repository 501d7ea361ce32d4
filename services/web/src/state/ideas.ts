/**
 * Ideas of a workspace: the board (filtered by status, tags and author, a page at a time), one
 * idea, and the writes. The screen patches the board from each write's answer, so no write
 * refetches.
 */
import { signal } from "@preact/signals";
import { call, client, type JsonBody, type Schemas } from "./api.ts";
import { BOARD_PAGE, pagedBoard } from "./paged.ts";

export type Idea = Schemas["Idea"];

export interface IdeaQuery {
  workspaceId: string;
  status?: string;
  tags?: string;
  author?: string;
}

/** The ideas board: newest first, `BOARD_PAGE` at a time, the filters sent to the server. */
export const ideaBoard = pagedBoard<Idea, IdeaQuery>(
  (q, cursor) =>
    call(
      client().GET("/api/ideas", {
        params: {
          query: {
            workspaceId: q.workspaceId,
            status: (q.status || undefined) as Idea["status"] | undefined,
            tags: q.tags || undefined,
            authorId: q.author || undefined,
            limit: BOARD_PAGE,
            ...(cursor ? { cursor } : {}),
          },
        },
      }),
    ),
  (q) => JSON.stringify([q.workspaceId, q.status ?? "", q.tags ?? "", q.author ?? ""]),
  (idea) => idea.idea_id,
);

/** One idea, or null when it is gone (a post may outlive its idea). */
export function getIdea(workspaceId: string, id: string): Promise<Idea | null> {
  return call(
    client().GET("/api/ideas/{id}", {
      params: { path: { id }, query: { workspaceId } },
    }),
  ).catch(() => null);
}

export function createIdea(body: JsonBody<"/api/ideas", "post">): Promise<Idea> {
  return call(client().POST("/api/ideas", { body }));
}

export function updateIdea(id: string, body: JsonBody<"/api/ideas/{id}", "put">): Promise<Idea> {
  return call(client().PUT("/api/ideas/{id}", { params: { path: { id } }, body }));
}

export async function deleteIdea(workspaceId: string, id: string): Promise<void> {
  await call(
    client().DELETE("/api/ideas/{id}", {
      params: { path: { id }, query: { workspaceId } },
    }),
  );
  ideaBoard.patch((items) => items.filter((i) => i.idea_id !== id));
}

/** A quick-add entry shown at once, before (or instead of, with its error) the saved idea. */
export interface PendingIdea {
  key: string;
  text: string;
  error?: unknown;
}

/** The quick-add entries on their way, newest first, with the workspace they go to. */
export const pendingIdeas = signal<(PendingIdea & { workspaceId: string })[]>([]);

/**
 * Quick add, optimistically: the entry is listed as pending at once, leaves the list when the
 * idea is saved (answered) and stays with its error when it is not (answers null).
 */
export async function quickAddIdea(workspaceId: string, entry: PendingIdea): Promise<Idea | null> {
  const { error: _, ...clean } = entry;
  pendingIdeas.value = [
    { ...clean, workspaceId },
    ...pendingIdeas.value.filter((p) => p.key !== entry.key),
  ];
  try {
    const idea = await createIdea({
      workspace_id: workspaceId,
      title: entry.text,
      tags: [],
      source_url: "",
    });
    dismissPendingIdea(entry.key);
    return idea;
  } catch (error) {
    pendingIdeas.value = pendingIdeas.value.map((p) => p.key === entry.key ? { ...p, error } : p);
    return null;
  }
}

export function dismissPendingIdea(key: string): void {
  pendingIdeas.value = pendingIdeas.value.filter((p) => p.key !== key);
}

/** Forgets every pending entry (the ideas screen closed). */
export function forgetPendingIdeas(): void {
  pendingIdeas.value = [];
}
