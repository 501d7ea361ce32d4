import { createRoute, type RouteConfig, z } from "@hono/zod-openapi";
import { bearer, body, errors, json } from "../../shared/http/openapi.ts";
import { requireCaller, type ServiceApp } from "../../shared/http/service_app.ts";
import type { WorkspacesClient } from "../workspaces/client.ts";
import type { ReviewLinkOperations } from "./review_links.ts";
import {
  ID_MAX,
  mediaWithUrlSchema,
  NOTE_MAX,
  postIdParam,
  REVIEW_DECISIONS,
  workspaceQuery,
} from "./schemas.ts";

const createBody = z.object({
  workspace_id: z.string({ error: "workspace_id is required" }).trim().min(
    1,
    "workspace_id is required",
  ).max(ID_MAX, `workspace_id is longer than ${ID_MAX} characters`),
  reviewer_name: z.string({ error: "reviewer_name is required" }).trim().min(
    1,
    "reviewer_name is required",
  ).max(100, "reviewer_name is longer than 100 characters"),
  expires_in_hours: z.number({ error: "expires_in_hours must be a whole number from 1 to 336" })
    .int("expires_in_hours must be a whole number from 1 to 336")
    .min(1, "expires_in_hours must be a whole number from 1 to 336")
    .max(336, "expires_in_hours must be a whole number from 1 to 336").default(72),
}).openapi("CreateReviewLinkRequest");

const decisionBody = z.object({
  decision: z.enum(REVIEW_DECISIONS, { error: "decision must be approve or request_changes" }),
  note: z.string({ error: "note must be a string" }).max(
    NOTE_MAX,
    `note is longer than ${NOTE_MAX} characters`,
  ).nullable().optional(),
}).openapi("ReviewLinkDecisionRequest");

const linkParams = z.object({
  id: z.string().min(1).max(ID_MAX).openapi({ param: { name: "id", in: "path" } }),
  link_id: z.string().min(1).max(ID_MAX).openapi({ param: { name: "link_id", in: "path" } }),
});
/**
 * Any value is a token to look up: one that is not a review link's (another credential, a
 * mistyped or over-long one) is unknown, 404 like an expired one, never a 400 about its shape.
 */
const tokenParam = z.object({
  token: z.string().min(1).openapi({ param: { name: "token", in: "path" } }),
});

const linkSummary = z.object({
  link_id: z.string(),
  reviewer_name: z.string(),
  expires_at: z.string(),
  decided_at: z.string().nullable(),
  decision: z.enum(REVIEW_DECISIONS).nullable(),
}).openapi("ReviewLink");

const reviewView = z.object({
  workspace_name: z.string(),
  reviewer_name: z.string(),
  expires_at: z.string(),
  decision: z.enum(REVIEW_DECISIONS).nullable(),
  post: z.object({
    title: z.string(),
    content: z.string(),
    media: z.array(mediaWithUrlSchema),
    first_comment: z.string().nullable(),
  }),
}).openapi("ReviewLinkView");

const secured = { tags: ["Review links"], security: bearer } satisfies Partial<RouteConfig>;
const open = { tags: ["Review links"] } satisfies Partial<RouteConfig>;

/**
 * Review links: made, listed and revoked by the workspace (owner or editor to make and revoke),
 * opened and decided by the outside reviewer with the token alone (no account).
 */
export function mountReviewLinkRoutes(
  app: ServiceApp,
  { links, workspaces }: { links: ReviewLinkOperations; workspaces: WorkspacesClient },
): void {
  app.openapi(
    createRoute({
      ...secured,
      method: "post",
      path: "/api/posts/{id}/review-links",
      summary: "Make a review link for a named reviewer without an account (owner or editor)",
      description: "Only a hash of the token is kept. The link dies on expiry, on revoke and " +
        "when what the post holds changes after it was made.",
      request: { params: postIdParam, ...body(createBody) },
      responses: {
        201: json(
          z.object({ link_id: z.string(), url: z.string(), expires_at: z.string() }),
          "The link",
        ),
        ...errors(400, 401, 403, 404, 409),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { workspace_id, ...input } = c.req.valid("json");
      return c.json(await links.create(caller, workspace_id, c.req.valid("param").id, input), 201);
    },
  );

  app.openapi(
    createRoute({
      ...secured,
      method: "get",
      path: "/api/posts/{id}/review-links",
      summary: "A post's review links, oldest first",
      request: { params: postIdParam, query: workspaceQuery },
      responses: {
        200: json(
          z.object({ items: z.array(linkSummary), count: z.number().int() }),
          "The links",
        ),
        ...errors(400, 401, 403, 404),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { workspaceId } = c.req.valid("query");
      await workspaces.requireMember(workspaceId, caller.user_id);
      return c.json(await links.list(workspaceId, c.req.valid("param").id), 200);
    },
  );

  app.openapi(
    createRoute({
      ...secured,
      method: "delete",
      path: "/api/posts/{id}/review-links/{link_id}",
      summary: "Revoke a review link (owner or editor)",
      request: { params: linkParams, query: workspaceQuery },
      responses: { 204: { description: "Revoked" }, ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { workspaceId } = c.req.valid("query");
      const { id, link_id } = c.req.valid("param");
      await links.revoke(caller, workspaceId, id, link_id);
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      ...open,
      method: "get",
      path: "/api/review-links/{token}",
      summary: "What an outside reviewer sees (no authentication: the token is the credential)",
      description: "404 `Review link not found or expired` for an unknown, revoked, expired or " +
        "outdated link, or one whose workspace was deleted; at most 30 requests a minute per link (429).",
      request: { params: tokenParam },
      responses: { 200: json(reviewView, "The post to review"), ...errors(404, 429) },
    }),
    async (c) => c.json(await links.view(c.req.valid("param").token), 200),
  );

  app.openapi(
    createRoute({
      ...open,
      method: "post",
      path: "/api/review-links/{token}/decision",
      summary: "The outside reviewer's decision, once (no authentication)",
      description: "Approve counts as one approval (`external: true`); request_changes sends " +
        "the post to draft. A second decision is 409.",
      request: { params: tokenParam, ...body(decisionBody) },
      responses: {
        200: json(z.object({ decision: z.enum(REVIEW_DECISIONS) }), "Recorded"),
        ...errors(400, 404, 409, 429),
      },
    }),
    async (c) => {
      const { decision, note } = c.req.valid("json");
      return c.json(await links.decide(c.req.valid("param").token, decision, note ?? null), 200);
    },
  );
}
