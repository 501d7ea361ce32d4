import { createRoute, z } from "@hono/zod-openapi";
import { requireCaller, type ServiceApp } from "../../shared/http/service_app.ts";
import type { AuthClient } from "../auth/client.ts";
import {
  MESSAGES,
  requireActive,
  requireActiveMember,
  requireOneOf,
  requireRole,
} from "./rules.ts";
import {
  addMemberBodySchema,
  createWorkspaceBodySchema,
  errorSchema,
  idParamSchema,
  inviteParamSchema,
  inviteResponseSchema,
  itemsResponseSchema,
  memberListSchema,
  memberParamSchema,
  membershipRecordSchema,
  pendingInviteListSchema,
  putAudiencesBodySchema,
  putLanguagesBodySchema,
  updateWorkspaceBodySchema,
  workspaceDetailSchema,
  workspaceListSchema,
  workspaceQuerySchema,
  workspaceSchema,
} from "./schemas.ts";
import type { WorkspacesStore } from "./store.ts";

export interface RouteDeps {
  store: WorkspacesStore;
  auth: AuthClient;
}

const security = [{ bearer: [] }];
const json = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { "application/json": { schema } },
  description,
});
const err = (description: string) => json(errorSchema, description);
const body = <T extends z.ZodType>(schema: T) => ({
  body: { content: { "application/json": { schema } }, required: true },
});

/** The public workspace routes (spec: Workspaces). */
export function mountWorkspaceRoutes(app: ServiceApp, { store, auth }: RouteDeps): void {
  app.openapi(
    createRoute({
      method: "post",
      path: "/api/workspaces",
      tags: ["Workspaces"],
      summary: "Create a workspace; the caller becomes its owner",
      security,
      request: body(createWorkspaceBodySchema),
      responses: {
        201: json(workspaceSchema, "The new workspace"),
        400: err("name missing, empty or over 100 characters"),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const input = c.req.valid("json");
      const workspace = await store.create({
        ownerId: caller.user_id,
        name: input.name,
        description: input.description,
      });
      return c.json(workspace, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/workspaces",
      tags: ["Workspaces"],
      summary: "List the caller's workspaces (soft-deleted ones excluded)",
      security,
      responses: { 200: json(workspaceListSchema, "The caller's workspaces with their role") },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const found = await store.listForUser(caller.user_id);
      return c.json(
        { workspaces: found.map(({ workspace, role }) => ({ ...workspace, member_role: role })) },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/workspaces/{id}",
      tags: ["Workspaces"],
      summary: "Get a workspace with its member count and the caller's role",
      security,
      request: { params: idParamSchema },
      responses: {
        200: json(workspaceDetailSchema, "The workspace"),
        403: err("Not a workspace member"),
        404: err("Workspace missing or soft-deleted"),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const view = await store.getForMember(id, caller.user_id);
      const { workspace, role } = requireActiveMember(view.workspace, view.membership);
      return c.json({ ...workspace, member_count: view.memberCount, member_role: role }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/api/workspaces/{id}",
      tags: ["Workspaces"],
      summary: "Update a workspace (owner or editor); owner_id transfers ownership (owner only)",
      security,
      request: { params: idParamSchema, ...body(updateWorkspaceBodySchema) },
      responses: {
        200: json(workspaceSchema, "The updated workspace"),
        400: err("Invalid field, or owner_id is not a member"),
        403: err("Not a member, not owner/editor, or a non-owner attempted a transfer"),
        404: err("Workspace missing or soft-deleted (checked after the role)"),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const workspace = await store.update(id, caller.user_id, c.req.valid("json"));
      return c.json(workspace, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/workspaces/{id}",
      tags: ["Workspaces"],
      summary: "Soft-delete a workspace (owner only)",
      security,
      request: { params: idParamSchema },
      responses: {
        204: { description: "Deleted" },
        403: err("Not the owner (members and non-members alike)"),
        404: err("Workspace missing or already deleted"),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      await store.deleteByOwner(id, caller.user_id);
      return c.body(null, 204);
    },
  );

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
      // Checked here first so a refused caller costs no user lookup; the store checks again
      // inside its atomic commit.
      const view = await store.membership(id, caller.user_id);
      requireOneOf(requireRole(view.membership), ["owner", "editor"], MESSAGES.addRole);
      requireActive(view.workspace);
      const memberRole = role as "editor" | "viewer";
      // An account that was never confirmed does not own its email (CONTRACT 11): it gets a
      // pending invite, which becomes a membership of whoever confirms the email.
      const user = await auth.getUserByEmail(email);
      if (user?.confirmed) {
        const membership = await store.addMember({
          wsId: id,
          callerId: caller.user_id,
          userId: user.user_id,
          email,
          role: memberRole,
        });
        return c.json(membership, 201);
      }
      await store.invite({ wsId: id, callerId: caller.user_id, email, role: memberRole });
      return c.json({ status: "invited" as const, email, role: memberRole }, 201);
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
        403: err("Not a workspace member"),
        404: err("Workspace soft-deleted"),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const view = await store.membership(id, caller.user_id);
      requireActiveMember(view.workspace, view.membership);
      const members = await store.listMembers(id);
      const profiles = await auth.getUsers(members.map((m) => m.user_id));
      return c.json({
        members: members.map((m) => {
          const p = profiles.get(m.user_id);
          return { ...m, email: p?.email ?? "", name: p?.name ?? "" };
        }),
      }, 200);
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
        403: err("Not a workspace member"),
        404: err("Workspace missing or soft-deleted (checked after membership)"),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const invites = await store.listInvitesForMember(id, caller.user_id);
      return c.json({
        invites: invites.map((i) => ({
          workspace_id: i.workspace_id,
          email: i.email,
          role: i.role,
          ...(i.created_at ? { invited_at: i.created_at } : {}),
          ...(i.invited_by ? { invited_by: i.invited_by } : {}),
        })),
      }, 200);
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
      await store.cancelInvite(id, caller.user_id, email);
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

/** The audience and language lists (spec: Audiences and languages). */
export function mountListRoutes(app: ServiceApp, { store }: RouteDeps): void {
  for (const kind of ["audiences", "languages"] as const) {
    const tag = kind === "audiences" ? "Audiences" : "Languages";
    app.openapi(
      createRoute({
        method: "get",
        path: `/api/${kind}`,
        tags: [tag],
        summary: `The workspace's ${kind}: the saved list, or the defaults (any member)`,
        security,
        request: { query: workspaceQuerySchema },
        responses: {
          200: json(itemsResponseSchema, `The ${kind}`),
          400: err("workspaceId missing or empty"),
          403: err("Not a workspace member"),
          404: err("Workspace soft-deleted"),
        },
      }),
      async (c) => {
        const caller = requireCaller(c);
        const { workspaceId } = c.req.valid("query");
        return c.json({ items: await store.getList(kind, workspaceId, caller.user_id) }, 200);
      },
    );
  }

  app.openapi(
    createRoute({
      method: "put",
      path: "/api/audiences",
      tags: ["Audiences"],
      summary: "Replace the workspace's audiences (any member)",
      security,
      request: body(putAudiencesBodySchema),
      responses: {
        200: json(itemsResponseSchema, "What was saved"),
        400: err("workspace_id missing or empty, or the list invalid"),
        403: err("Not a workspace member"),
        404: err("Workspace soft-deleted"),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const input = c.req.valid("json");
      const items = await store.saveList(
        "audiences",
        input.workspace_id,
        caller.user_id,
        input.audiences,
      );
      return c.json({ items }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/api/languages",
      tags: ["Languages"],
      summary: "Replace the workspace's languages (any member)",
      security,
      request: body(putLanguagesBodySchema),
      responses: {
        200: json(itemsResponseSchema, "What was saved"),
        400: err("workspace_id missing or empty, or the list invalid"),
        403: err("Not a workspace member"),
        404: err("Workspace soft-deleted"),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const input = c.req.valid("json");
      const items = await store.saveList(
        "languages",
        input.workspace_id,
        caller.user_id,
        input.languages,
      );
      return c.json({ items }, 200);
    },
  );
}
