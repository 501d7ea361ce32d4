import { z } from "@hono/zod-openapi";
import { nextCursorField, pageQueryFields } from "../../shared/http/page_query.ts";
import { workspaceRecordSchema } from "../workspaces/client.ts";
import { MESSAGES } from "../../shared/http/messages.ts";

export const ADMIN_MESSAGES = {
  adminRequired: MESSAGES.adminRequired,
  userNotFound: "User not found",
  keyRequired: "key is required",
  keyPattern: "key must match _backups/*.zip",
  assetsNotConfigured: "Asset storage not configured",
  restoreNotFound: "Restore job not found",
} as const;

// ------------------------------------------------------------------ users

export const adminUserSchema = z.object({
  user_id: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.enum(["admin", "member"]),
  status: z.enum(["approved", "pending", "rejected"]),
  enabled: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
  last_login: z.string().nullable(),
}).openapi("AdminUser");

/** The name the users list's cursors carry (a cursor of another list is refused). */
export const USERS_LIST = "users";

export const userListQuerySchema = z.object({
  status: z.string().max(100).optional().openapi({
    description: "`pending` or `approved`; any other value or none lists every user",
  }),
  ...pageQueryFields(USERS_LIST),
});

export const userIdParamSchema = z.object({ id: z.string() });

export const userListSchema = z.object({
  users: z.array(adminUserSchema),
  count: z.number().int().optional().openapi({
    description: "with `limit`: the number of users on this page",
  }),
  next_cursor: nextCursorField,
});
/** What approve (`approved`) and reject (`rejected`) answer. */
export const userDecidedSchema = <S extends "approved" | "rejected">(status: S) =>
  z.object({ status: z.literal(status), user_id: z.string() });
export const roleSetSchema = z.object({
  status: z.literal("updated"),
  user_id: z.string(),
  role: z.enum(["admin", "member"]),
});
export const enabledSetSchema = z.object({
  status: z.literal("updated"),
  user_id: z.string(),
  enabled: z.boolean(),
});
export type AdminUser = z.infer<typeof adminUserSchema>;
export type UserDecided = z.infer<ReturnType<typeof userDecidedSchema>>;
export type RoleSet = z.infer<typeof roleSetSchema>;
export type EnabledSet = z.infer<typeof enabledSetSchema>;

export const roleBodySchema = z.object({
  role: z.enum(["admin", "member"], {
    error: (iss) => (iss.input == null ? "role is required" : "role must be admin or member"),
  }),
}).openapi("SetRoleBody");

export const enabledBodySchema = z.object({
  enabled: z.boolean({
    error: (iss) => (iss.input == null ? "enabled is required" : "enabled must be a boolean"),
  }),
}).openapi("SetEnabledBody");

// ------------------------------------------------------------------ workspaces

/** A workspace as the workspaces service stores it, with its owner's name and email. */
export const adminWorkspaceSchema = workspaceRecordSchema.extend({
  owner_name: z.string(),
  owner_email: z.string(),
}).openapi("AdminWorkspace");

export type AdminWorkspace = z.infer<typeof adminWorkspaceSchema>;
export const workspaceListSchema = z.object({ workspaces: z.array(adminWorkspaceSchema) });

export const workspaceIdParamSchema = z.object({ workspace_id: z.string() });

/** What recover (`active`) and delete (`deleted`) answer. */
export const workspaceStatusSchema = <S extends "active" | "deleted">(status: S) =>
  z.object({ workspace_id: z.string(), status: z.literal(status) });
export type WorkspaceStatus = z.infer<ReturnType<typeof workspaceStatusSchema>>;

export const metricsSchema = z.object({
  total_users: z.number().int(),
  pending_users: z.number().int(),
  total_workspaces: z.number().int(),
  total_posts: z.number().int(),
  total_ideas: z.number().int(),
  posts_published_last_30_days: z.number().int(),
  active_users_last_7_days: z.number().int(),
}).openapi("AdminMetrics");
export type Metrics = z.infer<typeof metricsSchema>;

// ------------------------------------------------------------------ backups

/** What the admin KV keeps about a backup object: `["backups", key]`. */
export const backupRecordSchema = z.object({
  key: z.string(),
  timestamp: z.string(),
  created_at: z.string(),
  size_bytes: z.number().int().nullable(),
  item_count: z.number().int().nullable(),
  asset_count: z.number().int().nullable(),
});
export type BackupRecord = z.infer<typeof backupRecordSchema>;

export const createdBackupSchema = z.object({
  timestamp: z.string(),
  key: z.string(),
  item_count: z.number().int(),
  asset_count: z.number().int(),
  size_bytes: z.number().int(),
  created_at: z.string(),
}).openapi("CreatedBackup");
export type CreatedBackup = z.infer<typeof createdBackupSchema>;

export const backupListSchema = z.object({
  backups: z.array(z.object({
    key: z.string(),
    timestamp: z.string(),
    size_bytes: z.number().int(),
    created_at: z.string(),
  })),
}).openapi("BackupList");
export type BackupListItem = z.infer<typeof backupListSchema>["backups"][number];

export const downloadUrlSchema = z.object({ url: z.string() });
export const uploadUrlSchema = z.object({ url: z.string(), key: z.string() });
export type UploadUrl = z.infer<typeof uploadUrlSchema>;

/**
 * A backup key as a pattern: `_backups/<name>.zip`, `<name>` without `/`, `\\`, `..` or
 * control characters (what `backupKeyProblem` checks, stated for the document).
 */
// deno-lint-ignore no-control-regex
const BACKUP_KEY = /^_backups\/(?![\s\S]*\.\.)[^/\\\u0000-\u001f\u007f]+\.zip$/;

const backupKey = z.string({
  error: (iss) =>
    iss.input === undefined || iss.input === null
      ? ADMIN_MESSAGES.keyRequired
      : ADMIN_MESSAGES.keyPattern,
})
  .min(1, ADMIN_MESSAGES.keyRequired)
  .max(300, ADMIN_MESSAGES.keyPattern)
  .regex(BACKUP_KEY, ADMIN_MESSAGES.keyPattern)
  .openapi({ description: "`_backups/<name>.zip`" });

export const backupKeyQuerySchema = z.object({ key: backupKey });

export const restoreBodySchema = z.object({ key: backupKey }).openapi("RestoreBody");

export const restoreStartedSchema = z.object({
  started: z.literal(true),
  message: z.string(),
  job_id: z.string(),
});
export type RestoreStarted = z.infer<typeof restoreStartedSchema>;

export const restoreStatusSchema = z.enum(["queued", "running", "succeeded", "failed"]);

/** A restore job: `["restores", job_id]`. */
export const restoreJobSchema = z.object({
  job_id: z.string(),
  key: z.string(),
  status: restoreStatusSchema,
  error: z.string().nullable(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
}).openapi("RestoreJob");
export type RestoreJob = z.infer<typeof restoreJobSchema>;

export const restoreJobParamSchema = z.object({ job_id: z.string() });

/** The admin queue's messages. */
export const adminJobSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("restore"), job_id: z.string().min(1).max(100) }),
]);
export type AdminJob = z.infer<typeof adminJobSchema>;

/** Backups live here in the asset store; they are never inside a backup themselves. */
export const BACKUP_PREFIX = "_backups/";

/** Backup keys: `_backups/<name>.zip`, `<name>` without `/` or `..`. */
export function backupKeyProblem(key: unknown): string | null {
  if (key === undefined || key === null || key === "") return ADMIN_MESSAGES.keyRequired;
  if (typeof key !== "string" || key.length > 300) return ADMIN_MESSAGES.keyPattern;
  const m = /^_backups\/([^/\\]+)\.zip$/.exec(key);
  // deno-lint-ignore no-control-regex
  if (!m || key.slice(BACKUP_PREFIX.length).includes("..") || /[\u0000-\u001f\u007f]/.test(m[1])) {
    return ADMIN_MESSAGES.keyPattern;
  }
  return null;
}

/** `2026-11-22T10-15-30.123Z`: ISO 8601 with hyphens for the colons of the time part. */
export function backupTimestamp(date: Date): string {
  return date.toISOString().replace(/:/g, "-");
}

/** The time a backup timestamp (or `upload-<timestamp>`) names, or null. */
export function timeOfTimestamp(timestamp: string): Date | null {
  const m = /^(?:upload-)?(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2}(?:\.\d+)?)Z$/.exec(timestamp);
  if (!m) return null;
  const d = new Date(`${m[1]}T${m[2]}:${m[3]}:${m[4]}Z`);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** `<timestamp>` -> `_backups/<timestamp>.zip`. */
export function keyOfTimestamp(timestamp: string): string {
  return `${BACKUP_PREFIX}${timestamp}.zip`;
}

/** `_backups/<timestamp>.zip` -> `<timestamp>`. */
export function timestampOfKey(key: string): string {
  return key.slice(BACKUP_PREFIX.length, -".zip".length);
}
