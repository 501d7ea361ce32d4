import type { Context } from "hono";
import { AppError } from "../../shared/http/app_error.ts";
import { internalBody } from "../../shared/http/internal_input.ts";
import type { ServiceApp, ServiceEnv } from "../../shared/http/service_app.ts";
import type { CollabHub } from "./hub.ts";
import {
  broadcastBodySchema,
  contentsBodySchema,
  docWorkspacesBodySchema,
  MAX_ID_LENGTH,
  setContentBodySchema,
  wsQuerySchema,
} from "./schemas.ts";
import type { DocStore } from "./store.ts";

/**
 * The peers-only API (never routed by the gateway, left out of the OpenAPI document) through
 * which the posts service reads and replaces a post's live text (and its fingerprint), tells
 * each post's workspace, broadcasts comment events and deletes a post's document.
 */
export function mountInternalRoutes(
  app: ServiceApp,
  { hub, store }: { hub: CollabHub; store: DocStore },
): void {
  app.put("/internal/docs/:postId/content", async (c) => {
    const postId = validPostId(c);
    const body = await internalBody(c, setContentBodySchema);
    await store.setDocWorkspaces([{ post_id: postId, workspace_id: body.workspace_id }]);
    await hub.setContent(postId, body.workspace_id, body.content);
    return c.body(null, 204);
  });

  app.post("/internal/docs/contents", async (c) => {
    const body = await internalBody(c, contentsBodySchema);
    return c.json({ contents: await hub.contents(body.post_ids) });
  });

  app.post("/internal/docs/fingerprints", async (c) => {
    const body = await internalBody(c, contentsBodySchema);
    return c.json({ fingerprints: await hub.fingerprints(body.post_ids) });
  });

  app.post("/internal/docs/workspaces", async (c) => {
    const body = await internalBody(c, docWorkspacesBodySchema);
    await store.setDocWorkspaces(body.docs);
    return c.body(null, 204);
  });

  app.get("/internal/docs/:postId/content", async (c) => {
    const content = await hub.content(validPostId(c, 404));
    if (content === null) throw new AppError(404, "Document not found");
    return c.json({ content });
  });

  app.get("/internal/docs/:postId/stats", async (c) => {
    const postId = validPostId(c, 404);
    const stats = await store.stats(postId);
    if (!stats) throw new AppError(404, "Document not found");
    return c.json({ ...stats, connections: hub.liveRoom(postId)?.size ?? 0 });
  });

  app.delete("/internal/docs/:postId", async (c) => {
    await hub.deleteDoc(validPostId(c, 404));
    return c.body(null, 204);
  });

  app.post("/internal/docs/:postId/broadcast", async (c) => {
    const postId = validPostId(c);
    const body = await internalBody(c, broadcastBodySchema);
    await hub.broadcast(postId, body.message);
    return c.body(null, 204);
  });
}

/**
 * Puts `GET /ws` in the OpenAPI document. The route itself is answered outside the Hono app
 * (it needs the original upgrade request and is authenticated by its ticket, not the gateway).
 */
export function documentWsRoute(app: ServiceApp): void {
  app.openAPIRegistry.registerPath({
    method: "get",
    path: "/ws",
    summary: "Live collaborative editing of a post (WebSocket, Yjs protocol)",
    description:
      "Upgrade to a WebSocket speaking the standard Yjs WebSocket protocol (sync step 1, " +
      "sync step 2, updates, awareness), as y-websocket's WebsocketProvider does. The post's " +
      "text is the Y.Text named `content` (at most 200 000 characters; a frame is at most " +
      "1 MiB; 20 open sockets per user). Comment events arrive as JSON text frames " +
      '`{"type":"comment","action":...,"postId":...,"commentId":...}`. A refused upgrade is ' +
      "answered with an HTTP error and never opens. See docs/collab.md.",
    request: { query: wsQuerySchema },
    responses: {
      101: { description: "Switching protocols: the socket is open" },
      400: { description: "A query parameter is missing or too long" },
      401: {
        description: "The ticket is unknown or expired, its account disabled or rejected, or " +
          "the upgrade did not come through the gateway",
      },
      403: { description: "The ticket's user is not a member of the workspace" },
      404: { description: "The post is not in that workspace, or the workspace is deleted" },
      426: { description: "Not a WebSocket upgrade request" },
    },
  });
}

function validPostId(c: Context<ServiceEnv>, tooLongStatus: 400 | 404 = 400): string {
  const postId = c.req.param("postId") ?? "";
  if (postId.length > MAX_ID_LENGTH) {
    throw new AppError(
      tooLongStatus,
      tooLongStatus === 404 ? "Document not found" : "postId is too long",
    );
  }
  return postId;
}
