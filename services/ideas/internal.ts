import { conflict, notFound } from "../../shared/http/app_error.ts";
import { internalBody } from "../../shared/http/internal_input.ts";
import type { ServiceApp } from "../../shared/http/service_app.ts";
import { IDEA_NOT_FOUND, transitionMessage } from "./routes.ts";
import {
  ID_MAX,
  IDEA_STATUSES,
  type IdeaStatus,
  internalConvertBody,
  internalCreateBody,
  internalMcpUpdateBody,
} from "./schemas.ts";
import type { IdeasStore } from "./store.ts";

/** A path or query id; an over-long one cannot name anything (and must not reach a key). */
function id(value: string | undefined): string {
  if (!value || value.length > ID_MAX) throw notFound(IDEA_NOT_FOUND);
  return value;
}

/**
 * Routes for peers only (never in the public document): posts converts an idea when a post is
 * made from it, MCP reads, creates and updates ideas, admin reads the total.
 */
export function mountIdeasInternal(app: ServiceApp, store: IdeasStore): void {
  app.get("/internal/stats", async (c) => c.json({ total_ideas: await store.totalIdeas() }));

  /** The idea by id; with `workspaceId`, 404 unless it belongs to that workspace. */
  app.get("/internal/ideas/:id", async (c) => {
    const idea = await store.getById(id(c.req.param("id")));
    const ws = c.req.query("workspaceId");
    if (!idea || (ws && idea.workspace_id !== ws)) throw notFound(IDEA_NOT_FOUND);
    return c.json(idea);
  });

  /** A workspace's ideas, newest first, optionally of one exact status (MCP list_ideas). */
  app.get("/internal/workspaces/:workspaceId/ideas", async (c) => {
    const ws = c.req.param("workspaceId");
    if (ws.length > ID_MAX) return c.json({ items: [], count: 0 });
    const status = c.req.query("status") || undefined;
    if (status && !(IDEA_STATUSES as readonly string[]).includes(status)) {
      return c.json({ items: [], count: 0 });
    }
    const items = await store.list(ws, { status: status as IdeaStatus | undefined });
    return c.json({ items, count: items.length });
  });

  /** MCP create_idea: the title is stored literally, no AI call. */
  app.post("/internal/ideas", async (c) => {
    const body = await internalBody(c, internalCreateBody);
    const idea = await store.create({ ...body, source_url: "" });
    return c.json(idea, 201);
  });

  /** A post was created from the idea; idempotent for the same post, 409 otherwise. */
  app.post("/internal/ideas/:id/convert", async (c) => {
    const ideaId = id(c.req.param("id"));
    const body = await internalBody(c, internalConvertBody);
    const idea = await store.getById(ideaId);
    if (!idea || (body.workspace_id && idea.workspace_id !== body.workspace_id)) {
      throw notFound(IDEA_NOT_FOUND);
    }
    const result = await store.convert(idea.workspace_id, ideaId, body.post_id);
    if (result.kind === "not_found") throw notFound(IDEA_NOT_FOUND);
    if (result.kind === "conflict") throw conflict(transitionMessage(result.current, "converted"));
    return c.json(result.idea);
  });

  /** MCP update_idea: status (validated) and tags only; an unknown idea is a 404. */
  app.put("/internal/ideas/:id/mcp", async (c) => {
    const ideaId = id(c.req.param("id"));
    const body = await internalBody(c, internalMcpUpdateBody);
    const idea = await store.mcpUpdate(body.workspace_id, ideaId, {
      status: body.status,
      tags: body.tags,
    });
    if (!idea) throw notFound(IDEA_NOT_FOUND);
    return c.json(idea);
  });
}
