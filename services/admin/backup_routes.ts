import { createRoute } from "@hono/zod-openapi";
import { body, err, json } from "../../shared/http/openapi.ts";
import type { ServiceApp } from "../../shared/http/service_app.ts";
import { adminRoute, guardResponses } from "./guard.ts";
import type { BackupOperations } from "./operations.ts";
import {
  backupKeyQuerySchema,
  backupListSchema,
  createdBackupSchema,
  downloadUrlSchema,
  restoreBodySchema,
  restoreJobParamSchema,
  restoreJobSchema,
  restoreStartedSchema,
  uploadUrlSchema,
} from "./schemas.ts";

const noAssets = err("Asset storage not configured");

/** Backups (create, list, download, import) and restores (start, follow). */
export function mountBackupRoutes(app: ServiceApp, backups: BackupOperations): void {
  app.openapi(
    createRoute({
      ...adminRoute,
      method: "post",
      path: "/api/admin/backups",
      summary: "Back up every service's data and every asset into one ZIP (synchronous)",
      responses: {
        201: json(createdBackupSchema, "The backup"),
        ...guardResponses,
        500: err("Asset storage not configured, or the backup failed"),
      },
    }),
    async (c) => c.json(await backups.create(), 201),
  );

  app.openapi(
    createRoute({
      ...adminRoute,
      method: "get",
      path: "/api/admin/backups",
      summary: "List backups, newest first by creation time, imported ones included",
      responses: {
        200: json(backupListSchema, "The backups"),
        ...guardResponses,
        500: noAssets,
      },
    }),
    async (c) => c.json({ backups: await backups.list() }, 200),
  );

  app.openapi(
    createRoute({
      ...adminRoute,
      method: "get",
      path: "/api/admin/backups/download",
      summary: "A presigned GET URL for a backup (valid 1 hour)",
      request: { query: backupKeyQuerySchema },
      responses: {
        200: json(downloadUrlSchema, "The URL"),
        400: err("key missing or not _backups/*.zip"),
        ...guardResponses,
        500: noAssets,
      },
    }),
    async (c) => c.json({ url: await backups.downloadUrl(c.req.valid("query").key) }, 200),
  );

  app.openapi(
    createRoute({
      ...adminRoute,
      method: "post",
      path: "/api/admin/backups/upload-url",
      summary: "A presigned PUT URL (Content-Type: application/zip) for importing a backup",
      responses: {
        200: json(uploadUrlSchema, "The URL and key"),
        ...guardResponses,
        500: noAssets,
      },
    }),
    async (c) => c.json(await backups.uploadUrl(), 200),
  );

  app.openapi(
    createRoute({
      ...adminRoute,
      method: "post",
      path: "/api/admin/backups/restore",
      summary: "Start restoring a backup (a job; follow it at /api/admin/restores/{job_id})",
      request: body(restoreBodySchema),
      responses: {
        200: json(restoreStartedSchema, "The job was queued"),
        400: err("key missing, empty or not _backups/*.zip"),
        ...guardResponses,
        500: noAssets,
      },
    }),
    async (c) => c.json(await backups.startRestore(c.req.valid("json").key), 200),
  );

  app.openapi(
    createRoute({
      ...adminRoute,
      method: "get",
      path: "/api/admin/restores/{job_id}",
      summary: "A restore job's status",
      request: { params: restoreJobParamSchema },
      responses: {
        200: json(restoreJobSchema, "The job"),
        ...guardResponses,
        404: err("Restore job not found"),
      },
    }),
    async (c) => c.json(await backups.restoreJob(c.req.valid("param").job_id), 200),
  );
}
