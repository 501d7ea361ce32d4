import assert from "node:assert/strict";
import { nextFreeSlot, zonedInstant } from "./slots.ts";

const iso = (t: number | null) => t === null ? null : new Date(t).toISOString();

Deno.test("slots keep their wall-clock time across the spring-forward in Europe/Zurich", () => {
  // Sat 2026-03-28 12:00 Zurich (CET, +01:00); the clocks go forward on Sun 2026-03-29.
  const now = Date.parse("2026-03-28T11:00:00Z");
  assert.equal(iso(nextFreeSlot(["Mon 09:00"], "Europe/Zurich", now)), "2026-03-30T07:00:00.000Z");
  assert.equal(iso(nextFreeSlot(["Sat 09:00"], "Europe/Zurich", now)), "2026-04-04T07:00:00.000Z");
  assert.equal(iso(nextFreeSlot(["Sat 13:00"], "Europe/Zurich", now)), "2026-03-28T12:00:00.000Z");
  // 02:30 does not exist on 2026-03-29: the first minute after it that does
  assert.equal(iso(nextFreeSlot(["Sun 02:30"], "Europe/Zurich", now)), "2026-03-29T01:30:00.000Z");
});

Deno.test("slots keep their wall-clock time across the fall-back in Europe/Zurich", () => {
  // Sat 2026-10-24 (CEST, +02:00); the clocks go back on Sun 2026-10-25 at 03:00.
  const now = Date.parse("2026-10-24T10:00:00Z");
  assert.equal(iso(nextFreeSlot(["Mon 09:00"], "Europe/Zurich", now)), "2026-10-26T08:00:00.000Z");
  assert.equal(iso(nextFreeSlot(["Sat 18:00"], "Europe/Zurich", now)), "2026-10-24T16:00:00.000Z");
  // 02:30 happens twice on 2026-10-25: the first one (still +02:00)
  assert.equal(iso(nextFreeSlot(["Sun 02:30"], "Europe/Zurich", now)), "2026-10-25T00:30:00.000Z");
});

Deno.test("the next free slot skips taken slots and past ones; none without slots", () => {
  const now = Date.parse("2026-03-28T11:00:00Z");
  const first = nextFreeSlot(["Mon 09:00", "Sat 13:00"], "Europe/Zurich", now)!;
  assert.equal(iso(first), "2026-03-28T12:00:00.000Z");
  const second = nextFreeSlot(["Mon 09:00", "Sat 13:00"], "Europe/Zurich", now, new Set([first]));
  assert.equal(iso(second), "2026-03-30T07:00:00.000Z");
  assert.equal(nextFreeSlot([], "UTC", now), null);
  assert.equal(iso(nextFreeSlot(["Sat 11:00"], "UTC", now)), "2026-04-04T11:00:00.000Z");
  assert.equal(iso(nextFreeSlot(["Sat 11:01"], "UTC", now)), "2026-03-28T11:01:00.000Z");
  assert.equal(
    iso(zonedInstant("America/New_York", 2026, 3, 8, 2, 30)),
    "2026-03-08T07:30:00.000Z",
  );
});
