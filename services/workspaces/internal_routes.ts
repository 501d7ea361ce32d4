import type { ServiceApp } from "../../shared/http/service_app.ts";
import { AppError } from "../../shared/http/app_error.ts";
import { internalBody } from "../../shared/http/internal_input.ts";
import { acceptInvitesBodySchema, MAX_ID_LENGTH } from "./schemas.ts";
import type { InviteClaims } from "./invite_claims.ts";
import type { WorkspacesStore } from "./store.ts";

/**
 * The peers-only API (never routed by the gateway, left out of the OpenAPI document): the
 * membership check every workspace-scoped service makes, invite acceptance, and the admin
 * service's workspace oversight.
 */
export function mountInternalRoutes(
  app: ServiceApp,
  store: WorkspacesStore,
  claims: InviteClaims,
): void {
  /** Always 200: `role` null for a non-member, `workspace_status` null for no workspace. */
  app.get("/internal/workspaces/:workspaceId/members/:userId", async (c) => {
    const workspaceId = c.req.param("workspaceId");
    const userId = c.req.param("userId");
    // An id longer than any key we write cannot name a workspace or a member.
    if (workspaceId.length > MAX_ID_LENGTH || userId.length > MAX_ID_LENGTH) {
      return c.json({
        workspace_id: workspaceId,
        user_id: userId,
        role: null,
        workspace_status: null,
        owner_id: null,
      });
    }
    let view = await store.membership(workspaceId, userId);
    // A member's check costs one read; only a missing membership looks for an invite to claim.
    if (view.workspace && !view.membership) {
      await claims.forUser(userId);
      view = await store.membership(workspaceId, userId);
    }
    return c.json({
      workspace_id: workspaceId,
      user_id: userId,
      role: view.membership?.role ?? null,
      workspace_status: view.workspace?.status ?? null,
      owner_id: view.workspace?.owner_id ?? null,
    });
  });

  app.post("/internal/invites/accept", async (c) => {
    const { email, user_id } = await internalBody(c, acceptInvitesBodySchema);
    await claims.accept(email, user_id);
    return c.body(null, 204);
  });

  app.get("/internal/users/:userId/workspaces", async (c) => {
    const userId = c.req.param("userId");
    if (userId.length <= MAX_ID_LENGTH) await claims.forUser(userId);
    const found = userId.length > MAX_ID_LENGTH ? [] : await store.listForUser(userId);
    return c.json({
      workspaces: found.map(({ workspace, role }) => ({
        workspace_id: workspace.workspace_id,
        name: workspace.name,
        member_role: role,
      })),
    });
  });

  app.get("/internal/workspaces", async (c) => c.json({ workspaces: await store.listAll() }));

  /** One workspace record (with the review and publishing defaults); 404 when there is none. */
  app.get("/internal/workspaces/:id", async (c) => {
    const workspace = await store.getWorkspace(validId(c.req.param("id")));
    if (!workspace) throw new AppError(404, "Workspace not found");
    return c.json(workspace);
  });

  app.post("/internal/workspaces/:id/soft-delete", async (c) => {
    const workspace = await store.softDelete(validId(c.req.param("id")));
    return c.json({ workspace_id: workspace.workspace_id, status: workspace.status });
  });

  app.post("/internal/workspaces/:id/recover", async (c) => {
    const workspace = await store.recover(validId(c.req.param("id")));
    return c.json({ workspace_id: workspace.workspace_id, status: workspace.status });
  });

  app.get("/internal/stats", async (c) => c.json(await store.stats()));
}

/** An over-long id names no workspace: 404, as for any unknown one. */
function validId(id: string): string {
  if (id.length > MAX_ID_LENGTH) throw new AppError(404, "Workspace not found");
  return id;
}
