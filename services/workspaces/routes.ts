import type { MemberNews } from "./member_news.ts";
import { createRoute } from "@hono/zod-openapi";
import { bearer as security, body, err, json } from "../../shared/http/openapi.ts";
import { requireCaller, type ServiceApp } from "../../shared/http/service_app.ts";
import type { AuthClient } from "../auth/client.ts";
import type { InviteClaims } from "./invite_claims.ts";
import { requireActiveMember } from "./rules.ts";
import {
  createWorkspaceBodySchema,
  idParamSchema,
  updateWorkspaceBodySchema,
  workspaceDetailSchema,
  workspaceListSchema,
  workspaceSchema,
} from "./schemas.ts";
import type { WorkspacesStore } from "./store.ts";
import { MESSAGES } from "../../shared/http/messages.ts";

export interface RouteDeps {
  store: WorkspacesStore;
  auth: AuthClient;
  claims: InviteClaims;
  /** the `member_added` DMs */
  news: MemberNews;
}

/** The public workspace routes (spec: Workspaces); members and invites are in member_routes.ts. */
export function mountWorkspaceRoutes(app: ServiceApp, { store }: RouteDeps): void {
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
        403: err(MESSAGES.notMember),
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
}
