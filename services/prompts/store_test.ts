import assert from "node:assert/strict";
import { PromptsStore } from "./store.ts";

async function withStore(fn: (store: PromptsStore) => Promise<void>) {
  const kv = await Deno.openKv(":memory:");
  try {
    await fn(new PromptsStore(kv));
  } finally {
    kv.close();
  }
}

const input = (created_by = "u1", workspace_id = "ws1") => ({
  workspace_id,
  name: "P",
  system_instruction: "S",
  user_template: "U {idea_title}",
  tone: "professional" as const,
  default_audience: null,
  default_language: null,
  created_by,
});

Deno.test("prompts store never has two defaults for one creator, even under racing calls", async () => {
  await withStore(async (store) => {
    const prompts = await Promise.all(Array.from({ length: 8 }, () => store.create(input())));
    await Promise.all(prompts.map((p) => store.setDefault("ws1", p.prompt_id)));
    const listed = await store.listByCreator("ws1", "u1");
    assert.equal(listed.filter((p) => p.is_default).length, 1);
  });
});

Deno.test("prompts store refuses to delete a creator's last prompt, even under racing deletes", async () => {
  await withStore(async (store) => {
    const a = await store.create(input());
    const b = await store.create(input());
    await store.create(input("u2"));
    const results = await Promise.all([
      store.delete("ws1", a.prompt_id),
      store.delete("ws1", b.prompt_id),
    ]);
    assert.deepEqual(results.sort(), ["deleted", "last_prompt"]);
    assert.equal((await store.listByCreator("ws1", "u1")).length, 1);
  });
});

Deno.test("deleting the default prompt clears the creator's default", async () => {
  await withStore(async (store) => {
    const a = await store.create(input());
    await store.create(input());
    await store.setDefault("ws1", a.prompt_id);
    assert.equal((await store.getDefault("ws1", "u1"))?.prompt_id, a.prompt_id);
    assert.equal(await store.delete("ws1", a.prompt_id), "deleted");
    assert.equal(await store.getDefault("ws1", "u1"), null);
  });
});
