/**
 * Actions of a workspace: the board (by status, assignee and creator, a page at a time), the
 * writes (create, edit, status, the assignee's answer, delete) and each action's attachments
 * (the entry is recorded first, then the file goes straight to storage; a failed upload takes
 * its entry back).
 */
import { ApiError, call, client, type JsonBody, type Schemas } from "./api.ts";
import { BOARD_PAGE, pagedBoard } from "./paged.ts";

export type Action = Schemas["Action"];
export type ActionStatus = Action["status"];
export type ActionFields = Omit<JsonBody<"/api/actions", "post">, "workspace_id">;

export interface ActionQuery {
  workspaceId: string;
  status?: ActionStatus | "";
  assigneeId?: string;
  createdBy?: string;
}

/** The actions board: newest first, `BOARD_PAGE` at a time, the filters sent to the server. */
export const actionBoard = pagedBoard<Action, ActionQuery>(
  (q, cursor) =>
    call(
      client().GET("/api/actions", {
        params: {
          query: {
            workspaceId: q.workspaceId,
            ...(q.status ? { status: q.status } : {}),
            ...(q.assigneeId ? { assigneeId: q.assigneeId } : {}),
            ...(q.createdBy ? { createdBy: q.createdBy } : {}),
            limit: BOARD_PAGE,
            ...(cursor ? { cursor } : {}),
          },
        },
      }),
    ),
  (q) => JSON.stringify([q.workspaceId, q.status ?? "", q.assigneeId ?? "", q.createdBy ?? ""]),
  (action) => action.action_id,
);

/** Whether `action` belongs on the board of `q` (after a write changed it). */
export function actionMatches(action: Action, q: ActionQuery): boolean {
  return action.workspace_id === q.workspaceId &&
    (!q.status || action.status === q.status) &&
    (!q.assigneeId || action.assignee_id === q.assigneeId) &&
    (!q.createdBy || action.created_by === q.createdBy);
}

/** Puts `action` as it is now in the board's place of it, or takes it off what it left. */
export function patchAction(action: Action, q: ActionQuery): void {
  actionBoard.patch((items) =>
    actionMatches(action, q)
      ? items.map((a) => a.action_id === action.action_id ? action : a)
      : items.filter((a) => a.action_id !== action.action_id)
  );
}

/** Reads one action again after a change made elsewhere (its attachments) into the board. */
export async function refreshAction(q: ActionQuery, id: string): Promise<void> {
  try {
    const fresh = await call(
      client().GET("/api/actions/{id}", {
        params: { path: { id }, query: { workspaceId: q.workspaceId } },
      }),
    );
    patchAction(fresh, q);
  } catch (err) {
    // gone meanwhile: off the board; any other failure leaves it as it was
    if (err instanceof ApiError && err.status === 404) {
      actionBoard.patch((items) => items.filter((a) => a.action_id !== id));
    }
  }
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
  actionBoard.patch((items) => items.filter((a) => a.action_id !== id));
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
