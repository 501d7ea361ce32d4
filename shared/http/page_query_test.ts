import assert from "node:assert/strict";
import { z } from "@hono/zod-openapi";
import { AppError } from "./app_error.ts";
import { decodeCursor, encodeCursor, pageQueryFields, pageRequest } from "./page_query.ts";

const query = z.object(pageQueryFields("ideas"));

Deno.test("a cursor names its position and only its own list reads it", () => {
  const cursor = encodeCursor("ideas", ["01JABCDEF"]);
  assert.match(cursor, /^[A-Za-z0-9_-]+$/);
  assert.deepEqual(decodeCursor("ideas", cursor), ["01JABCDEF"]);
  assert.equal(decodeCursor("posts", cursor), null);
});

Deno.test("a cut, edited or made-up cursor is refused", () => {
  const cursor = encodeCursor("ideas", ["01JABCDEF"]);
  const flipped = cursor.slice(0, 3) + (cursor[3] === "A" ? "B" : "A") + cursor.slice(4);
  for (const bad of [cursor.slice(0, -2), flipped, "abc", "", "!!!!", "x".repeat(2000)]) {
    assert.equal(decodeCursor("ideas", bad), null, bad);
  }
  const made = new TextEncoder().encode(JSON.stringify({ not: "a position" }));
  assert.equal(decodeCursor("ideas", made.toBase64({ alphabet: "base64url" })), null);
});

Deno.test("limit must be an integer from 1 to 200 and cursor one the list gave", () => {
  for (const limit of ["0", "201", "abc", "1.5", "", "-3"]) {
    const r = query.safeParse({ limit });
    assert.equal(r.success, false, limit);
    assert.equal(r.error?.issues[0].message, "limit must be an integer from 1 to 200");
  }
  assert.deepEqual(query.parse({ limit: "200" }), { limit: 200 });
  assert.equal(query.safeParse({ limit: "5", cursor: "nope" }).success, false);
  const cursor = encodeCursor("ideas", ["x"]);
  assert.deepEqual(pageRequest("ideas", query.parse({ limit: "5", cursor })), {
    limit: 5,
    after: ["x"],
  });
  assert.equal(pageRequest("ideas", query.parse({})), null);
  assert.throws(
    () => pageRequest("ideas", query.parse({ cursor })),
    (e) => e instanceof AppError && e.status === 400,
  );
});
