import { createRoute, type RouteConfig, z } from "@hono/zod-openapi";
import type { AssetStore } from "../../shared/assets/store.ts";
import { buildMessage, type TemplateName } from "../../shared/delivery/mod.ts";
import { AppError, badRequest, forbidden, notFound } from "../../shared/http/app_error.ts";
import type { Caller } from "../../shared/http/identity.ts";
import { requireCaller, type ServiceApp } from "../../shared/http/service_app.ts";
import { newId } from "../../shared/ids.ts";
import { countMetric, recordMetric } from "../../shared/metrics.ts";
import type { ServiceQueue } from "../../shared/queue.ts";
import { nowIso } from "../../shared/time.ts";
import type { AuthClient } from "../auth/client.ts";
import type { WorkspacesClient } from "../workspaces/client.ts";
import type { ActionsConfig } from "./config.ts";
import type { ActionsJob } from "./jobs.ts";
import {
  type Action,
  actionIdParam,
  actionListSchema,
  actionSchema,
  addAttachmentBody,
  ALLOWED_EXTENSIONS,
  attachmentListSchema,
  CONTENT_TYPES,
  createActionBody,
  deleteAttachmentQuery,
  deletedSchema,
  errorSchema,
  listQuery,
  MAX_ATTACHMENTS,
  responseBody,
  splitFilename,
  statusBody,
  updateActionBody,
  uploadUrlSchema,
  workspaceQuery,
} from "./schemas.ts";
import type { ActionStore } from "./store.ts";

export interface ActionsDeps {
  store: ActionStore;
  queue: ServiceQueue<ActionsJob>;
  auth: AuthClient;
  workspaces: WorkspacesClient;
  assets: AssetStore | null;
  config: ActionsConfig;
}

/** Lifetime of a download URL in the attachment list (spec: 1 hour). */
const DOWNLOAD_URL_TTL = 3600;

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { "application/json": { schema } },
  description,
});
const errors = (...codes: number[]) =>
  Object.fromEntries(codes.map((code) => [code, json(errorSchema, "Error")]));
const body = <T extends z.ZodType>(schema: T) => ({
  body: { content: { "application/json": { schema } }, required: true },
});
const secured = { tags: ["Actions"], security: [{ bearer: [] }] } satisfies Partial<RouteConfig>;

export function mountActionRoutes(app: ServiceApp, deps: ActionsDeps): void {
  const { store, queue, auth, workspaces, config } = deps;

  /** Membership first (403 `Not a workspace member`), then the action (404). */
  const loadAction = async (caller: Caller, workspaceId: string, actionId: string) => {
    await workspaces.requireMember(workspaceId, caller.user_id);
    const action = await store.get(workspaceId, actionId);
    if (!action) throw notFound("Action not found");
    return action;
  };

  /** The assignee's profile, refused with 400 when they are not a member of the workspace. */
  const memberProfile = async (workspaceId: string, userId: string) => {
    const membership = await workspaces.membership(workspaceId, userId);
    if (!membership.role) throw badRequest("assignee_id is not a member of the workspace");
    const profile = await auth.getUser(userId);
    if (!profile) throw badRequest("assignee_id is not a member of the workspace");
    return profile;
  };

  const dm = (
    op: Deno.AtomicOperation,
    to: string | undefined,
    template: TemplateName,
    action: Action,
    actor: Caller,
    extra: Record<string, unknown> = {},
  ) => {
    if (!to) return;
    queue.enqueue(op, {
      type: "deliver",
      message: buildMessage("dm", to, template, {
        action_id: action.action_id,
        workspace_id: action.workspace_id,
        action_title: action.title,
        actor_name: actor.name || actor.email,
        description: action.description,
        due_date: action.due_date ?? "",
        url:
          `${config.publicUrl}/workspaces/${action.workspace_id}/actions?action=${action.action_id}`,
        ...extra,
      }),
    });
  };

  const requireAssets = (): AssetStore => {
    if (!deps.assets) throw new AppError(500, "Asset storage not configured");
    return deps.assets;
  };

  // POST /api/actions
  app.openapi(
    createRoute({
      ...secured,
      method: "post",
      path: "/api/actions",
      summary: "Create an action item (DMs the assignee)",
      request: body(createActionBody),
      responses: { 201: json(actionSchema, "The action"), ...errors(400, 401, 403) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const input = c.req.valid("json");
      await workspaces.requireMember(input.workspace_id, caller.user_id);
      const assignee = await memberProfile(input.workspace_id, input.assignee_id);
      const now = nowIso();
      const action: Action = {
        action_id: newId(),
        workspace_id: input.workspace_id,
        title: input.title,
        description: input.description ?? "",
        assignee_id: input.assignee_id,
        assignee_name: assignee.name,
        assignee_response: "pending",
        linked_post_id: input.linked_post_id ?? null,
        status: "open",
        // Strings per the spec's Action table (only linked_post_id and completed_at are nullable).
        priority: input.priority ?? "",
        due_date: input.due_date ?? "",
        attachments: [],
        created_by: caller.user_id,
        created_at: now,
        updated_at: now,
        completed_at: null,
      };
      await store.create(action, (op) => dm(op, assignee.email, "action_created", action, caller));
      return c.json(action, 201);
    },
  );

  // GET /api/actions?workspaceId=
  app.openapi(
    createRoute({
      ...secured,
      method: "get",
      path: "/api/actions",
      summary: "List a workspace's actions (exact-match filters)",
      request: { query: listQuery },
      responses: { 200: json(actionListSchema, "The actions"), ...errors(400, 401, 403) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const query = c.req.valid("query");
      await workspaces.requireMember(query.workspaceId, caller.user_id);
      // A blank filter is no filter (as an absent one), not a match on the empty string.
      const status = query.status?.trim() || undefined;
      const assigneeId = query.assigneeId?.trim() || undefined;
      const linkedPostId = query.linkedPostId?.trim() || undefined;
      const items = (await store.list(query.workspaceId)).filter((a) =>
        (status === undefined || a.status === status) &&
        (assigneeId === undefined || a.assignee_id === assigneeId) &&
        (linkedPostId === undefined || a.linked_post_id === linkedPostId)
      );
      return c.json({ items, count: items.length }, 200);
    },
  );

  // GET /api/actions/{id}?workspaceId=
  app.openapi(
    createRoute({
      ...secured,
      method: "get",
      path: "/api/actions/{id}",
      summary: "Get an action",
      request: { params: actionIdParam, query: workspaceQuery },
      responses: { 200: json(actionSchema, "The action"), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const { workspaceId } = c.req.valid("query");
      return c.json(await loadAction(caller, workspaceId, id), 200);
    },
  );

  // PUT /api/actions/{id}
  app.openapi(
    createRoute({
      ...secured,
      method: "put",
      path: "/api/actions/{id}",
      summary: "Update an action (a new assignee gets a DM and a pending response)",
      request: { params: actionIdParam, ...body(updateActionBody) },
      responses: { 200: json(actionSchema, "The action"), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const { workspace_id, ...changes } = c.req.valid("json");
      const current = await loadAction(caller, workspace_id, id);
      const newAssignee = changes.assignee_id !== undefined &&
          changes.assignee_id !== current.assignee_id
        ? await memberProfile(workspace_id, changes.assignee_id)
        : null;
      const result = await store.update(workspace_id, id, (action) => {
        if (changes.title !== undefined) action.title = changes.title;
        if (changes.description !== undefined) action.description = changes.description;
        if (changes.linked_post_id !== undefined) action.linked_post_id = changes.linked_post_id;
        if (changes.priority !== undefined) action.priority = changes.priority;
        if (changes.due_date !== undefined) action.due_date = changes.due_date;
        if (newAssignee && action.assignee_id !== newAssignee.user_id) {
          action.assignee_id = newAssignee.user_id;
          action.assignee_name = newAssignee.name;
          action.assignee_response = "pending";
        }
        action.updated_at = nowIso();
        return action;
      }, (op, before, after) => {
        if (newAssignee && before && after && before.assignee_id !== after.assignee_id) {
          dm(op, newAssignee.email, "action_assigned", after, caller);
        }
      });
      if (!result) throw notFound("Action not found");
      return c.json(result.after, 200);
    },
  );

  // PUT /api/actions/{id}/status
  app.openapi(
    createRoute({
      ...secured,
      method: "put",
      path: "/api/actions/{id}/status",
      summary: "Change an action's status (completed DMs the creator)",
      request: { params: actionIdParam, ...body(statusBody) },
      responses: { 200: json(actionSchema, "The action"), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const { workspace_id, status } = c.req.valid("json");
      const current = await loadAction(caller, workspace_id, id);
      const creator = status === "completed" ? await auth.getUser(current.created_by) : null;
      const result = await store.update(workspace_id, id, (action) => {
        const now = nowIso();
        action.status = status;
        action.updated_at = now;
        if (status === "completed") action.completed_at = now;
        return action;
      }, (op, _before, after) => {
        if (status === "completed" && after) {
          dm(op, creator?.email, "action_completed", after, caller);
        }
      });
      if (!result) throw notFound("Action not found");
      const action = result.after;
      if (status === "completed") {
        countMetric("ActionCompleted");
        const turnaround = (Date.parse(action.completed_at ?? "") - Date.parse(action.created_at)) /
          1000;
        if (Number.isFinite(turnaround)) recordMetric("ActionTurnaroundSeconds", turnaround);
      }
      return c.json(action, 200);
    },
  );

  // PUT /api/actions/{id}/response
  app.openapi(
    createRoute({
      ...secured,
      method: "put",
      path: "/api/actions/{id}/response",
      summary: "The assignee accepts or declines (DMs the creator)",
      request: { params: actionIdParam, ...body(responseBody) },
      responses: { 200: json(actionSchema, "The action"), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const { workspace_id, response } = c.req.valid("json");
      const current = await loadAction(caller, workspace_id, id);
      if (current.assignee_id !== caller.user_id) {
        throw forbidden("Only the assignee can respond to this action");
      }
      const creator = await auth.getUser(current.created_by);
      let refused = false;
      const result = await store.update(workspace_id, id, (action) => {
        if (action.assignee_id !== caller.user_id) {
          refused = true;
          return null;
        }
        action.assignee_response = response;
        action.updated_at = nowIso();
        return action;
      }, (op, _before, after) => {
        if (after) dm(op, creator?.email, "action_response", after, caller, { response });
      });
      if (!result) throw notFound("Action not found");
      if (refused) throw forbidden("Only the assignee can respond to this action");
      return c.json(result.after, 200);
    },
  );

  // DELETE /api/actions/{id}?workspaceId=
  app.openapi(
    createRoute({
      ...secured,
      method: "delete",
      path: "/api/actions/{id}",
      summary: "Delete an action (creator or platform admin)",
      request: { params: actionIdParam, query: workspaceQuery },
      responses: { 204: { description: "Deleted" }, ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const { workspaceId } = c.req.valid("query");
      const current = await loadAction(caller, workspaceId, id);
      const allowed = (a: Action) => a.created_by === caller.user_id || caller.role === "admin";
      if (!allowed(current)) throw forbidden("Only the creator or an admin can delete this action");
      const deleted = await store.delete(workspaceId, id, (op, before) => {
        const keys = before?.attachments.map((a) => a.key) ?? [];
        if (keys.length > 0 && deps.assets) queue.enqueue(op, { type: "delete_assets", keys });
      });
      if (!deleted) throw notFound("Action not found");
      return c.body(null, 204);
    },
  );

  // POST /api/actions/{id}/attachments
  app.openapi(
    createRoute({
      ...secured,
      method: "post",
      path: "/api/actions/{id}/attachments",
      summary: "Get an upload URL for an attachment (metadata recorded at once)",
      description: "PUT the bytes to `uploadUrl` with a `Content-Type` equal to `contentType`. " +
        "An entry whose upload never arrives is removed once the URL has expired.",
      request: { params: actionIdParam, ...body(addAttachmentBody) },
      responses: {
        201: json(uploadUrlSchema, "The upload URL"),
        ...errors(400, 401, 403, 404, 500),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const input = c.req.valid("json");
      const { basename, extension } = splitFilename(input.filename);
      if (!basename) throw badRequest("filename is required");
      if (!(ALLOWED_EXTENSIONS as readonly string[]).includes(extension)) {
        throw badRequest(`filename must end in one of: ${ALLOWED_EXTENSIONS.join(", ")}`);
      }
      // The type the upload will be served with must be the one its extension says, so a
      // `.png` can never be served as HTML or script.
      const expectedType = CONTENT_TYPES[extension];
      const contentType = input.contentType ?? expectedType;
      if (contentType.split(";")[0].trim().toLowerCase() !== expectedType) {
        throw badRequest(`contentType must be ${expectedType} for a .${extension} file`);
      }
      await loadAction(caller, input.workspace_id, id);
      const assets = requireAssets();
      const key = `workspaces/${input.workspace_id}/actions/${id}/${basename}`;
      let uploadUrl: string;
      try {
        uploadUrl = await assets.presignPut(key, contentType, config.uploadUrlTtl);
      } catch (err) {
        if (err instanceof RangeError) throw badRequest("filename cannot be used as a storage key");
        throw err;
      }
      const entry = {
        key,
        filename: basename,
        uploaded_at: nowIso(),
        uploaded_by: caller.user_id,
      };
      let full = false;
      const result = await store.update(input.workspace_id, id, (action) => {
        const others = action.attachments.filter((a) => a.key !== key);
        if (others.length >= MAX_ATTACHMENTS) {
          full = true;
          return null;
        }
        action.attachments = [...others, entry];
        action.updated_at = entry.uploaded_at;
        return action;
      }, (op) => {
        queue.enqueue(op, {
          type: "attachment_cleanup",
          workspace_id: input.workspace_id,
          action_id: id,
          key,
          uploaded_at: entry.uploaded_at,
        }, { delay: (config.uploadUrlTtl + config.cleanupMargin) * 1000 });
      });
      if (!result) throw notFound("Action not found");
      if (full) throw badRequest(`An action can have at most ${MAX_ATTACHMENTS} attachments`);
      return c.json({ uploadUrl, key, expiresIn: config.uploadUrlTtl }, 201);
    },
  );

  // GET /api/actions/{id}/attachments?workspaceId=
  app.openapi(
    createRoute({
      ...secured,
      method: "get",
      path: "/api/actions/{id}/attachments",
      summary: "List an action's attachments, each with a fresh download URL (1 hour)",
      request: { params: actionIdParam, query: workspaceQuery },
      responses: {
        200: json(attachmentListSchema, "The attachments"),
        ...errors(400, 401, 403, 404, 500),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const { workspaceId } = c.req.valid("query");
      const action = await loadAction(caller, workspaceId, id);
      const assets = requireAssets();
      const items = await Promise.all(action.attachments.map(async (a) => ({
        ...a,
        downloadUrl: await assets.presignGet(a.key, DOWNLOAD_URL_TTL),
      })));
      return c.json({ items, count: items.length }, 200);
    },
  );

  // DELETE /api/actions/{id}/attachments?workspaceId=&key=
  app.openapi(
    createRoute({
      ...secured,
      method: "delete",
      path: "/api/actions/{id}/attachments",
      summary: "Delete an attachment: the stored object and the entry",
      request: { params: actionIdParam, query: deleteAttachmentQuery },
      responses: {
        200: json(deletedSchema, "Deleted"),
        ...errors(400, 401, 403, 404, 500),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const { workspaceId, key } = c.req.valid("query");
      const action = await loadAction(caller, workspaceId, id);
      if (!action.attachments.some((a) => a.key === key)) throw notFound("Attachment not found");
      const assets = requireAssets();
      await assets.delete(key);
      const result = await store.update(workspaceId, id, (current) => {
        if (!current.attachments.some((a) => a.key === key)) return null;
        current.attachments = current.attachments.filter((a) => a.key !== key);
        current.updated_at = nowIso();
        return current;
      });
      if (!result) throw notFound("Action not found");
      return c.json({ deleted: true as const }, 200);
    },
  );
}
