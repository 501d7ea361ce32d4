/**
 * Actions of a workspace: the list (by status and assignee), the writes (create, edit, status,
 * the assignee's answer, delete) and each action's attachments (the entry is recorded first,
 * then the file goes straight to storage; a failed upload takes its entry back).
 */
import { signal } from "@preact/signals";
import { call, client, type JsonBody, type Schemas } from "./api.ts";

export type Action = Schemas["Action"];
export type ActionStatus = Action["status"];
export type ActionFields = Omit<JsonBody<"/api/actions", "post">, "workspace_id">;

export interface ActionQuery {
  status?: ActionStatus | "";
  assigneeId?: string;
}

/** The last list loaded, with the workspace it belongs to. */
export const actions = signal<{ workspaceId: string; items: Action[] } | null>(null);

let loads = 0;

/** Loads a list; only the latest load (filters changed meanwhile) lands in `actions`. */
export async function loadActions(workspaceId: string, q: ActionQuery = {}) {
  const load = ++loads;
  const data = await call(
    client().GET("/api/actions", {
      params: {
        query: {
          workspaceId,
          ...(q.status ? { status: q.status } : {}),
          ...(q.assigneeId ? { assigneeId: q.assigneeId } : {}),
        },
      },
    }),
  );
  if (load === loads) actions.value = { workspaceId, items: data.items };
  return data;
}

export function createAction(workspaceId: string, fields: ActionFields): Promise<Action> {
  return call(client().POST("/api/actions", { body: { workspace_id: workspaceId, ...fields } }));
}

export function updateAction(
  workspaceId: string,
  id: string,
  fields: ActionFields,
): Promise<Action> {
  return call(
    client().PUT("/api/actions/{id}", {
      params: { path: { id } },
      body: { workspace_id: workspaceId, ...fields },
    }),
  );
}

export function setActionStatus(a: Action, status: ActionStatus) {
  return call(
    client().PUT("/api/actions/{id}/status", {
      params: { path: { id: a.action_id } },
      body: { workspace_id: a.workspace_id, status },
    }),
  );
}

/** The assignee accepts or declines. */
export function respondToAction(a: Action, response: "accepted" | "declined") {
  return call(
    client().PUT("/api/actions/{id}/response", {
      params: { path: { id: a.action_id } },
      body: { workspace_id: a.workspace_id, response },
    }),
  );
}

export async function deleteAction(workspaceId: string, id: string): Promise<void> {
  await call(
    client().DELETE("/api/actions/{id}", {
      params: { path: { id }, query: { workspaceId } },
    }),
  );
  const current = actions.value;
  if (current?.workspaceId === workspaceId) {
    actions.value = { workspaceId, items: current.items.filter((a) => a.action_id !== id) };
  }
}

export function loadAttachments(workspaceId: string, actionId: string) {
  return call(
    client().GET("/api/actions/{id}/attachments", {
      params: { path: { id: actionId }, query: { workspaceId } },
    }),
  );
}

/** Records an attachment and answers where to upload its file. */
export function addAttachment(
  workspaceId: string,
  actionId: string,
  filename: string,
  contentType: string,
) {
  return call(
    client().POST("/api/actions/{id}/attachments", {
      params: { path: { id: actionId } },
      body: { workspace_id: workspaceId, filename, contentType },
    }),
  );
}

export async function removeAttachment(
  workspaceId: string,
  actionId: string,
  key: string,
): Promise<void> {
  await call(
    client().DELETE("/api/actions/{id}/attachments", {
      params: { path: { id: actionId }, query: { workspaceId, key } },
    }),
  );
}
