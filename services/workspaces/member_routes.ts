import { createRoute, z } from "@hono/zod-openapi";
import { bearer as security, body, err, json } from "../../shared/http/openapi.ts";
import { requireCaller, type ServiceApp } from "../../shared/http/service_app.ts";
import { MemberOperations } from "./operations.ts";
import type { RouteDeps } from "./routes.ts";
import {
  addMemberBodySchema,
  idParamSchema,
  inviteParamSchema,
  inviteResponseSchema,
  memberListSchema,
  memberParamSchema,
  membershipRecordSchema,
  pendingInviteListSchema,
} from "./schemas.ts";
import { MESSAGES } from "../../shared/http/messages.ts";

/** The members and pending invites of a workspace (spec: Workspaces). */
export function mountMemberRoutes(
  app: ServiceApp,
  { store, auth, claims, news }: RouteDeps,
): void {
  const members = new MemberOperations(store, auth, claims, news);

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/workspaces/{id}/members",
      tags: ["Workspaces"],
      summary: "Add a registered user, or invite an unregistered email (owner or editor)",
      description: "Inviting an email again replaces its pending invite (the latest role wins).",
      security,
      request: { params: idParamSchema, ...body(addMemberBodySchema) },
      responses: {
        201: json(
          z.union([membershipRecordSchema, inviteResponseSchema]),
          "The membership, or {status: invited} for an unregistered or unconfirmed email",
        ),
        400: err("email missing or invalid, or a bad role (owner included)"),
        403: err("Not a member, or not owner/editor"),
        404: err("Workspace missing or soft-deleted"),
        409: err("Already a member"),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const { email, role } = c.req.valid("json");
      const added = await members.add(
        id,
        caller.user_id,
        email,
        role as "editor" | "viewer",
        caller.name || caller.email,
      );
      if (added.kind === "member") return c.json(added.membership, 201);
      return c.json({ status: "invited" as const, email: added.email, role: added.role }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/workspaces/{id}/members",
      tags: ["Workspaces"],
      summary: "List the members with their email and name (any member)",
      security,
      request: { params: idParamSchema },
      responses: {
        200: json(memberListSchema, "The members"),
        403: err(MESSAGES.notMember),
        404: err("Workspace soft-deleted"),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      return c.json({ members: await members.listWithProfiles(id, caller.user_id) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/workspaces/{id}/invites",
      tags: ["Workspaces"],
      summary: "List the pending invites, oldest first (any member)",
      description: "An invite is pending until someone signs up and confirms with its email; " +
        "then it becomes a membership and leaves this list.",
      security,
      request: { params: idParamSchema },
      responses: {
        200: json(pendingInviteListSchema, "The pending invites"),
        403: err(MESSAGES.notMember),
        404: err("Workspace missing or soft-deleted (checked after membership)"),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      return c.json({ invites: await members.pendingInvites(id, caller.user_id) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/workspaces/{id}/invites/{email}",
      tags: ["Workspaces"],
      summary: "Cancel a pending invite (owner or editor)",
      description: "The email is compared trimmed and lower-cased. A cancelled invite no " +
        "longer turns into a membership when that email signs up and confirms.",
      security,
      request: { params: inviteParamSchema },
      responses: {
        204: { description: "Cancelled" },
        400: err("email invalid or over 254 characters"),
        403: err("Not a member, or not owner/editor"),
        404: err("Workspace missing or soft-deleted, or Invite not found"),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id, email } = c.req.valid("param");
      await store.invites.cancel(id, caller.user_id, email);
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/workspaces/{id}/members/{userId}",
      tags: ["Workspaces"],
      summary: "Remove a member (the owner removes others; anyone but the owner may leave)",
      security,
      request: { params: memberParamSchema },
      responses: {
        204: { description: "Removed" },
        400: err("The owner tried to remove themselves"),
        403: err("Not a member, or a non-owner removing someone else"),
        404: err("The user is not a member, or the workspace is soft-deleted"),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id, userId } = c.req.valid("param");
      await store.removeMember(id, caller.user_id, userId);
      return c.body(null, 204);
    },
  );
}
