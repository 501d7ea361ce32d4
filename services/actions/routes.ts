import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import { bearer, body, err, json } from "../../shared/http/openapi.ts";
import { requireCaller, type ServiceApp } from "../../shared/http/service_app.ts";
import { encodeCursor, pageRequest } from "../../shared/http/page_query.ts";
import type { ActionOperations } from "./operations.ts";
import {
  actionIdParam,
  actionListSchema,
  ACTIONS_LIST,
  actionSchema,
  createActionBody,
  listQuery,
  responseBody,
  statusBody,
  updateActionBody,
  workspaceQuery,
} from "./schemas.ts";

export const secured = { tags: ["Actions"], security: bearer } satisfies Partial<RouteConfig>;

/** The refusals every action route shares: the input, then the caller, then membership. */
export const refusals = {
  400: err("A field is missing or invalid (the message names it)"),
  401: err("No valid access token"),
  403: err("Not a member of the workspace, or not allowed to do this"),
};
/** The refusal of a workspace that was soft-deleted (its members get 404). */
const deletedWorkspace = { 404: err("Workspace soft-deleted") };
/** The refusal of the routes on one action, after membership. */
export const unknownAction = { 404: err("No such action in the workspace") };

/** The action routes; the work is `ActionOperations`'. */
export function mountActionRoutes(app: ServiceApp, actions: ActionOperations): void {
  app.openapi(
    createRoute({
      ...secured,
      method: "post",
      path: "/api/actions",
      summary: "Create an action item (DMs the assignee)",
      request: body(createActionBody),
      responses: { 201: json(actionSchema, "The action"), ...refusals, ...deletedWorkspace },
    }),
    async (c) => c.json(await actions.create(requireCaller(c), c.req.valid("json")), 201),
  );

  app.openapi(
    createRoute({
      ...secured,
      method: "get",
      path: "/api/actions",
      summary: "List a workspace's actions, newest first (exact-match filters); " +
        "with `limit`, one page at a time",
      request: { query: listQuery },
      responses: {
        200: json(actionListSchema, "The actions (with `limit`: one page, and `next_cursor`)"),
        ...refusals,
        ...deletedWorkspace,
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const query = c.req.valid("query");
      const page = pageRequest(ACTIONS_LIST, query);
      if (page) {
        const { items, next } = await actions.listPage(caller, query, {
          limit: page.limit,
          after: page.after?.[0],
        });
        const next_cursor = next === null ? null : encodeCursor(ACTIONS_LIST, [next]);
        return c.json({ items, count: items.length, next_cursor }, 200);
      }
      const items = await actions.list(caller, query);
      return c.json({ items, count: items.length }, 200);
    },
  );

  app.openapi(
    createRoute({
      ...secured,
      method: "get",
      path: "/api/actions/{id}",
      summary: "Get an action",
      request: { params: actionIdParam, query: workspaceQuery },
      responses: { 200: json(actionSchema, "The action"), ...refusals, ...unknownAction },
    }),
    async (c) => {
      const { workspaceId } = c.req.valid("query");
      const action = await actions.require(requireCaller(c), workspaceId, c.req.valid("param").id);
      return c.json(action, 200);
    },
  );

  app.openapi(
    createRoute({
      ...secured,
      method: "put",
      path: "/api/actions/{id}",
      summary: "Update an action (a new assignee gets a DM and a pending response)",
      request: { params: actionIdParam, ...body(updateActionBody) },
      responses: { 200: json(actionSchema, "The action"), ...refusals, ...unknownAction },
    }),
    async (c) => {
      const { workspace_id, ...changes } = c.req.valid("json");
      const id = c.req.valid("param").id;
      return c.json(await actions.update(requireCaller(c), workspace_id, id, changes), 200);
    },
  );

  app.openapi(
    createRoute({
      ...secured,
      method: "put",
      path: "/api/actions/{id}/status",
      summary: "Change an action's status (completed DMs the creator)",
      request: { params: actionIdParam, ...body(statusBody) },
      responses: { 200: json(actionSchema, "The action"), ...refusals, ...unknownAction },
    }),
    async (c) => {
      const { workspace_id, status } = c.req.valid("json");
      const id = c.req.valid("param").id;
      return c.json(await actions.setStatus(requireCaller(c), workspace_id, id, status), 200);
    },
  );

  app.openapi(
    createRoute({
      ...secured,
      method: "put",
      path: "/api/actions/{id}/response",
      summary: "The assignee accepts or declines (DMs the creator)",
      request: { params: actionIdParam, ...body(responseBody) },
      responses: { 200: json(actionSchema, "The action"), ...refusals, ...unknownAction },
    }),
    async (c) => {
      const { workspace_id, response } = c.req.valid("json");
      const id = c.req.valid("param").id;
      return c.json(await actions.respond(requireCaller(c), workspace_id, id, response), 200);
    },
  );

  app.openapi(
    createRoute({
      ...secured,
      method: "delete",
      path: "/api/actions/{id}",
      summary: "Delete an action (creator or platform admin)",
      request: { params: actionIdParam, query: workspaceQuery },
      responses: { 204: { description: "Deleted" }, ...refusals, ...unknownAction },
    }),
    async (c) => {
      const { workspaceId } = c.req.valid("query");
      await actions.delete(requireCaller(c), workspaceId, c.req.valid("param").id);
      return c.body(null, 204);
    },
  );
}
