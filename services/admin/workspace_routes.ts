import { createRoute } from "@hono/zod-openapi";
import { err, json } from "../../shared/http/openapi.ts";
import type { ServiceApp } from "../../shared/http/service_app.ts";
import { adminRoute, guardResponses } from "./guard.ts";
import type { AdminOperations } from "./operations.ts";
import {
  metricsSchema,
  workspaceIdParamSchema,
  workspaceListSchema,
  workspaceStatusSchema,
} from "./schemas.ts";

const STATUS_CHANGES = [
  {
    method: "post",
    path: "/api/admin/workspaces/{workspace_id}/recover",
    status: "active",
    summary: "Recover a soft-deleted workspace",
    description: "Recovered",
    refused: "Workspace is not deleted",
  },
  {
    method: "delete",
    path: "/api/admin/workspaces/{workspace_id}",
    status: "deleted",
    summary: "Soft-delete a workspace",
    description: "Deleted",
    refused: "Workspace is already deleted",
  },
] as const;

/** Workspace oversight (every workspace, recover, soft-delete) and the platform metrics. */
export function mountWorkspaceRoutes(app: ServiceApp, admin: AdminOperations): void {
  app.openapi(
    createRoute({
      ...adminRoute,
      method: "get",
      path: "/api/admin/workspaces",
      summary: "List every workspace, soft-deleted ones included, with its owner",
      responses: { 200: json(workspaceListSchema, "The workspaces"), ...guardResponses },
    }),
    async (c) => c.json({ workspaces: await admin.listWorkspaces() }, 200),
  );

  for (const { method, path, status, summary, description, refused } of STATUS_CHANGES) {
    app.openapi(
      createRoute({
        ...adminRoute,
        method,
        path,
        summary,
        request: { params: workspaceIdParamSchema },
        responses: {
          200: json(workspaceStatusSchema(status), description),
          400: err(refused),
          ...guardResponses,
          404: err("Workspace not found"),
        },
      }),
      async (c) =>
        c.json(await admin.setWorkspaceStatus(c.req.valid("param").workspace_id, status), 200),
    );
  }

  app.openapi(
    createRoute({
      ...adminRoute,
      method: "get",
      path: "/api/admin/metrics",
      summary: "Platform figures, from counters the owning services maintain",
      responses: { 200: json(metricsSchema, "The figures"), ...guardResponses },
    }),
    async (c) => c.json(await admin.metrics(), 200),
  );
}
