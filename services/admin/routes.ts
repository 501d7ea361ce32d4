import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { AssetStore } from "../../shared/assets/store.ts";
import type { ServiceName } from "../../shared/config.ts";
import { AppError } from "../../shared/http/app_error.ts";
import { requireCaller, type ServiceApp, type ServiceEnv } from "../../shared/http/service_app.ts";
import type { Logger } from "../../shared/log.ts";
import { toIso } from "../../shared/time.ts";
import type { AuthClient, UserProfile } from "../auth/client.ts";
import type { IdeasClient } from "../ideas/client.ts";
import type { PostsClient } from "../posts/client.ts";
import type { WorkspacesClient } from "../workspaces/client.ts";
import { BACKUP_PREFIX, createBackup } from "./backups.ts";
import type { KeyspaceClient } from "./peers.ts";
import {
  ADMIN_MESSAGES,
  adminUserSchema,
  adminWorkspaceSchema,
  backupKeyProblem,
  backupKeyQuerySchema,
  backupListSchema,
  type BackupRecord,
  backupTimestamp,
  createdBackupSchema,
  enabledBodySchema,
  errorSchema,
  metricsSchema,
  restoreBodySchema,
  restoreJobParamSchema,
  restoreJobSchema,
  roleBodySchema,
  timeOfTimestamp,
  timestampOfKey,
  userIdParamSchema,
  userListQuerySchema,
  workspaceIdParamSchema,
} from "./schemas.ts";
import type { AdminStore } from "./store.ts";

export interface AdminRouteDeps {
  store: AdminStore;
  auth: AuthClient;
  workspaces: WorkspacesClient;
  posts: PostsClient;
  ideas: IdeasClient;
  /** Whether a service is part of this deployment (one that is not has figures of 0) */
  has: (name: ServiceName) => boolean;
  keyspaces: KeyspaceClient;
  assets: AssetStore | null;
  tmpDir: string;
  logger: Logger;
}

/** Lifetime of backup download and upload URLs (spec: 1 hour). */
const URL_TTL_SECONDS = 3600;

const security = [{ bearer: [] }];
const tags = ["Admin"];
const json = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { "application/json": { schema } },
  description,
});
const err = (description: string) => json(errorSchema, description);
const body = <T extends z.ZodType>(schema: T) => ({
  body: { content: { "application/json": { schema } }, required: true },
});
const forbidden = err("Admin access required");

/** Every `/api/admin/*` call: the caller's `custom:role` claim must be `admin` (403 first). */
export function adminGuard(): MiddlewareHandler<ServiceEnv> {
  return async (c, next) => {
    const caller = requireCaller(c);
    if (caller.role !== "admin") throw new AppError(403, ADMIN_MESSAGES.adminRequired);
    await next();
  };
}

function adminUser(u: UserProfile): z.infer<typeof adminUserSchema> {
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

const userFound = <T>(found: T | null): T => {
  if (!found) throw new AppError(404, ADMIN_MESSAGES.userNotFound);
  return found;
};

function requireAssets(assets: AssetStore | null): AssetStore {
  if (!assets) throw new AppError(500, ADMIN_MESSAGES.assetsNotConfigured);
  return assets;
}

function requireBackupKey(key: unknown): string {
  const problem = backupKeyProblem(key);
  if (problem) throw new AppError(400, problem);
  return key as string;
}

/** The spec's Admin routes. */
export function mountAdminRoutes(app: ServiceApp, deps: AdminRouteDeps): void {
  const { auth, workspaces, store } = deps;
  app.use("/api/admin/*", adminGuard());
  app.use("/api/admin", adminGuard());

  // ---------------------------------------------------------------- users

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/admin/users",
      tags,
      summary: "List users with their derived status and last login",
      security,
      request: { query: userListQuerySchema },
      responses: {
        200: json(z.object({ users: z.array(adminUserSchema) }), "The users"),
        403: forbidden,
      },
    }),
    async (c) => {
      const { status } = c.req.valid("query");
      let users = await auth.listUsers();
      if (status === "pending" || status === "approved") {
        users = users.filter((u) => u.status === status);
      }
      return c.json({ users: users.map(adminUser) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/admin/users/{id}/approve",
      tags,
      summary: "Approve a user: approved flag and claim, account enabled, user_approved DM",
      security,
      request: { params: userIdParamSchema },
      responses: {
        200: json(z.object({ status: z.literal("approved"), user_id: z.string() }), "Approved"),
        403: forbidden,
        404: err("User not found"),
      },
    }),
    async (c) => {
      const user = userFound(await auth.approve(c.req.valid("param").id));
      return c.json({ status: "approved" as const, user_id: user.user_id }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/admin/users/{id}/reject",
      tags,
      summary: "Reject a user: not approved, account disabled, no notification",
      security,
      request: { params: userIdParamSchema },
      responses: {
        200: json(z.object({ status: z.literal("rejected"), user_id: z.string() }), "Rejected"),
        403: forbidden,
        404: err("User not found"),
      },
    }),
    async (c) => {
      const user = userFound(await auth.reject(c.req.valid("param").id));
      return c.json({ status: "rejected" as const, user_id: user.user_id }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/api/admin/users/{id}/role",
      tags,
      summary: "Set a user's platform role (effective from their next token)",
      security,
      request: { params: userIdParamSchema, ...body(roleBodySchema) },
      responses: {
        200: json(
          z.object({
            status: z.literal("updated"),
            user_id: z.string(),
            role: z.enum(["admin", "member"]),
          }),
          "Updated",
        ),
        400: err("role missing or invalid"),
        403: forbidden,
        404: err("User not found"),
      },
    }),
    async (c) => {
      const { role } = c.req.valid("json");
      const user = userFound(await auth.setRole(c.req.valid("param").id, role));
      return c.json({ status: "updated" as const, user_id: user.user_id, role: user.role }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/api/admin/users/{id}/status",
      tags,
      summary: "Enable or disable an account (a disabled one can neither log in nor refresh)",
      security,
      request: { params: userIdParamSchema, ...body(enabledBodySchema) },
      responses: {
        200: json(
          z.object({ status: z.literal("updated"), user_id: z.string(), enabled: z.boolean() }),
          "Updated",
        ),
        400: err("enabled missing or null"),
        403: forbidden,
        404: err("User not found"),
      },
    }),
    async (c) => {
      const { enabled } = c.req.valid("json");
      const user = userFound(await auth.setEnabled(c.req.valid("param").id, enabled));
      return c.json({ status: "updated" as const, user_id: user.user_id, enabled }, 200);
    },
  );

  // ---------------------------------------------------------------- workspaces

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/admin/workspaces",
      tags,
      summary: "List every workspace, soft-deleted ones included, with its owner",
      security,
      responses: {
        200: json(z.object({ workspaces: z.array(adminWorkspaceSchema) }), "The workspaces"),
        403: forbidden,
      },
    }),
    async (c) => {
      const all = await workspaces.listAll();
      const owners = await auth.getUsers(all.map((w) => w.owner_id));
      return c.json({
        workspaces: all.map((w) => ({
          ...w,
          owner_name: owners.get(w.owner_id)?.name ?? "",
          owner_email: owners.get(w.owner_id)?.email ?? "",
        })),
      }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/admin/workspaces/{workspace_id}/recover",
      tags,
      summary: "Recover a soft-deleted workspace",
      security,
      request: { params: workspaceIdParamSchema },
      responses: {
        200: json(
          z.object({ workspace_id: z.string(), status: z.literal("active") }),
          "Recovered",
        ),
        400: err("Workspace is not deleted"),
        403: forbidden,
        404: err("Workspace not found"),
      },
    }),
    async (c) => {
      const result = await workspaces.recover(c.req.valid("param").workspace_id);
      return c.json({ workspace_id: result.workspace_id, status: "active" as const }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/admin/workspaces/{workspace_id}",
      tags,
      summary: "Soft-delete a workspace",
      security,
      request: { params: workspaceIdParamSchema },
      responses: {
        200: json(
          z.object({ workspace_id: z.string(), status: z.literal("deleted") }),
          "Deleted",
        ),
        400: err("Workspace is already deleted"),
        403: forbidden,
        404: err("Workspace not found"),
      },
    }),
    async (c) => {
      const result = await workspaces.softDelete(c.req.valid("param").workspace_id);
      return c.json({ workspace_id: result.workspace_id, status: "deleted" as const }, 200);
    },
  );

  // ---------------------------------------------------------------- metrics

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/admin/metrics",
      tags,
      summary: "Platform figures, from counters the owning services maintain",
      security,
      responses: { 200: json(metricsSchema, "The figures"), 403: forbidden },
    }),
    async (c) => {
      const [users, ws, posts, ideas] = await Promise.all([
        auth.stats(),
        workspaces.stats(),
        deps.has("posts")
          ? deps.posts.stats()
          : { total_posts: 0, posts_published_last_30_days: 0 },
        deps.has("ideas") ? deps.ideas.totalIdeas() : 0,
      ]);
      return c.json({
        total_users: users.total_users,
        pending_users: users.pending_users,
        total_workspaces: ws.total_workspaces,
        total_posts: posts.total_posts,
        total_ideas: ideas,
        posts_published_last_30_days: posts.posts_published_last_30_days,
        active_users_last_7_days: users.active_users_last_7_days,
      }, 200);
    },
  );

  // ---------------------------------------------------------------- backups

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/admin/backups",
      tags,
      summary: "Back up every service's data and every asset into one ZIP (synchronous)",
      security,
      responses: {
        201: json(createdBackupSchema, "The backup"),
        403: forbidden,
        500: err("Asset storage not configured, or the backup failed"),
      },
    }),
    async (c) => {
      const assets = requireAssets(deps.assets);
      const created = await createBackup({
        assets,
        keyspaces: deps.keyspaces,
        store,
        tmpDir: deps.tmpDir,
        logger: deps.logger,
      });
      return c.json(created, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/admin/backups",
      tags,
      summary: "List backups, newest first by creation time, imported ones included",
      security,
      responses: {
        200: json(backupListSchema, "The backups"),
        403: forbidden,
        500: err("Asset storage not configured"),
      },
    }),
    async (c) => {
      const assets = requireAssets(deps.assets);
      const [objects, records] = await Promise.all([
        assets.list(BACKUP_PREFIX),
        store.listBackups(),
      ]);
      const backups = [];
      for (const object of objects) {
        if (backupKeyProblem(object.key) !== null) continue;
        let record = records.get(object.key);
        if (!record) {
          // An object put there another way: recorded now, dated by its name when it can be.
          const timestamp = timestampOfKey(object.key);
          record = {
            key: object.key,
            timestamp,
            created_at: toIso(timeOfTimestamp(timestamp) ?? new Date()),
            size_bytes: object.size,
            item_count: null,
            asset_count: null,
          } satisfies BackupRecord;
          await store.addBackup(record);
        }
        backups.push({
          key: object.key,
          timestamp: record.timestamp,
          size_bytes: object.size,
          created_at: record.created_at,
        });
      }
      backups.sort((a, b) =>
        a.created_at === b.created_at
          ? (a.key < b.key ? 1 : -1)
          : (Date.parse(b.created_at) - Date.parse(a.created_at))
      );
      return c.json({ backups }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/admin/backups/download",
      tags,
      summary: "A presigned GET URL for a backup (valid 1 hour)",
      security,
      request: { query: backupKeyQuerySchema },
      responses: {
        200: json(z.object({ url: z.string() }), "The URL"),
        400: err("key missing or not _backups/*.zip"),
        403: forbidden,
        500: err("Asset storage not configured"),
      },
    }),
    async (c) => {
      const key = requireBackupKey(c.req.valid("query").key);
      const assets = requireAssets(deps.assets);
      return c.json({ url: await assets.presignGet(key, URL_TTL_SECONDS) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/admin/backups/upload-url",
      tags,
      summary: "A presigned PUT URL (Content-Type: application/zip) for importing a backup",
      security,
      responses: {
        200: json(z.object({ url: z.string(), key: z.string() }), "The URL and key"),
        403: forbidden,
        500: err("Asset storage not configured"),
      },
    }),
    async (c) => {
      const assets = requireAssets(deps.assets);
      let date = new Date();
      let timestamp = `upload-${backupTimestamp(date)}`;
      while (
        !(await store.addBackup({
          key: `${BACKUP_PREFIX}${timestamp}.zip`,
          timestamp,
          created_at: toIso(date),
          size_bytes: null,
          item_count: null,
          asset_count: null,
        }))
      ) {
        date = new Date(date.getTime() + 1);
        timestamp = `upload-${backupTimestamp(date)}`;
      }
      const key = `${BACKUP_PREFIX}${timestamp}.zip`;
      const url = await assets.presignPut(key, "application/zip", URL_TTL_SECONDS);
      return c.json({ url, key }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/admin/backups/restore",
      tags,
      summary: "Start restoring a backup (a job; follow it at /api/admin/restores/{job_id})",
      security,
      request: body(restoreBodySchema),
      responses: {
        200: json(
          z.object({ started: z.literal(true), message: z.string(), job_id: z.string() }),
          "The job was queued",
        ),
        400: err("key missing, empty or not _backups/*.zip"),
        403: forbidden,
        500: err("Asset storage not configured"),
      },
    }),
    async (c) => {
      const key = requireBackupKey(c.req.valid("json").key);
      const assets = requireAssets(deps.assets);
      if (!(await store.getBackup(key))) {
        const timestamp = timestampOfKey(key);
        const object = (await assets.list(key)).find((o) => o.key === key);
        if (object) {
          await store.addBackup({
            key,
            timestamp,
            created_at: toIso(timeOfTimestamp(timestamp) ?? new Date()),
            size_bytes: object.size,
            item_count: null,
            asset_count: null,
          });
        }
      }
      const job = await store.createRestore(key);
      return c.json({
        started: true as const,
        message: `Restore of ${key} started; follow it at /api/admin/restores/${job.job_id}`,
        job_id: job.job_id,
      }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/admin/restores/{job_id}",
      tags,
      summary: "A restore job's status",
      security,
      request: { params: restoreJobParamSchema },
      responses: {
        200: json(restoreJobSchema, "The job"),
        403: forbidden,
        404: err("Restore job not found"),
      },
    }),
    async (c) => {
      const { job_id } = c.req.valid("param");
      const job = job_id.length <= 100 ? await store.getRestore(job_id) : null;
      if (!job) throw new AppError(404, ADMIN_MESSAGES.restoreNotFound);
      return c.json(job, 200);
    },
  );
}
