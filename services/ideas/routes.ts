import { createRoute } from "@hono/zod-openapi";
import { conflict, notFound } from "../../shared/http/app_error.ts";
import { bearer as security, body, err, json } from "../../shared/http/openapi.ts";
import { requireCaller, type ServiceApp } from "../../shared/http/service_app.ts";
import { countMetric } from "../../shared/service/metrics.ts";
import { encodeCursor, pageRequest } from "../../shared/http/page_query.ts";
import type { WorkspacesClient } from "../workspaces/client.ts";
import {
  createIdeaBody,
  deletedSchema,
  ideaListSchema,
  IDEAS_LIST,
  ideaSchema,
  idParam,
  listQuery,
  statusBody,
  updateIdeaBody,
  workspaceQuery,
} from "./schemas.ts";
import type { IdeasStore } from "./store.ts";
import { MESSAGES } from "../../shared/http/messages.ts";

export interface IdeasDeps {
  store: IdeasStore;
  workspaces: WorkspacesClient;
  /** A title for an idea's text; never fails (the fallback title when the model cannot help) */
  title(text: string): Promise<string>;
}

const tags = ["Ideas"];

export const IDEA_NOT_FOUND = "Idea not found";

/** The message of the 409 on a disallowed idea status move (spec, Errors). */
export const transitionMessage = (from: string, to: string) =>
  `Transition from '${from}' to '${to}' is not allowed`;

const createIdea = createRoute({
  method: "post",
  path: "/api/ideas",
  tags,
  security,
  summary: "Capture an idea; its title is generated from the text",
  request: body(createIdeaBody),
  responses: {
    201: json(ideaSchema, "The idea, status `new`"),
    400: err("workspace_id or title blank"),
    401: err("No caller identity"),
    403: err(MESSAGES.notMember),
    404: err("Workspace soft-deleted"),
  },
});

const listIdeas = createRoute({
  method: "get",
  path: "/api/ideas",
  tags,
  security,
  summary: "List a workspace's ideas, newest first; filters are ANDed; " +
    "with `limit`, one page at a time",
  request: { query: listQuery },
  responses: {
    200: json(ideaListSchema, "The ideas (with `limit`: one page, and `next_cursor`)"),
    400: err("workspaceId missing, a filter invalid, limit not 1 to 200, or cursor malformed"),
    403: err(MESSAGES.notMember),
    404: err("Workspace soft-deleted"),
  },
});

const getIdea = createRoute({
  method: "get",
  path: "/api/ideas/{id}",
  tags,
  security,
  summary: "Get an idea",
  request: { params: idParam, query: workspaceQuery },
  responses: {
    200: json(ideaSchema, "The idea"),
    400: err("workspaceId missing"),
    403: err(MESSAGES.notMember),
    404: err("Idea not found"),
  },
});

const updateIdea = createRoute({
  method: "put",
  path: "/api/ideas/{id}",
  tags,
  security,
  summary: "Update an idea (any of title, description, source_url, tags; status is ignored)",
  request: {
    params: idParam,
    ...body(updateIdeaBody),
  },
  responses: {
    200: json(ideaSchema, "The idea"),
    400: err("workspace_id blank, or title blank or over 500 characters"),
    403: err(MESSAGES.notMember),
    404: err("Idea not found"),
  },
});

const deleteIdea = createRoute({
  method: "delete",
  path: "/api/ideas/{id}",
  tags,
  security,
  summary: "Delete an idea (hard delete, any status)",
  request: { params: idParam, query: workspaceQuery },
  responses: {
    200: json(deletedSchema, "Deleted"),
    400: err("workspaceId missing"),
    403: err(MESSAGES.notMember),
    404: err("Idea not found"),
  },
});

const changeStatus = createRoute({
  method: "put",
  path: "/api/ideas/{id}/status",
  tags,
  security,
  summary: "Change an idea's status (only `new` to `converted`)",
  request: {
    params: idParam,
    ...body(statusBody),
  },
  responses: {
    200: json(ideaSchema, "The idea"),
    400: err("workspace_id or status blank, or status not `new` or `converted`"),
    403: err(MESSAGES.notMember),
    404: err("Idea not found"),
    409: err("Transition from '<current>' to '<new>' is not allowed"),
  },
});

/** The REST routes of ideas: membership first (403), then existence (404). */
export function mountIdeaRoutes(
  app: ServiceApp,
  { store, workspaces, title: makeTitle }: IdeasDeps,
): void {
  app.openapi(createIdea, async (c) => {
    const caller = requireCaller(c);
    const input = c.req.valid("json");
    await workspaces.requireMember(input.workspace_id, caller.user_id);
    const title = await makeTitle(input.title);
    const idea = await store.create({
      workspace_id: input.workspace_id,
      title,
      description: input.title,
      tags: input.tags,
      source_url: input.source_url,
      created_by: caller.user_id,
    });
    countMetric("IdeaCaptured");
    return c.json(idea, 201);
  });

  app.openapi(listIdeas, async (c) => {
    const caller = requireCaller(c);
    const q = c.req.valid("query");
    const page = pageRequest(IDEAS_LIST, q);
    await workspaces.requireMember(q.workspaceId, caller.user_id);
    const tagFilter = q.tags?.split(",").map((t) => t.trim()).filter((t) => t.length > 0);
    const filters = { status: q.status, authorId: q.authorId || undefined, tags: tagFilter };
    if (page) {
      const { items, next } = await store.listPage(q.workspaceId, filters, {
        limit: page.limit,
        after: page.after?.[0],
      });
      const next_cursor = next === null ? null : encodeCursor(IDEAS_LIST, [next]);
      return c.json({ items, count: items.length, next_cursor }, 200);
    }
    const items = await store.list(q.workspaceId, filters);
    return c.json({ items, count: items.length }, 200);
  });

  app.openapi(getIdea, async (c) => {
    const caller = requireCaller(c);
    const { id } = c.req.valid("param");
    const { workspaceId } = c.req.valid("query");
    await workspaces.requireMember(workspaceId, caller.user_id);
    const idea = await store.get(workspaceId, id);
    if (!idea) throw notFound(IDEA_NOT_FOUND);
    return c.json(idea, 200);
  });

  app.openapi(updateIdea, async (c) => {
    const caller = requireCaller(c);
    const { id } = c.req.valid("param");
    const { workspace_id, ...patch } = c.req.valid("json");
    await workspaces.requireMember(workspace_id, caller.user_id);
    const idea = await store.update(workspace_id, id, patch);
    if (!idea) throw notFound(IDEA_NOT_FOUND);
    return c.json(idea, 200);
  });

  app.openapi(deleteIdea, async (c) => {
    const caller = requireCaller(c);
    const { id } = c.req.valid("param");
    const { workspaceId } = c.req.valid("query");
    await workspaces.requireMember(workspaceId, caller.user_id);
    if (!await store.delete(workspaceId, id)) throw notFound(IDEA_NOT_FOUND);
    return c.json({ deleted: true as const }, 200);
  });

  app.openapi(changeStatus, async (c) => {
    const caller = requireCaller(c);
    const { id } = c.req.valid("param");
    const input = c.req.valid("json");
    await workspaces.requireMember(input.workspace_id, caller.user_id);
    const to = input.status as "new" | "converted";
    const result = await store.changeStatus(input.workspace_id, id, to);
    if (result.kind === "not_found") throw notFound(IDEA_NOT_FOUND);
    if (result.kind === "conflict") throw conflict(transitionMessage(result.current, to));
    return c.json(result.idea, 200);
  });
}
