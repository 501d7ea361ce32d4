import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import { notFound } from "../../shared/http/app_error.ts";
import { bearer, body, errors, json } from "../../shared/http/openapi.ts";
import { requireCaller, type ServiceApp } from "../../shared/http/service_app.ts";
import { newId } from "../../shared/crypto/ids.ts";
import { nowIso } from "../../shared/time.ts";
import type { PostsRouteDeps } from "./routes.ts";
import {
  createExampleBody,
  deletedSchema,
  type Example,
  EXAMPLE_NOT_FOUND,
  exampleListSchema,
  exampleSchema,
  postIdParam,
  updateExampleBody,
  workspaceQuery,
} from "./schemas.ts";

const examplesTag = { tags: ["Example posts"], security: bearer } satisfies Partial<RouteConfig>;

/** Example posts: any member may create, read, update and delete them. */
export function mountExampleRoutes(app: ServiceApp, deps: PostsRouteDeps): void {
  const { store, workspaces } = deps;
  const exampleIdParam = postIdParam;

  const requireExample = async (workspaceId: string, exampleId: string) => {
    const example = await store.examples.getExample(workspaceId, exampleId);
    if (!example) throw notFound(EXAMPLE_NOT_FOUND);
    return example;
  };

  app.openapi(
    createRoute({
      ...examplesTag,
      method: "post",
      path: "/api/examples",
      summary: "Add an example post (the workspace's voice, used by generation)",
      request: body(createExampleBody),
      responses: { 201: json(exampleSchema, "The example"), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const input = c.req.valid("json");
      await workspaces.requireMember(input.workspace_id, caller.user_id);
      const now = nowIso();
      const example: Example = {
        example_id: newId(),
        workspace_id: input.workspace_id,
        title: input.title ?? "",
        content: input.content ?? "",
        tags: input.tags ?? [],
        created_by: caller.user_id,
        created_at: now,
        updated_at: now,
      };
      return c.json(await store.examples.createExample(example), 201);
    },
  );

  app.openapi(
    createRoute({
      ...examplesTag,
      method: "get",
      path: "/api/examples",
      summary: "List the workspace's example posts, newest first",
      request: { query: workspaceQuery },
      responses: { 200: json(exampleListSchema, "The examples"), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { workspaceId } = c.req.valid("query");
      await workspaces.requireMember(workspaceId, caller.user_id);
      const items = await store.examples.listExamples(workspaceId);
      return c.json({ items, count: items.length }, 200);
    },
  );

  app.openapi(
    createRoute({
      ...examplesTag,
      method: "get",
      path: "/api/examples/{id}",
      summary: "Get an example post",
      request: { params: exampleIdParam, query: workspaceQuery },
      responses: { 200: json(exampleSchema, "The example"), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const { workspaceId } = c.req.valid("query");
      await workspaces.requireMember(workspaceId, caller.user_id);
      return c.json(await requireExample(workspaceId, id), 200);
    },
  );

  app.openapi(
    createRoute({
      ...examplesTag,
      method: "put",
      path: "/api/examples/{id}",
      summary: "Update an example post",
      request: { params: exampleIdParam, ...body(updateExampleBody) },
      responses: { 200: json(exampleSchema, "The example"), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const { workspace_id, ...changes } = c.req.valid("json");
      await workspaces.requireMember(workspace_id, caller.user_id);
      await requireExample(workspace_id, id);
      const updated = await store.examples.updateExample(workspace_id, id, (example) => {
        if (changes.title !== undefined) example.title = changes.title;
        if (changes.content !== undefined) example.content = changes.content;
        if (changes.tags !== undefined) example.tags = changes.tags;
        example.updated_at = nowIso();
        return example;
      });
      if (!updated) throw notFound(EXAMPLE_NOT_FOUND);
      return c.json(updated, 200);
    },
  );

  app.openapi(
    createRoute({
      ...examplesTag,
      method: "delete",
      path: "/api/examples/{id}",
      summary: "Delete an example post",
      request: { params: exampleIdParam, query: workspaceQuery },
      responses: { 200: json(deletedSchema, "Deleted"), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const { workspaceId } = c.req.valid("query");
      await workspaces.requireMember(workspaceId, caller.user_id);
      if (!await store.examples.deleteExample(workspaceId, id)) throw notFound(EXAMPLE_NOT_FOUND);
      return c.json({ deleted: true as const }, 200);
    },
  );
}
