import { z } from "zod";
import { AppError } from "../../shared/http/app_error.ts";
import { InternalClient } from "../../shared/internal_client.ts";
import type { ServiceDirectory } from "../../shared/service_directory.ts";

export const membershipSchema = z.object({
  workspace_id: z.string(),
  user_id: z.string(),
  /** null when the user is not a member (or the workspace does not exist) */
  role: z.enum(["owner", "editor", "viewer"]).nullable(),
  /** null when the workspace does not exist */
  workspace_status: z.enum(["active", "deleted"]).nullable(),
  owner_id: z.string().nullable(),
});
export type Membership = z.infer<typeof membershipSchema>;
export type WorkspaceRole = "owner" | "editor" | "viewer";

/** A workspace record as the workspaces service stores it (admin list). */
export const workspaceRecordSchema = z.object({
  workspace_id: z.string(),
  name: z.string(),
  description: z.string(),
  owner_id: z.string(),
  status: z.enum(["active", "deleted"]),
  default_prompt_id: z.string().nullable(),
  publishing_slots: z.array(z.string()),
  approval_required: z.boolean().default(false),
  timezone: z.string().default("UTC"),
  created_at: z.string(),
  updated_at: z.string(),
  deleted_at: z.string().optional(),
});
export type WorkspaceRecord = z.infer<typeof workspaceRecordSchema>;

const statusChangeSchema = z.object({
  workspace_id: z.string(),
  status: z.enum(["active", "deleted"]),
});

/** The typed client other services use to ask the workspaces service about memberships. */
export class WorkspacesClient {
  readonly #client: InternalClient;

  constructor(directory: ServiceDirectory, secret: string) {
    this.#client = new InternalClient("workspaces", directory.handler("workspaces"), secret);
  }

  /** The user's role in the workspace and the workspace's status (never null itself). */
  async membership(workspaceId: string, userId: string): Promise<Membership> {
    const found = await this.#client.json(
      membershipSchema,
      "GET",
      `/internal/workspaces/${encodeURIComponent(workspaceId)}/members/${
        encodeURIComponent(userId)
      }`,
    );
    return found ??
      {
        workspace_id: workspaceId,
        user_id: userId,
        role: null,
        workspace_status: null,
        owner_id: null,
      };
  }

  /**
   * The check every workspace-scoped route makes first: 403 `Not a workspace member` for a
   * non-member or an unknown workspace; 404 when the workspace is soft-deleted.
   */
  async requireMember(workspaceId: string, userId: string): Promise<
    Membership & {
      role: WorkspaceRole;
    }
  > {
    const m = await this.membership(workspaceId, userId);
    if (!m.role) throw new AppError(403, "Not a workspace member");
    if (m.workspace_status !== "active") throw new AppError(404, "Workspace not found");
    return m as Membership & { role: WorkspaceRole };
  }

  /** Turns pending invites for `email` into memberships of `userId` (called on confirm). */
  async acceptInvites(email: string, userId: string): Promise<void> {
    const res = await this.#client.request("POST", "/internal/invites/accept", {
      body: { email, user_id: userId },
    });
    if (!res.ok) {
      throw new AppError(502, `The workspaces service answered ${res.status} to accept invites`);
    }
    await res.body?.cancel();
  }

  /** Every workspace the user belongs to, with their role (MCP's list_workspaces). */
  async listForUser(userId: string) {
    return await this.#client.json(
      z.object({
        workspaces: z.array(z.object({
          workspace_id: z.string(),
          name: z.string(),
          member_role: z.enum(["owner", "editor", "viewer"]),
        })),
      }),
      "GET",
      `/internal/users/${encodeURIComponent(userId)}/workspaces`,
    ) ?? { workspaces: [] };
  }

  /** One workspace's record (publishing settings included), or null when there is none. */
  getWorkspace(workspaceId: string): Promise<WorkspaceRecord | null> {
    return this.#client.json(
      workspaceRecordSchema,
      "GET",
      `/internal/workspaces/${encodeURIComponent(workspaceId)}`,
    );
  }

  /** Every workspace, soft-deleted ones included (admin list). */
  async listAll(): Promise<WorkspaceRecord[]> {
    const found = await this.#client.json(
      z.object({ workspaces: z.array(workspaceRecordSchema) }),
      "GET",
      "/internal/workspaces",
    );
    return found?.workspaces ?? [];
  }

  /** Admin soft delete: `{workspace_id, status: "deleted"}`; AppError 400 already deleted, 404. */
  softDelete(workspaceId: string): Promise<z.infer<typeof statusChangeSchema>> {
    return this.#statusChange(workspaceId, "soft-delete");
  }

  /** Admin recover: `{workspace_id, status: "active"}`; AppError 400 not deleted, 404. */
  recover(workspaceId: string): Promise<z.infer<typeof statusChangeSchema>> {
    return this.#statusChange(workspaceId, "recover");
  }

  async #statusChange(workspaceId: string, action: "soft-delete" | "recover") {
    const res = await this.#client.request(
      "POST",
      `/internal/workspaces/${encodeURIComponent(workspaceId)}/${action}`,
    );
    const body = await res.json().catch(() => null);
    if (res.status === 400 || res.status === 404) {
      const message = typeof body?.error === "string" ? body.error : "Workspace not found";
      throw new AppError(res.status, message);
    }
    const parsed = statusChangeSchema.safeParse(body);
    if (!res.ok || !parsed.success) {
      throw new AppError(502, `The workspaces service answered ${res.status} to ${action}`);
    }
    return parsed.data;
  }

  /** The maintained counters: `total_workspaces` counts every workspace, deleted included. */
  async stats(): Promise<{ total_workspaces: number }> {
    return await this.#client.json(
      z.object({ total_workspaces: z.number().int() }),
      "GET",
      "/internal/stats",
    ) ?? { total_workspaces: 0 };
  }
}
