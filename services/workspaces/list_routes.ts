import { createRoute } from "@hono/zod-openapi";
import { bearer as security, body, err, json } from "../../shared/http/openapi.ts";
import { requireCaller, type ServiceApp } from "../../shared/http/service_app.ts";
import type { RouteDeps } from "./routes.ts";
import {
  itemsResponseSchema,
  type ListItem,
  type ListKind,
  putListBodySchemas,
  workspaceQuerySchema,
} from "./schemas.ts";
import { MESSAGES } from "../../shared/http/messages.ts";

/** Either PUT body: the list under the kind's own name. */
type PutListBody = { workspace_id: string } & Partial<Record<ListKind, ListItem[]>>;

const TAGS: Record<ListKind, string> = { audiences: "Audiences", languages: "Languages" };

/** The audience and language lists (spec: Audiences and languages): one pair of routes each. */
export function mountListRoutes(app: ServiceApp, { store }: RouteDeps): void {
  for (const kind of ["audiences", "languages"] as const) {
    app.openapi(
      createRoute({
        method: "get",
        path: `/api/${kind}`,
        tags: [TAGS[kind]],
        summary: `The workspace's ${kind}: the saved list, or the defaults (any member)`,
        security,
        request: { query: workspaceQuerySchema },
        responses: {
          200: json(itemsResponseSchema, `The ${kind}`),
          400: err("workspaceId missing or empty"),
          403: err(MESSAGES.notMember),
          404: err("Workspace soft-deleted"),
        },
      }),
      async (c) => {
        const caller = requireCaller(c);
        const { workspaceId } = c.req.valid("query");
        return c.json({ items: await store.getList(kind, workspaceId, caller.user_id) }, 200);
      },
    );

    app.openapi(
      createRoute({
        method: "put",
        path: `/api/${kind}`,
        tags: [TAGS[kind]],
        summary: `Replace the workspace's ${kind} (any member)`,
        security,
        request: body(putListBodySchemas[kind]),
        responses: {
          200: json(itemsResponseSchema, "What was saved"),
          400: err("workspace_id missing or empty, or the list invalid"),
          403: err(MESSAGES.notMember),
          404: err("Workspace soft-deleted"),
        },
      }),
      async (c) => {
        const caller = requireCaller(c);
        const input: PutListBody = c.req.valid("json");
        const items = await store.saveList(
          kind,
          input.workspace_id,
          caller.user_id,
          input[kind] ?? [],
        );
        return c.json({ items }, 200);
      },
    );
  }
}
