import { createRoute, type RouteConfig, z } from "@hono/zod-openapi";
import { bearer, body, errors, json } from "../../shared/http/openapi.ts";
import { requireCaller, type ServiceApp } from "../../shared/http/service_app.ts";
import type { WorkspacesClient } from "../workspaces/client.ts";
import { workspaceCalendar } from "./calendar.ts";
import type { ReviewOperations } from "./review.ts";
import {
  calendarQuery,
  calendarSchema,
  ID_MAX,
  postIdParam,
  postSchema,
  saveVersionBody,
  versionListSchema,
  versionParams,
  versionSchema,
  versionSummarySchema,
  workspaceBody,
  workspaceQuery,
} from "./schemas.ts";
import type { PostsStore } from "./store.ts";
import type { VersionOperations } from "./versions.ts";

const wsParam = z.object({
  id: z.string().min(1).max(ID_MAX, `id is longer than ${ID_MAX} characters`)
    .openapi({ param: { name: "id", in: "path" } }),
});
const planning = { tags: ["Planning"], security: bearer } satisfies Partial<RouteConfig>;

/** The calendar of a workspace and the versions of a post. Membership first (403). */
export function mountPlanningRoutes(
  app: ServiceApp,
  deps: {
    store: PostsStore;
    review: ReviewOperations;
    workspaces: WorkspacesClient;
    versions: VersionOperations;
  },
): void {
  const { workspaces, versions } = deps;

  app.openapi(
    createRoute({
      ...planning,
      method: "get",
      path: "/api/workspaces/{id}/calendar",
      summary: "A workspace's calendar: scheduled and published posts, and free publishing slots",
      description: "`from` and `to` are days (YYYY-MM-DD, `to` included, at most 62 days) in " +
        "the workspace's time zone. Items are sorted by `at`; a slot is a publishing slot no " +
        "scheduled post takes. Reschedule with `POST /api/posts/{id}/schedule` and `at`.",
      request: { params: wsParam, query: calendarQuery },
      responses: { 200: json(calendarSchema, "The calendar"), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const { from, to } = c.req.valid("query");
      await workspaces.requireMember(id, caller.user_id);
      return c.json(await workspaceCalendar(deps, id, from, to), 200);
    },
  );

  app.openapi(
    createRoute({
      ...planning,
      method: "get",
      path: "/api/posts/{id}/versions",
      summary: "A post's versions, newest first: at each approval, publication, save and restore",
      request: { params: postIdParam, query: workspaceQuery },
      responses: { 200: json(versionListSchema, "The versions"), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { workspaceId } = c.req.valid("query");
      await workspaces.requireMember(workspaceId, caller.user_id);
      return c.json(await versions.list(workspaceId, c.req.valid("param").id), 200);
    },
  );

  app.openapi(
    createRoute({
      ...planning,
      method: "post",
      path: "/api/posts/{id}/versions",
      summary: "Save a version of what the post holds now (any member)",
      request: { params: postIdParam, ...body(saveVersionBody) },
      responses: {
        201: json(versionSummarySchema, "The version"),
        ...errors(400, 401, 403, 404),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { workspace_id, label } = c.req.valid("json");
      await workspaces.requireMember(workspace_id, caller.user_id);
      return c.json(
        await versions.save(caller, workspace_id, c.req.valid("param").id, label ?? null),
        201,
      );
    },
  );

  app.openapi(
    createRoute({
      ...planning,
      method: "get",
      path: "/api/posts/{id}/versions/{version_id}",
      summary: "One version with what it would publish: text, media, first comment, author",
      request: { params: versionParams, query: workspaceQuery },
      responses: { 200: json(versionSchema, "The version"), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { workspaceId } = c.req.valid("query");
      const { id, version_id } = c.req.valid("param");
      await workspaces.requireMember(workspaceId, caller.user_id);
      return c.json(await versions.get(workspaceId, id, version_id), 200);
    },
  );

  app.openapi(
    createRoute({
      ...planning,
      method: "post",
      path: "/api/posts/{id}/versions/{version_id}/restore",
      summary: "Restore a version (owner or editor): every open editor sees its text at once; " +
        "like any change, it withdraws an approval",
      request: { params: versionParams, ...body(workspaceBody) },
      responses: { 200: json(postSchema, "The post"), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { workspace_id } = c.req.valid("json");
      const { id, version_id } = c.req.valid("param");
      return c.json(await versions.restore(caller, workspace_id, id, version_id), 200);
    },
  );
}
