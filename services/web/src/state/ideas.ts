/**
 * Ideas of a workspace: the list (filtered by status, tags and author), one idea, and the
 * writes. The screen patches its list from each write's answer, so no write refetches.
 */
import { signal } from "@preact/signals";
import { call, client, type JsonBody, type Schemas } from "./api.ts";

export type Idea = Schemas["Idea"];
export type IdeaList = Schemas["IdeaList"];

export interface IdeaQuery {
  status?: string;
  tags?: string;
  author?: string;
}

/** The last list loaded, with the workspace it belongs to. */
export const ideas = signal<{ workspaceId: string; items: Idea[] } | null>(null);

let loads = 0;

/** Loads a list; only the latest load (filters changed meanwhile) lands in `ideas`. */
export async function loadIdeas(workspaceId: string, q: IdeaQuery = {}): Promise<IdeaList> {
  const load = ++loads;
  const data = await call(
    client().GET("/api/ideas", {
      params: {
        query: {
          workspaceId,
          status: (q.status || undefined) as Idea["status"] | undefined,
          tags: q.tags || undefined,
          authorId: q.author || undefined,
        },
      },
    }),
  );
  if (load === loads) ideas.value = { workspaceId, items: data.items };
  return data;
}

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
  const current = ideas.value;
  if (current?.workspaceId === workspaceId) {
    ideas.value = { workspaceId, items: current.items.filter((i) => i.idea_id !== id) };
  }
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
