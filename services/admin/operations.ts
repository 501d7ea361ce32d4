import type { AssetObject, AssetStore } from "../../shared/assets/store.ts";
import type { ServiceName } from "../../shared/config.ts";
import { AppError, badRequest, notFound } from "../../shared/http/app_error.ts";
import type { Logger } from "../../shared/log.ts";
import { toIso } from "../../shared/time.ts";
import type { AuthClient, UserProfile } from "../auth/client.ts";
import type { IdeasClient } from "../ideas/client.ts";
import type { PostsClient } from "../posts/client.ts";
import type { WorkspacesClient } from "../workspaces/client.ts";
import { withHeapWatch } from "../../shared/runtime/heap_watch.ts";
import { writeBackup } from "./backups.ts";
import type { KeyspaceClient } from "./peers.ts";
import {
  ADMIN_MESSAGES,
  type AdminUser,
  type AdminWorkspace,
  BACKUP_PREFIX,
  backupKeyProblem,
  type BackupListItem,
  type BackupRecord,
  backupTimestamp,
  type CreatedBackup,
  type EnabledSet,
  keyOfTimestamp,
  type Metrics,
  type RestoreJob,
  type RestoreStarted,
  type RoleSet,
  timeOfTimestamp,
  timestampOfKey,
  type UploadUrl,
  type UserDecided,
  type WorkspaceStatus,
} from "./schemas.ts";
import type { AdminStore } from "./store.ts";

/** Lifetime of backup download and upload URLs (spec: 1 hour). */
const URL_TTL_SECONDS = 3600;

/** How often the asset store is swept for backups put there another way. */
export const BACKUP_SWEEP_MS = 10 * 60 * 1000;

export interface AdminPeers {
  auth: AuthClient;
  workspaces: WorkspacesClient;
  posts: PostsClient;
  ideas: IdeasClient;
  /** Whether a service is part of this deployment (one that is not has figures of 0) */
  has: (name: ServiceName) => boolean;
}

/** Users, workspaces and metrics: the other services' records, seen and changed as an admin. */
export class AdminOperations {
  constructor(private readonly peers: AdminPeers) {}

  /** Every user; `pending` or `approved` keeps those, any other filter keeps all. */
  async listUsers(status?: string): Promise<AdminUser[]> {
    let users = await this.peers.auth.listUsers();
    if (status === "pending" || status === "approved") {
      users = users.filter((u) => u.status === status);
    }
    return users.map(adminUser);
  }

  /**
   * One page of the users, oldest first, after the user `after`; `pending` or `approved` keeps
   * those, any other filter keeps all.
   */
  async listUsersPage(
    status: string | undefined,
    page: { limit: number; after?: string },
  ): Promise<{ users: AdminUser[]; next: string | null }> {
    const found = await this.peers.auth.listUsersPage({
      ...page,
      status: status === "pending" || status === "approved" ? status : undefined,
    });
    return { users: found.users.map(adminUser), next: found.next_after };
  }

  /** Approve (approved, enabled, `user_approved` DM) or reject (disabled, no message). */
  async decide(userId: string, decision: "approve" | "reject"): Promise<UserDecided> {
    const { auth } = this.peers;
    const user = userFound(
      decision === "approve" ? await auth.approve(userId) : await auth.reject(userId),
    );
    return { status: decision === "approve" ? "approved" : "rejected", user_id: user.user_id };
  }

  async setRole(userId: string, role: "admin" | "member"): Promise<RoleSet> {
    const user = userFound(await this.peers.auth.setRole(userId, role));
    return { status: "updated", user_id: user.user_id, role: user.role };
  }

  async setEnabled(userId: string, enabled: boolean): Promise<EnabledSet> {
    const user = userFound(await this.peers.auth.setEnabled(userId, enabled));
    return { status: "updated", user_id: user.user_id, enabled };
  }

  /** Every workspace, soft-deleted ones included, with its owner's name and email. */
  async listWorkspaces(): Promise<AdminWorkspace[]> {
    const all = await this.peers.workspaces.listAll();
    const owners = await this.peers.auth.getUsers(all.map((w) => w.owner_id));
    return all.map((w) => ({
      ...w,
      owner_name: owners.get(w.owner_id)?.name ?? "",
      owner_email: owners.get(w.owner_id)?.email ?? "",
    }));
  }

  /** `active` recovers a soft-deleted workspace, `deleted` soft-deletes one. */
  async setWorkspaceStatus(
    workspaceId: string,
    status: WorkspaceStatus["status"],
  ): Promise<WorkspaceStatus> {
    const { workspaces } = this.peers;
    const result = status === "active"
      ? await workspaces.recover(workspaceId)
      : await workspaces.softDelete(workspaceId);
    return { workspace_id: result.workspace_id, status };
  }

  /** The platform figures, from the counters the owning services keep. */
  async metrics(): Promise<Metrics> {
    const { auth, workspaces, posts, ideas, has } = this.peers;
    const [users, ws, postStats, totalIdeas] = await Promise.all([
      auth.stats(),
      workspaces.stats(),
      has("posts") ? posts.stats() : { total_posts: 0, posts_published_last_30_days: 0 },
      has("ideas") ? ideas.totalIdeas() : 0,
    ]);
    return {
      total_users: users.total_users,
      pending_users: users.pending_users,
      total_workspaces: ws.total_workspaces,
      total_posts: postStats.total_posts,
      total_ideas: totalIdeas,
      posts_published_last_30_days: postStats.posts_published_last_30_days,
      active_users_last_7_days: users.active_users_last_7_days,
    };
  }
}

function adminUser(u: UserProfile): AdminUser {
  return {
    user_id: u.user_id,
    email: u.email,
    name: u.name,
    role: u.role,
    status: u.status,
    enabled: u.enabled,
    created_at: u.created_at,
    updated_at: u.updated_at,
    last_login: u.last_login,
  };
}

function userFound<T>(found: T | null): T {
  if (!found) throw notFound(ADMIN_MESSAGES.userNotFound);
  return found;
}

export interface BackupOperationDeps {
  store: AdminStore;
  /** null when ASSETS_URL is empty: every backup operation answers 500 */
  assets: AssetStore | null;
  keyspaces: KeyspaceClient;
  tmpDir: string;
  logger: Logger;
}

/** A backup object in the asset store, with its record (or the one it gets when first seen). */
interface Catalogued {
  object: AssetObject;
  record: BackupRecord;
  recorded: boolean;
}

/**
 * Backups and restores. The asset store's `_backups/` objects are the list; the admin KV keeps
 * what an object does not say (timestamp, creation time). A key is taken by recording it first
 * (`#reserve`), so a backup and an upload URL never share one. Reading the list writes nothing:
 * an object recorded nowhere (put there another way) is dated by its name, and the periodic
 * `recordFound` sweep records it so the date of one without a dated name stays put.
 */
export class BackupOperations {
  constructor(private readonly deps: BackupOperationDeps) {}

  /** Writes a backup of everything under a fresh key (synchronous) and records what it holds. */
  async create(): Promise<CreatedBackup> {
    const { store, keyspaces, tmpDir, logger } = this.deps;
    const assets = this.#assets();
    const reserved = await this.#reserve("");
    let written;
    try {
      written = await withHeapWatch(() => writeBackup({ assets, keyspaces, tmpDir }, reserved));
    } catch (err) {
      await store.removeBackup(reserved.key);
      throw err;
    }
    const created: CreatedBackup = {
      timestamp: reserved.timestamp,
      key: reserved.key,
      item_count: written.item_count,
      asset_count: written.asset_count,
      size_bytes: written.size_bytes,
      created_at: reserved.created_at,
    };
    await store.saveBackup({ ...created });
    logger.info("backup created", { ...created });
    return created;
  }

  /** The backups in the asset store, newest first by creation time. */
  async list(): Promise<BackupListItem[]> {
    const backups = (await this.#catalogue()).map(({ object, record }) => ({
      key: object.key,
      timestamp: record.timestamp,
      size_bytes: object.size,
      created_at: record.created_at,
    }));
    return backups.sort((a, b) =>
      a.created_at === b.created_at
        ? (a.key < b.key ? 1 : -1)
        : (Date.parse(b.created_at) - Date.parse(a.created_at))
    );
  }

  /** Records the backup objects not recorded yet; answers how many. */
  async recordFound(): Promise<number> {
    if (!this.deps.assets) return 0;
    let recorded = 0;
    for (const found of await this.#catalogue()) {
      if (!found.recorded && await this.deps.store.addBackup(found.record)) recorded++;
    }
    return recorded;
  }

  /** A presigned GET URL (the object's existence is not checked: spec). */
  async downloadUrl(key: unknown): Promise<string> {
    const checked = requireBackupKey(key);
    return await this.#assets().presignGet(checked, URL_TTL_SECONDS);
  }

  /** A fresh `_backups/upload-<timestamp>.zip` key and a presigned PUT URL for it. */
  async uploadUrl(): Promise<UploadUrl> {
    const assets = this.#assets();
    const { key } = await this.#reserve("upload-");
    return { url: await assets.presignPut(key, "application/zip", URL_TTL_SECONDS), key };
  }

  /** Queues a restore job (it runs on the admin queue). */
  async startRestore(key: unknown): Promise<RestoreStarted> {
    const checked = requireBackupKey(key);
    this.#assets();
    const job = await this.deps.store.createRestore(checked);
    return {
      started: true,
      message: `Restore of ${checked} started; follow it at /api/admin/restores/${job.job_id}`,
      job_id: job.job_id,
    };
  }

  async restoreJob(jobId: string): Promise<RestoreJob> {
    const job = jobId.length <= 100 ? await this.deps.store.getRestore(jobId) : null;
    if (!job) throw notFound(ADMIN_MESSAGES.restoreNotFound);
    return job;
  }

  #assets(): AssetStore {
    if (!this.deps.assets) throw new AppError(500, ADMIN_MESSAGES.assetsNotConfigured);
    return this.deps.assets;
  }

  /** Takes the first free key from now on, 1 ms at a time: no object there, no record. */
  async #reserve(prefix: "" | "upload-"): Promise<BackupRecord> {
    const assets = this.#assets();
    for (let date = new Date();; date = new Date(date.getTime() + 1)) {
      const timestamp = prefix + backupTimestamp(date);
      const record: BackupRecord = {
        key: keyOfTimestamp(timestamp),
        timestamp,
        created_at: toIso(date),
        size_bytes: null,
        item_count: null,
        asset_count: null,
      };
      if (!(await assets.exists(record.key)) && (await this.deps.store.addBackup(record))) {
        return record;
      }
    }
  }

  async #catalogue(): Promise<Catalogued[]> {
    const [objects, records] = await Promise.all([
      this.#assets().list(BACKUP_PREFIX),
      this.deps.store.listBackups(),
    ]);
    const now = new Date();
    return objects.filter((o) => backupKeyProblem(o.key) === null).map((object) => {
      const record = records.get(object.key);
      return record ? { object, record, recorded: true } : {
        object,
        record: firstSeen(object, now),
        recorded: false,
      };
    });
  }
}

/** The record of an object found in the store: dated by its name when it can be, else `now`. */
function firstSeen(object: AssetObject, now: Date): BackupRecord {
  const timestamp = timestampOfKey(object.key);
  return {
    key: object.key,
    timestamp,
    created_at: toIso(timeOfTimestamp(timestamp) ?? now),
    size_bytes: object.size,
    item_count: null,
    asset_count: null,
  };
}

function requireBackupKey(key: unknown): string {
  const problem = backupKeyProblem(key);
  if (problem) throw badRequest(problem);
  return key as string;
}
