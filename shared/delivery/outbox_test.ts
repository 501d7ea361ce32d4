import assert from "node:assert/strict";
import { appendOutbox } from "./outbox.ts";
import { buildMessage } from "./templates.ts";

Deno.test("appendOutbox creates the missing directory and writes one JSON line", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/a/b/outbox.jsonl`;
    const message = buildMessage("email", "x@example.test", "confirm_email", { code: "111111" });
    const entry = await appendOutbox(file, message);
    const text = await Deno.readTextFile(file);
    assert.equal(text, JSON.stringify(entry) + "\n");
    assert.deepEqual(JSON.parse(text), { ...message, at: entry.at });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("concurrent appends never interleave within a line", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/outbox.jsonl`;
    const big = "x".repeat(20_000);
    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        appendOutbox(
          file,
          buildMessage(i % 2 ? "dm" : "email", `u${i}@example.test`, "post_comment_added", {
            n: i,
            excerpt: big,
          }),
        )),
    );
    const lines = (await Deno.readTextFile(file)).split("\n");
    assert.equal(lines.pop(), "");
    assert.equal(lines.length, 100);
    const seen = lines.map((l) => JSON.parse(l).data.n).sort((a, b) => a - b);
    assert.deepEqual(seen, Array.from({ length: 100 }, (_, i) => i));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("appends from another process land on their own lines too", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/outbox.jsonl`;
    const script = `
      import { appendOutbox } from ${JSON.stringify(new URL("./outbox.ts", import.meta.url).href)};
      const tag = Deno.args[0];
      await Promise.all(Array.from({ length: 50 }, (_, i) => appendOutbox(${JSON.stringify(file)}, {
        channel: "email", to: tag + i + "@example.test", template: "confirm_email",
        subject: "s", text: "y".repeat(8000), data: { tag, i },
      })));
    `;
    const run = (tag: string) =>
      new Deno.Command(Deno.execPath(), { args: ["eval", script, tag], stdout: "null" }).output();
    const results = await Promise.all([run("p"), run("q")]);
    for (const r of results) assert.ok(r.success, new TextDecoder().decode(r.stderr));
    const lines = (await Deno.readTextFile(file)).split("\n").filter(Boolean);
    assert.equal(lines.length, 100);
    for (const line of lines) JSON.parse(line);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
