import assert from "node:assert/strict";
import { createRoute, z } from "@hono/zod-openapi";
import { createLogger } from "../log.ts";
import { AppError } from "./app_error.ts";
import { CALLER_HEADER, encodeCaller, INTERNAL_SECRET_HEADER } from "./identity.ts";
import { createServiceApp, requireCaller } from "./service_app.ts";

const SECRET = "0123456789abcdef-secret";

function testApp() {
  const app = createServiceApp({ logger: createLogger("test"), internalSecret: SECRET });
  app.openapi(
    createRoute({
      method: "post",
      path: "/things",
      request: {
        body: {
          content: {
            "application/json": {
              schema: z.object({ name: z.string().min(1), count: z.number() }),
            },
          },
        },
      },
      responses: { 201: { description: "created" } },
    }),
    (c) => c.json({ ok: true, body: c.req.valid("json") }, 201),
  );
  app.get("/me", (c) => c.json(requireCaller(c)));
  app.get("/teapot", () => {
    throw new AppError(409, "Already there");
  });
  app.get("/boom", () => {
    throw new Error("secret detail");
  });
  return app;
}

const headers = (extra: Record<string, string> = {}) => ({
  [INTERNAL_SECRET_HEADER]: SECRET,
  ...extra,
});

Deno.test("a request without the internal secret is refused with 401", async () => {
  const app = testApp();
  const res = await app.request("/me");
  assert.equal(res.status, 401);
  assert.deepEqual(await res.json(), { error: "Unauthorized" });
  const wrong = await app.request("/me", { headers: { [INTERNAL_SECRET_HEADER]: "nope" } });
  assert.equal(wrong.status, 401);
});

Deno.test("the caller comes only from the identity header the gateway set", async () => {
  const app = testApp();
  assert.equal((await app.request("/me", { headers: headers() })).status, 401);
  const caller = {
    user_id: "u1",
    email: "a@b.c",
    name: "A",
    role: "member" as const,
    approved: true,
  };
  const res = await app.request("/me", {
    headers: headers({ [CALLER_HEADER]: encodeCaller(caller) }),
  });
  assert.deepEqual(await res.json(), caller);
});

Deno.test("bad bodies answer 400 naming the field, never 500", async () => {
  const app = testApp();
  const post = (body: string) =>
    app.request("/things", {
      method: "POST",
      headers: headers({ "content-type": "application/json" }),
      body,
    });
  let res = await post(JSON.stringify({ count: 1 }));
  assert.equal(res.status, 400);
  assert.equal((await res.json()).error, "name is required");
  res = await post(JSON.stringify({ name: "x", count: "one" }));
  assert.equal(res.status, 400);
  assert.match((await res.json()).error, /^count/);
  res = await post("{not json");
  assert.equal(res.status, 400);
  assert.ok((await res.json()).error);
  res = await post(JSON.stringify({ name: "x", count: 2 }));
  assert.equal(res.status, 201);
});

Deno.test("bodies over 1 MiB answer 413", async () => {
  const app = testApp();
  const res = await app.request("/things", {
    method: "POST",
    headers: headers({ "content-type": "application/json" }),
    body: JSON.stringify({ name: "x".repeat(1024 * 1024 + 10), count: 1 }),
  });
  assert.equal(res.status, 413);
  assert.ok((await res.json()).error);
});

Deno.test("AppError maps to its status and anything else to a 500 without details", async () => {
  const app = testApp();
  const conflict = await app.request("/teapot", { headers: headers() });
  assert.equal(conflict.status, 409);
  assert.deepEqual(await conflict.json(), { error: "Already there" });
  const boom = await app.request("/boom", { headers: headers() });
  assert.equal(boom.status, 500);
  assert.deepEqual(await boom.json(), { error: "Internal server error" });
});
