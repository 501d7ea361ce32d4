import { retryCommit } from "../../../shared/kv/kv.ts";
import type { Example } from "../schemas.ts";
import { exampleKey, workspaceExamplesPrefix } from "../keys.ts";
import type { Attempt } from "../store.ts";

/** A workspace's example posts. */
export class ExampleStore {
  constructor(private readonly kv: Deno.Kv) {}

  // ------------------------------------------------------------ examples

  async getExample(workspaceId: string, exampleId: string): Promise<Example | null> {
    return (await this.kv.get<Example>(exampleKey(workspaceId, exampleId))).value;
  }

  /** The workspace's example posts, newest first. */
  async listExamples(workspaceId: string): Promise<Example[]> {
    const out: Example[] = [];
    const iter = this.kv.list<Example>({ prefix: workspaceExamplesPrefix(workspaceId) }, {
      reverse: true,
    });
    for await (const entry of iter) out.push(entry.value);
    return out;
  }

  async createExample(example: Example): Promise<Example> {
    const key = exampleKey(example.workspace_id, example.example_id);
    const res = await this.kv.atomic().check({ key, versionstamp: null }).set(key, example)
      .commit();
    if (!res.ok) throw new Error(`Example ${example.example_id} already exists`);
    return example;
  }

  async updateExample(
    workspaceId: string,
    exampleId: string,
    change: (current: Example) => Example,
  ): Promise<Example | null> {
    const key = exampleKey(workspaceId, exampleId);
    return await retryCommit(async (): Attempt<Example | null> => {
      const entry = await this.kv.get<Example>(key);
      if (!entry.value) return { ok: true, value: null };
      const next = change(structuredClone(entry.value));
      const res = await this.kv.atomic().check(entry).set(key, next).commit();
      return res.ok ? { ok: true, value: next } : { ok: false };
    });
  }

  async deleteExample(workspaceId: string, exampleId: string): Promise<Example | null> {
    const key = exampleKey(workspaceId, exampleId);
    return await retryCommit(async (): Attempt<Example | null> => {
      const entry = await this.kv.get<Example>(key);
      if (!entry.value) return { ok: true, value: null };
      const res = await this.kv.atomic().check(entry).delete(key).commit();
      return res.ok ? { ok: true, value: entry.value } : { ok: false };
    });
  }
}
