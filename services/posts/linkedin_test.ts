import assert from "node:assert/strict";
import { escapeCommentary, retryAfterSeconds } from "./linkedin.ts";

Deno.test("commentary escapes each of LinkedIn's reserved characters with a backslash", () => {
  assert.equal(
    escapeCommentary("\\ | { } @ [ ] ( ) < > # * _ ~"),
    "\\\\ \\| \\{ \\} \\@ \\[ \\] \\( \\) \\< \\> \\# \\* \\_ \\~",
  );
  assert.equal(
    escapeCommentary("Plain text, 100% ok! ÄÖÜ 🚀 & $"),
    "Plain text, 100% ok! ÄÖÜ 🚀 & $",
  );
});

Deno.test("Retry-After: seconds or an HTTP date; absent or unreadable is null, not 0", () => {
  const now = Date.parse("2026-11-24T00:00:00Z");
  assert.equal(retryAfterSeconds(null, now), null);
  assert.equal(retryAfterSeconds("", now), null);
  assert.equal(retryAfterSeconds("soon", now), null);
  assert.equal(retryAfterSeconds("-1", now), null);
  assert.equal(retryAfterSeconds("0", now), 0);
  assert.equal(retryAfterSeconds(" 120 ", now), 120);
  assert.equal(retryAfterSeconds("Tue, 24 Nov 2026 00:01:30 GMT", now), 90);
  assert.equal(retryAfterSeconds("Mon, 23 Nov 2026 23:00:00 GMT", now), 0);
});
