import { z } from "zod";
import { AppError } from "../../shared/http/app_error.ts";
import { InternalClient } from "../../shared/service/internal_client.ts";
import type { ServiceDirectory } from "../../shared/service/service_directory.ts";
import {
  membershipAnswerSchema,
  type Workspace,
  type WorkspaceRole,
  workspaceRoleSchema,
  workspaceSchema,
} from "./schemas.ts";
import { MESSAGES } from "../../shared/http/messages.ts";

export type Membership = z.infer<typeof membershipAnswerSchema>;
export type { Workspace, WorkspaceRole };

/** A workspace with the user's role in it (MCP's list_workspaces). */
const userWorkspacesSchema = z.object({
  workspaces: z.array(z.object({
    workspace_id: z.string(),
    name: z.string(),
    member_role: workspaceRoleSchema,
  })),
});

/**
 * The admin list's workspace: the workspaces service's record, its review and publishing fields
 * documented with the defaults the store reads an older record with.
 */
export const workspaceRecordSchema = z.object({
  ...workspaceSchema.shape,
  approval_required: workspaceSchema.shape.approval_required.default(false),
  approvals_required: workspaceSchema.shape.approvals_required.default(1),
  timezone: workspaceSchema.shape.timezone.default("UTC"),
});

const statusChangeSchema = workspaceSchema.pick({ workspace_id: true, status: true });
type StatusChange = z.infer<typeof statusChangeSchema>;

/** The typed client other services use to ask the workspaces service about memberships. */
export class WorkspacesClient {
  readonly #client: InternalClient;

  constructor(directory: ServiceDirectory, secret: string) {
    this.#client = new InternalClient("workspaces", directory.handler("workspaces"), secret);
  }

  /** The user's role in the workspace and the workspace's status (never null itself). */
  async membership(workspaceId: string, userId: string): Promise<Membership> {
    const found = await this.#client.json(
      membershipAnswerSchema,
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
    if (!m.role) throw new AppError(403, MESSAGES.notMember);
    if (m.workspace_status !== "active") throw new AppError(404, "Workspace not found");
    return m as Membership & { role: WorkspaceRole };
  }

  /**
   * Turns pending invites for `email` into memberships of `userId` at once (the service also
   * claims them itself when the account next shows up).
   */
  async acceptInvites(email: string, userId: string): Promise<void> {
    await this.#client.send("POST", "/internal/invites/accept", {
      body: { email, user_id: userId },
    });
  }

  /** Every workspace the user belongs to, with their role (MCP's list_workspaces). */
  async listForUser(userId: string) {
    return await this.#client.json(
      userWorkspacesSchema,
      "GET",
      `/internal/users/${encodeURIComponent(userId)}/workspaces`,
    ) ?? { workspaces: [] };
  }

  /** One workspace's record (publishing settings included), or null when there is none. */
  getWorkspace(workspaceId: string): Promise<Workspace | null> {
    return this.#client.json(
      workspaceSchema,
      "GET",
      `/internal/workspaces/${encodeURIComponent(workspaceId)}`,
    );
  }

  /** Every workspace, soft-deleted ones included (admin list). */
  async listAll(): Promise<Workspace[]> {
    const found = await this.#client.json(
      z.object({ workspaces: z.array(workspaceSchema) }),
      "GET",
      "/internal/workspaces",
    );
    return found?.workspaces ?? [];
  }

  /** Admin soft delete: `{workspace_id, status: "deleted"}`; AppError 400 already deleted, 404. */
  softDelete(workspaceId: string): Promise<StatusChange> {
    return this.#statusChange(workspaceId, "soft-delete");
  }

  /** Admin recover: `{workspace_id, status: "active"}`; AppError 400 not deleted, 404. */
  recover(workspaceId: string): Promise<StatusChange> {
    return this.#statusChange(workspaceId, "recover");
  }

  #statusChange(workspaceId: string, action: "soft-delete" | "recover"): Promise<StatusChange> {
    return this.#client.call(
      statusChangeSchema,
      "POST",
      `/internal/workspaces/${encodeURIComponent(workspaceId)}/${action}`,
      { passOn: [400, 404] },
    );
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
