import { createRoute } from "@hono/zod-openapi";
import { internalBody } from "../../shared/http/internal_input.ts";
import { body, err, json } from "../../shared/http/openapi.ts";
import { requireCaller, type ServiceApp } from "../../shared/http/service_app.ts";
import type { AttachmentOperations } from "./attachments.ts";
import { refusals, secured, unknownAction } from "./routes.ts";
import {
  actionIdParam,
  addAttachmentBody,
  attachmentListSchema,
  claimUploadBody,
  deleteAttachmentQuery,
  deletedSchema,
  uploadUrlSchema,
  workspaceQuery,
} from "./schemas.ts";

const unconfigured = { 500: err("Asset storage not configured (ASSETS_URL is empty)") };

/** The attachment routes of an action; the work is `AttachmentOperations`'. */
export function mountAttachmentRoutes(app: ServiceApp, attachments: AttachmentOperations): void {
  /** The gateway claims a single-use upload URL before it takes the bytes (ActionsClient). */
  app.post("/internal/attachments/claim", async (c) => {
    const { key, upload_id } = await internalBody(c, claimUploadBody);
    await attachments.claimUpload(key, upload_id);
    return c.json({ claimed: true as const }, 200);
  });

  app.openapi(
    createRoute({
      ...secured,
      method: "post",
      path: "/api/actions/{id}/attachments",
      summary: "Get an upload URL for an attachment (metadata recorded at once)",
      description: "PUT the bytes to `uploadUrl` with a `Content-Type` equal to `contentType`, " +
        "which must be the extension's own type (`image/png`, `image/jpeg`, `image/svg+xml`, " +
        "`image/webp`, `application/pdf`), without parameters. The URL takes one PUT: a second " +
        "is refused 409, as is one after the same name was requested again; one after the " +
        "attachment was deleted is refused 404, and one by an uploader who has left the " +
        "workspace 403. An entry whose upload never arrived is removed once the URL has " +
        "expired, and so are stored bytes that have no entry.",
      request: { params: actionIdParam, ...body(addAttachmentBody) },
      responses: {
        201: json(uploadUrlSchema, "The upload URL"),
        ...refusals,
        ...unknownAction,
        ...unconfigured,
      },
    }),
    async (c) => {
      const { workspace_id, ...input } = c.req.valid("json");
      const id = c.req.valid("param").id;
      const upload = await attachments.requestUpload(requireCaller(c), workspace_id, id, input);
      return c.json(upload, 201);
    },
  );

  app.openapi(
    createRoute({
      ...secured,
      method: "get",
      path: "/api/actions/{id}/attachments",
      summary: "List an action's attachments, each with a fresh download URL (1 hour)",
      request: { params: actionIdParam, query: workspaceQuery },
      responses: {
        200: json(attachmentListSchema, "The attachments"),
        ...refusals,
        ...unknownAction,
        ...unconfigured,
      },
    }),
    async (c) => {
      const { workspaceId } = c.req.valid("query");
      const id = c.req.valid("param").id;
      const items = await attachments.list(requireCaller(c), workspaceId, id);
      return c.json({ items, count: items.length }, 200);
    },
  );

  app.openapi(
    createRoute({
      ...secured,
      method: "delete",
      path: "/api/actions/{id}/attachments",
      summary: "Delete an attachment: the stored object and the entry",
      request: { params: actionIdParam, query: deleteAttachmentQuery },
      responses: {
        200: json(deletedSchema, "Deleted"),
        ...refusals,
        404: err("No such action in the workspace, or no such attachment on it"),
        ...unconfigured,
      },
    }),
    async (c) => {
      const { workspaceId, key } = c.req.valid("query");
      await attachments.delete(requireCaller(c), workspaceId, c.req.valid("param").id, key);
      return c.json({ deleted: true as const }, 200);
    },
  );
}
