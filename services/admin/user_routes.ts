import { createRoute } from "@hono/zod-openapi";
import { body, err, json } from "../../shared/http/openapi.ts";
import type { ServiceApp } from "../../shared/http/service_app.ts";
import { encodeCursor, pageRequest } from "../../shared/http/page_query.ts";
import { adminRoute, guardResponses } from "./guard.ts";
import type { AdminOperations } from "./operations.ts";
import {
  enabledBodySchema,
  enabledSetSchema,
  roleBodySchema,
  roleSetSchema,
  userDecidedSchema,
  userIdParamSchema,
  userListQuerySchema,
  userListSchema,
  USERS_LIST,
} from "./schemas.ts";

const userNotFound = err("User not found");

const DECISIONS = [
  {
    decision: "approve",
    status: "approved",
    summary: "Approve a user: approved flag and claim, account enabled, user_approved DM",
    description: "Approved",
  },
  {
    decision: "reject",
    status: "rejected",
    summary: "Reject a user: not approved, account disabled, no notification",
    description: "Rejected",
  },
] as const;

/** The user routes: list, approve or reject, platform role, account enabled. */
export function mountUserRoutes(app: ServiceApp, admin: AdminOperations): void {
  app.openapi(
    createRoute({
      ...adminRoute,
      method: "get",
      path: "/api/admin/users",
      summary: "List users with their derived status and last login, oldest first; " +
        "with `limit`, one page at a time",
      request: { query: userListQuerySchema },
      responses: {
        200: json(userListSchema, "The users (with `limit`: one page, `count` and `next_cursor`)"),
        400: err("limit not 1 to 200, or cursor malformed"),
        ...guardResponses,
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = pageRequest(USERS_LIST, query);
      if (page) {
        const { users, next } = await admin.listUsersPage(query.status, {
          limit: page.limit,
          after: page.after?.[0],
        });
        const next_cursor = next === null ? null : encodeCursor(USERS_LIST, [next]);
        return c.json({ users, count: users.length, next_cursor }, 200);
      }
      return c.json({ users: await admin.listUsers(query.status) }, 200);
    },
  );

  for (const { decision, status, summary, description } of DECISIONS) {
    app.openapi(
      createRoute({
        ...adminRoute,
        method: "post",
        path: `/api/admin/users/{id}/${decision}`,
        summary,
        request: { params: userIdParamSchema },
        responses: {
          200: json(userDecidedSchema(status), description),
          ...guardResponses,
          404: userNotFound,
        },
      }),
      async (c) => c.json(await admin.decide(c.req.valid("param").id, decision), 200),
    );
  }

  app.openapi(
    createRoute({
      ...adminRoute,
      method: "put",
      path: "/api/admin/users/{id}/role",
      summary: "Set a user's platform role (effective from their next token)",
      request: { params: userIdParamSchema, ...body(roleBodySchema) },
      responses: {
        200: json(roleSetSchema, "Updated"),
        400: err("role missing or invalid"),
        ...guardResponses,
        404: userNotFound,
      },
    }),
    async (c) =>
      c.json(await admin.setRole(c.req.valid("param").id, c.req.valid("json").role), 200),
  );

  app.openapi(
    createRoute({
      ...adminRoute,
      method: "put",
      path: "/api/admin/users/{id}/status",
      summary: "Enable or disable an account (a disabled one can neither log in nor refresh)",
      request: { params: userIdParamSchema, ...body(enabledBodySchema) },
      responses: {
        200: json(enabledSetSchema, "Updated"),
        400: err("enabled missing or null"),
        ...guardResponses,
        404: userNotFound,
      },
    }),
    async (c) =>
      c.json(await admin.setEnabled(c.req.valid("param").id, c.req.valid("json").enabled), 200),
  );
}
