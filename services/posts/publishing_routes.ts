import { createRoute, type RouteConfig, z } from "@hono/zod-openapi";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { AppError } from "../../shared/http/app_error.ts";
import { bearer, body, err, errors, json } from "../../shared/http/openapi.ts";
import { requireCaller, type ServiceApp } from "../../shared/http/service_app.ts";
import {
  CONNECT_COOKIE,
  CONNECT_COOKIE_PATH,
  type LinkedInConnections,
} from "./linkedin_connections.ts";
import type { Scheduling } from "./scheduling.ts";
import {
  ID_MAX,
  postIdParam,
  postSchema,
  scheduleBody,
  workspaceBody,
  workspaceQuery,
} from "./schemas.ts";

const tag = { tags: ["Publishing"], security: bearer } satisfies Partial<RouteConfig>;

const wsParam = z.object({
  id: z.string().min(1).max(ID_MAX, `id is longer than ${ID_MAX} characters`)
    .openapi({ param: { name: "id", in: "path" } }),
});

const connectionSchema = z.object({
  connected: z.boolean(),
  name: z.string().nullable(),
  member_urn: z.string().nullable(),
  expires_at: z.string().nullable(),
  connected_by: z.string().nullable(),
  organizations: z.array(z.object({ urn: z.string(), name: z.string() })).openapi({
    description: "The pages the member administers (empty unless LINKEDIN_ORGANIZATIONS=true)",
  }),
}).openapi("LinkedInConnection");

/** The LinkedIn connection, scheduling and publishing routes. */
export function mountPublishingRoutes(
  app: ServiceApp,
  { connections, scheduling }: { connections: LinkedInConnections; scheduling: Scheduling },
  options: { secureCookie: boolean },
): void {
  const cookie = {
    path: CONNECT_COOKIE_PATH,
    httpOnly: true,
    secure: options.secureCookie,
    // Lax: the cookie must come back on LinkedIn's top-level redirect to the callback.
    sameSite: "Lax",
  } as const;
  app.openapi(
    createRoute({
      ...tag,
      method: "post",
      path: "/api/workspaces/{id}/linkedin/connect",
      summary: "Start connecting LinkedIn (owner or editor): LinkedIn's authorization URL",
      description: "Also sets an HttpOnly cookie that binds the authorization to this browser: " +
        "the callback refuses (400) a browser without it, so the URL is of no use to anyone else.",
      request: { params: wsParam },
      responses: {
        200: json(z.object({ authorize_url: z.string() }).openapi("LinkedInConnect"), "Go there"),
        ...errors(401, 403, 404, 503),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const started = await connections.connect(caller, c.req.valid("param").id);
      setCookie(c, CONNECT_COOKIE, started.nonce, { ...cookie, maxAge: started.max_age_seconds });
      return c.json({ authorize_url: started.authorize_url }, 200);
    },
  );

  app.openapi(
    createRoute({
      tags: ["Publishing"],
      method: "get",
      path: "/oauth/linkedin/callback",
      summary: "LinkedIn's redirect back (no JWT): stores the connection, then 302 to settings",
      request: {
        query: z.object({
          code: z.string().max(2000, "code is too long").optional().openapi({
            description: "Absent when LinkedIn reports an `error` instead",
          }),
          state: z.string({ error: "state is required" }).min(1, "state is required").max(
            200,
            "state is too long",
          ),
          error: z.string().optional(),
        }),
      },
      responses: {
        302: { description: "To /workspaces/{id}/settings" },
        400: err(
          "state unknown, used, expired or started in another browser; LinkedIn reported an error; or the exchange failed",
        ),
        403: err("The member who started the connection may no longer connect it"),
      },
    }),
    async (c) => {
      const { code, state, error } = c.req.valid("query");
      if (error && !code) {
        throw new AppError(400, `LinkedIn authorization failed: ${error}`.slice(0, 200));
      }
      const nonce = getCookie(c, CONNECT_COOKIE);
      const workspaceId = await connections.callback(code ?? "", state ?? "", nonce);
      deleteCookie(c, CONNECT_COOKIE, cookie);
      return c.redirect(`/workspaces/${encodeURIComponent(workspaceId)}/settings`, 302);
    },
  );

  app.openapi(
    createRoute({
      ...tag,
      method: "get",
      path: "/api/workspaces/{id}/linkedin",
      summary: "The workspace's LinkedIn connection (never its token)",
      request: { params: wsParam },
      responses: { 200: json(connectionSchema, "The connection"), ...errors(401, 403, 404) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      return c.json(await connections.connectionView(caller, c.req.valid("param").id), 200);
    },
  );

  app.openapi(
    createRoute({
      ...tag,
      method: "delete",
      path: "/api/workspaces/{id}/linkedin",
      summary: "Disconnect LinkedIn (owner or editor)",
      request: { params: wsParam },
      responses: { 204: { description: "Disconnected" }, ...errors(401, 403, 404) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      await connections.disconnect(caller, c.req.valid("param").id);
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      ...tag,
      method: "post",
      path: "/api/posts/{id}/schedule",
      summary: "Schedule the post at `at`, or in the next free publishing slot",
      request: { params: postIdParam, ...body(scheduleBody) },
      responses: {
        200: json(postSchema, "The post, scheduled"),
        ...errors(400, 401, 403, 404, 409),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const input = c.req.valid("json");
      return c.json(await scheduling.schedule(caller, input.workspace_id, id, input.at), 200);
    },
  );

  app.openapi(
    createRoute({
      ...tag,
      method: "delete",
      path: "/api/posts/{id}/schedule",
      summary: "Cancel the schedule: back to approved (or draft without approval required)",
      request: { params: postIdParam, query: workspaceQuery },
      responses: { 200: json(postSchema, "The post"), ...errors(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const { workspaceId } = c.req.valid("query");
      return c.json(await scheduling.unschedule(caller, workspaceId, id), 200);
    },
  );

  app.openapi(
    createRoute({
      ...tag,
      method: "post",
      path: "/api/posts/{id}/publish",
      summary: "Publish now: the same as scheduling at the current time",
      request: { params: postIdParam, ...body(workspaceBody) },
      responses: {
        202: json(postSchema, "The post, scheduled now"),
        ...errors(400, 401, 403, 404, 409),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const { workspace_id } = c.req.valid("json");
      return c.json(await scheduling.schedule(caller, workspace_id, id, null, true), 202);
    },
  );
}
