import assert from "node:assert/strict";
import { strToU8, unzipSync, zipSync } from "fflate";
import { readZip, ZipFormatError, ZipWriter } from "./zip.ts";

async function build(entries: [string, Uint8Array, boolean][]): Promise<Uint8Array> {
  const tmpDir = await Deno.makeTempDir();
  try {
    const writer = new ZipWriter(tmpDir);
    const parts: Uint8Array[] = [];
    for (const [name, data, deflate] of entries) {
      for await (const chunk of writer.add(name, ReadableStream.from([data]), { deflate })) {
        parts.push(chunk);
      }
    }
    for (const chunk of writer.finish()) parts.push(chunk);
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) out.set(p, (at += p.length) - p.length);
    assert.equal(out.length, writer.size);
    return out;
  } finally {
    await Deno.remove(tmpDir, { recursive: true });
  }
}

async function readAll(bytes: Uint8Array): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  await readZip(ReadableStream.from([bytes]), {
    open(name) {
      const parts: Uint8Array[] = [];
      return {
        write: (c) => void parts.push(c.slice()),
        close: () => void out.set(name, new Uint8Array(parts.flatMap((p) => [...p]))),
      };
    },
  });
  return out;
}

Deno.test("a written archive reads back exactly, streamed and with fflate's unzipSync", async () => {
  // Random bytes with the data-descriptor signature inside, which fools signature scanning.
  const random = new Uint8Array(200_000);
  for (let i = 0; i < random.length; i += 65536) {
    crypto.getRandomValues(random.subarray(i, i + 65536));
  }
  random.set([0x50, 0x4b, 0x07, 0x08], 1000);
  const entries: [string, Uint8Array, boolean][] = [
    ["kv/auth.ndjson", strToU8('{"k":["a"],"v":1}\n'.repeat(5000)), true],
    ["assets/x/ü.bin", random, false],
    ["empty.txt", new Uint8Array(0), true],
  ];
  const zip = await build(entries);
  const streamed = await readAll(zip);
  const sync = unzipSync(zip);
  for (const [name, data] of entries) {
    assert.deepEqual(streamed.get(name), data, name);
    assert.deepEqual(sync[name], data, name);
  }
});

Deno.test("bytes that are not a ZIP are refused", async () => {
  await assert.rejects(
    () => readAll(strToU8("this is not a zip archive")),
    (err) => err instanceof ZipFormatError && /not a ZIP/.test(err.message),
  );
  const truncated = zipSync({ "a.txt": strToU8("x".repeat(10_000)) }, { level: 0 }).slice(0, 200);
  await assert.rejects(() => readAll(truncated), ZipFormatError);
});
