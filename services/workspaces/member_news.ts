import type { AuthClient } from "../auth/client.ts";
import type { Logger } from "../../shared/log.ts";
import type { WorkspacesStore } from "./store.ts";

/**
 * Tells a user they became a member of a workspace: a `member_added` DM, whether someone added
 * their account or an invite for their email became a membership when they confirmed it. A
 * failure costs the DM, never the request that made the membership.
 */
export class MemberNews {
  constructor(
    private readonly store: WorkspacesStore,
    private readonly auth: AuthClient,
    private readonly publicUrl = "",
    private readonly logger?: Logger,
  ) {}

  /** `actor`: who added them, by name, or by user id (their name is looked up). */
  async added(
    workspaceId: string,
    userId: string,
    role: string,
    actor: { name: string } | { userId: string },
  ): Promise<void> {
    try {
      const [ws, actorName] = await Promise.all([
        this.store.getWorkspace(workspaceId),
        "name" in actor ? actor.name : this.auth.getUser(actor.userId).then((u) => u?.name ?? ""),
      ]);
      await this.auth.sendDm(userId, "member_added", {
        workspace_id: workspaceId,
        workspace_name: ws?.name,
        actor_name: actorName || undefined,
        role,
        url: `${this.publicUrl}/workspaces/${workspaceId}`,
      });
    } catch (err) {
      this.logger?.warn("could not send member_added", { error: String(err) });
    }
  }
}
