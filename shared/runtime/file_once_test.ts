import assert from "node:assert/strict";
import { readOrCreateTextFile } from "./file_once.ts";

Deno.test("a file made by many at once holds one maker's whole text, and every one reads it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/key`;
    const texts = await Promise.all(
      Array.from({ length: 20 }, (_, i) => readOrCreateTextFile(path, () => `text ${i}\n`, 0o600)),
    );
    assert.equal(new Set(texts).size, 1);
    assert.match(texts[0], /^text \d+\n$/);
    assert.equal(await Deno.readTextFile(path), texts[0]);
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    // Nothing else is left beside it.
    const names = [];
    for await (const entry of Deno.readDir(dir)) names.push(entry.name);
    assert.deepEqual(names, ["key"]);
    assert.equal(await readOrCreateTextFile(path, () => "other", 0o600), texts[0]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
