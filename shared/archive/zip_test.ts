import assert from "node:assert/strict";
import { strToU8, unzipSync, Zip, ZipDeflate, ZipPassThrough, zipSync } from "fflate";
import { readZip } from "./zip_reader.ts";
import { ZipFormatError } from "./zip_format.ts";
import { ZipWriter } from "./zip_writer.ts";

async function build(entries: [string, Uint8Array, boolean][]): Promise<Uint8Array> {
  const tmpDir = await Deno.makeTempDir();
  try {
    const writer = new ZipWriter(tmpDir);
    const parts: Uint8Array[] = [];
    for (const [name, data, deflate] of entries) {
      for await (const chunk of writer.add(name, ReadableStream.from([data]), { deflate })) {
        parts.push(chunk.slice()); // lent: valid until the generator resumes
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

function randomBytes(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i += 65536) crypto.getRandomValues(out.subarray(i, i + 65536));
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

Deno.test("an archive with data descriptors (fflate's streaming Zip) reads back", async () => {
  const parts: Uint8Array[] = [];
  const zip = new Zip((err, chunk) => {
    if (err) throw err;
    parts.push(chunk);
  });
  const text = strToU8("line of text\n".repeat(20_000));
  const random = crypto.getRandomValues(new Uint8Array(50_000));
  const deflated = new ZipDeflate("kv/ideas.ndjson", { level: 6 });
  zip.add(deflated);
  deflated.push(text.subarray(0, 100_000));
  deflated.push(text.subarray(100_000), true);
  const stored = new ZipPassThrough("assets/a.pdf");
  zip.add(stored);
  stored.push(random, true);
  zip.end();
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) at += (bytes.set(p, at), p.length);
  const read = await readAll(bytes);
  assert.deepEqual(read.get("kv/ideas.ndjson"), text);
  assert.deepEqual(read.get("assets/a.pdf"), random);
});

Deno.test("reading waits for a slow sink: the source is never read far ahead", async () => {
  // 20 entries of 128 KiB stored; a sink that takes 1 ms per chunk.
  const entries: [string, Uint8Array, boolean][] = [];
  for (let i = 0; i < 20; i++) {
    entries.push([`assets/${i}.bin`, randomBytes(128 * 1024), false]);
  }
  const zip = await build(entries);
  const CHUNK = 64 * 1024;
  let pulled = 0;
  let delivered = 0;
  let worstLead = 0;
  const source = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= zip.length) return controller.close();
      controller.enqueue(zip.slice(pulled, pulled + CHUNK));
      pulled += CHUNK;
    },
  }, { highWaterMark: 0 });
  await readZip(source, {
    open: () => ({
      async write(chunk) {
        delivered += chunk.length;
        worstLead = Math.max(worstLead, pulled - delivered);
        await new Promise((r) => setTimeout(r, 1));
      },
      close() {},
    }),
  });
  assert.equal(delivered, 20 * 128 * 1024);
  // Headers aside, what was read and not yet delivered is at most about one source chunk.
  assert.ok(worstLead <= CHUNK + 20 * 100, `read ${worstLead} bytes ahead of the sinks`);
});

Deno.test("an archive cut in the middle of an entry is refused", async () => {
  const zip = await build([[
    "assets/a.bin",
    crypto.getRandomValues(new Uint8Array(60_000)),
    false,
  ]]);
  await assert.rejects(() => readAll(zip.slice(0, 30_000)), ZipFormatError);
});

Deno.test("a stored entry written from two reads (CRC, then bytes) reads back exactly", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const data = randomBytes(300_000);
    const path = `${dir}/asset.bin`;
    await Deno.writeFile(path, data);
    const writer = new ZipWriter(dir);
    const parts: Uint8Array[] = [];
    let opened = 0;
    const open = async () => (opened++, (await Deno.open(path)).readable);
    const gen = writer.addStored("assets/a.bin", open);
    let step = await gen.next();
    while (!step.done) {
      parts.push(step.value.slice());
      step = await gen.next();
    }
    assert.equal(step.value, data.length);
    assert.equal(opened, 2);
    const gone = writer.addStored("assets/gone.bin", () => Promise.resolve(null));
    assert.deepEqual(await gone.next(), { done: true, value: null });
    parts.push(...writer.finish());
    const zip = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) zip.set(p, (at += p.length) - p.length);
    assert.deepEqual(unzipSync(zip)["assets/a.bin"], data);
    assert.deepEqual((await readAll(zip)).get("assets/a.bin"), data);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a stored entry whose source changes between its two reads fails the archive", async () => {
  const writer = new ZipWriter("/nonexistent/never-used"); // addStored spools nothing
  let reads = 0;
  const open = () => {
    const bytes = new Uint8Array(1000).fill(reads++ === 0 ? 1 : 2);
    return Promise.resolve(ReadableStream.from([bytes]));
  };
  await assert.rejects(async () => {
    for await (const _ of writer.addStored("assets/a.bin", open)) { /* drain */ }
  }, /changed while the backup was written/);
});

Deno.test("a deflated entry with corrupt or cut data is refused, and its inflater is closed", async () => {
  const data = strToU8('{"k":["a"],"v":1}\n'.repeat(20_000));
  const zip = await build([["kv/auth.ndjson", data, true]]);
  const corrupt = zip.slice();
  // Past the 30-byte header and the name: the deflate stream's first bytes.
  corrupt.fill(0xff, 30 + "kv/auth.ndjson".length, 30 + "kv/auth.ndjson".length + 8);
  await assert.rejects(() => readAll(corrupt), ZipFormatError);
  // Cut inside the compressed data: the entry never ends.
  await assert.rejects(() => readAll(zip.slice(0, 200)), ZipFormatError);
});

Deno.test("an error from onBytes while inflating comes out as it is", async () => {
  class TooBig extends Error {}
  const zip = await build([["kv/a.ndjson", strToU8("x".repeat(1_000_000)), true]]);
  let total = 0;
  let closed = false;
  await assert.rejects(
    () =>
      readZip(ReadableStream.from([zip]), {
        onBytes(n) {
          total += n;
          if (total > 100_000) throw new TooBig("past the bound");
        },
        open: () => ({ write() {}, close: () => void (closed = true) }),
      }),
    TooBig,
  );
  assert.equal(closed, false, "an entry that failed is not closed as if complete");
});
