import { createRoute, type RouteConfig, z } from "@hono/zod-openapi";
import { internalBody } from "../../shared/http/internal_input.ts";
import { bearer, body, err, errors, json } from "../../shared/http/openapi.ts";
import { requireCaller, type ServiceApp } from "../../shared/http/service_app.ts";
import type { WorkspacesClient } from "../workspaces/client.ts";
import type { MediaOperations } from "./media.ts";
import {
  addMediaBody,
  mediaParams,
  mediaUploadSchema,
  patchMediaBody,
  postIdParam,
  postSchema,
  reorderMediaBody,
  workspaceQuery,
} from "./schemas.ts";

const tag = { tags: ["Post media"], security: bearer } satisfies Partial<RouteConfig>;
const unconfigured = { 500: err("Asset storage not configured (ASSETS_URL is empty)") };
const claimBody = z.object({
  key: z.string().min(1).max(1024),
  upload_id: z.string().min(1).max(64),
});

/**
 * A post's images or document. Every member of the workspace may change them (as the text);
 * membership first (403), then the post and the media (404).
 */
export function mountMediaRoutes(
  app: ServiceApp,
  { media, workspaces }: { media: MediaOperations; workspaces: WorkspacesClient },
): void {
  /** The gateway claims a single-use upload URL before it takes the bytes (PostsClient). */
  app.post("/internal/media/claim", async (c) => {
    const { key, upload_id } = await internalBody(c, claimBody);
    return c.json(await media.claimUpload(key, upload_id), 200);
  });

  app.openapi(
    createRoute({
      ...tag,
      method: "post",
      path: "/api/posts/{id}/media",
      summary: "Add an image or a PDF document to a post: answers a URL to PUT the bytes to",
      description: "Images: image/jpeg, image/png or image/gif, at most 10 MiB, at most 20 per " +
        "post. Documents: application/pdf, at most 100 MiB, one per post and never beside " +
        "images. PUT the bytes to `uploadUrl` with `Content-Type` equal to `contentType`; the " +
        "URL accepts one upload of at most `size` bytes. The bytes are checked against their " +
        "type when the post is published.",
      request: { params: postIdParam, ...body(addMediaBody) },
      responses: {
        201: json(mediaUploadSchema, "The media id and its upload URL"),
        ...errors(400, 401, 403, 404),
        ...unconfigured,
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { workspace_id, filename, contentType, size } = c.req.valid("json");
      const { id } = c.req.valid("param");
      await workspaces.requireMember(workspace_id, caller.user_id);
      return c.json(
        await media.requestUpload(caller, workspace_id, id, { filename, contentType, size }),
        201,
      );
    },
  );

  app.openapi(
    createRoute({
      ...tag,
      method: "patch",
      path: "/api/posts/{id}/media/{media_id}",
      summary: "Set a media's alt text, or a document's title",
      request: { params: mediaParams, ...body(patchMediaBody) },
      responses: { 200: json(postSchema, "The post"), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { workspace_id, ...patch } = c.req.valid("json");
      const { id, media_id } = c.req.valid("param");
      await workspaces.requireMember(workspace_id, caller.user_id);
      return c.json(await media.update(workspace_id, id, media_id, patch, caller.user_id), 200);
    },
  );

  app.openapi(
    createRoute({
      ...tag,
      method: "put",
      path: "/api/posts/{id}/media",
      summary: "Reorder a post's media: `media_ids` names each of them once, in the new order",
      request: { params: postIdParam, ...body(reorderMediaBody) },
      responses: { 200: json(postSchema, "The post"), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { workspace_id, media_ids } = c.req.valid("json");
      await workspaces.requireMember(workspace_id, caller.user_id);
      const { id } = c.req.valid("param");
      return c.json(await media.reorder(workspace_id, id, media_ids, caller.user_id), 200);
    },
  );

  app.openapi(
    createRoute({
      ...tag,
      method: "delete",
      path: "/api/posts/{id}/media/{media_id}",
      summary: "Remove a media and its bytes",
      request: { params: mediaParams, query: workspaceQuery },
      responses: { 204: { description: "Removed" }, ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { workspaceId } = c.req.valid("query");
      const { id, media_id } = c.req.valid("param");
      await workspaces.requireMember(workspaceId, caller.user_id);
      await media.delete(workspaceId, id, media_id, caller.user_id);
      return c.body(null, 204);
    },
  );
}
