import assert from "node:assert/strict";
import { createLogger } from "./log.ts";

/** The lines `fn` writes through console.log and console.error. */
function captured(fn: () => void): Record<string, unknown>[] {
  const lines: string[] = [];
  const { log, error } = console;
  console.log = console.error = (line: string) => lines.push(line);
  try {
    fn();
  } finally {
    Object.assign(console, { log, error });
  }
  return lines.map((line) => JSON.parse(line));
}

Deno.test("a logger writes its level and above, and its children keep the level", () => {
  const lines = captured(() => {
    const logger = createLogger("svc", { level: "warn", fields: { a: 1 } });
    logger.info("dropped");
    logger.warn("kept");
    const child = logger.child({ b: 2 });
    child.info("dropped too");
    child.error("kept too");
  });
  assert.deepEqual(lines.map((l) => [l.level, l.msg, l.service, l.a, l.b]), [
    ["warn", "kept", "svc", 1, undefined],
    ["error", "kept too", "svc", 1, 2],
  ]);
});

Deno.test("a logger given no level writes info and above", () => {
  const lines = captured(() => {
    const logger = createLogger("svc");
    logger.debug("dropped");
    logger.info("kept");
  });
  assert.deepEqual(lines.map((l) => l.msg), ["kept"]);
});
