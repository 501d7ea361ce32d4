/**
 * For the store tests beside this file (the app never imports it): points the stores at an
 * in-process Hono app and records what each request sent, so a test drives a store without a
 * browser or a running service.
 *
 *     using server = serve(new Hono().get("/api/ideas", (c) => c.json({ items: [] })));
 *     await loadIdeas("ws1");
 *     assertEquals(server.seen[0].query, { workspaceId: "ws1" });
 */
import type { Hono } from "hono";
import { createApiClient } from "../api/client.ts";
import { setApiClient } from "./api.ts";

export interface SeenRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Headers;
  body: unknown;
}

export function serve(app: Hono): { seen: SeenRequest[] } & Disposable {
  const seen: SeenRequest[] = [];
  const previous = setApiClient(createApiClient({
    baseUrl: "http://api.test",
    fetch: async (request) => {
      const url = new URL(request.url);
      const text = await request.clone().text();
      seen.push({
        method: request.method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: request.headers,
        body: text ? JSON.parse(text) : undefined,
      });
      return await app.fetch(request);
    },
  }));
  return { seen, [Symbol.dispose]: () => void setApiClient(previous) };
}
