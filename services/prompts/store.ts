import { AppError } from "../../shared/http/app_error.ts";
import { newId } from "../../shared/crypto/ids.ts";
import { getManyBatched, retryCommit } from "../../shared/kv/kv.ts";
import { nowIso } from "../../shared/time.ts";
import type { Prompt, PromptPatch, StoredPrompt, Tone } from "./schemas.ts";
import { byCreatorKey, byCreatorPrefix, countKey, defaultKey, promptKey } from "./keys.ts";

const VALUE_MAX_BYTES = 60_000;

function checkSize(prompt: StoredPrompt): void {
  if (new TextEncoder().encode(JSON.stringify(prompt)).length > VALUE_MAX_BYTES) {
    throw new AppError(400, "Prompt is too large");
  }
}

export interface NewPrompt {
  workspace_id: string;
  name: string;
  system_instruction: string;
  user_template: string;
  tone: Tone;
  default_audience: string | null;
  default_language: string | null;
  created_by: string;
}

export type DeleteResult = "deleted" | "not_found" | "last_prompt";

const withDefault = (p: StoredPrompt, defaultId: string | null): Prompt => ({
  ...p,
  is_default: p.prompt_id === defaultId,
});

export class PromptsStore {
  constructor(private readonly kv: Deno.Kv) {}

  async create(input: NewPrompt): Promise<Prompt> {
    const now = nowIso();
    const prompt: StoredPrompt = { prompt_id: newId(), ...input, created_at: now, updated_at: now };
    checkSize(prompt);
    const ws = input.workspace_id;
    const user = input.created_by;
    await retryCommit(async () => {
      const count = await this.kv.get<number>(countKey(ws, user));
      const res = await this.kv.atomic()
        .check(count)
        .check({ key: promptKey(ws, prompt.prompt_id), versionstamp: null })
        .set(promptKey(ws, prompt.prompt_id), prompt)
        .set(byCreatorKey(ws, user, prompt.prompt_id), prompt.prompt_id)
        .set(countKey(ws, user), (count.value ?? 0) + 1)
        .commit();
      return res.ok ? { ok: true, value: null } : { ok: false };
    });
    return withDefault(prompt, null);
  }

  async #defaultId(workspaceId: string, userId: string): Promise<string | null> {
    return (await this.kv.get<string>(defaultKey(workspaceId, userId))).value;
  }

  /** Any prompt of the workspace, with `is_default` as its creator's pointer says. */
  async get(workspaceId: string, promptId: string): Promise<Prompt | null> {
    const stored = (await this.kv.get<StoredPrompt>(promptKey(workspaceId, promptId))).value;
    if (!stored) return null;
    return withDefault(stored, await this.#defaultId(workspaceId, stored.created_by));
  }

  /** The prompts `userId` created in the workspace, oldest first. */
  async listByCreator(workspaceId: string, userId: string): Promise<Prompt[]> {
    const ids: string[] = [];
    for await (const e of this.kv.list<string>({ prefix: byCreatorPrefix(workspaceId, userId) })) {
      ids.push(e.value);
    }
    const entries = await getManyBatched<StoredPrompt>(
      this.kv,
      ids.map((id) => promptKey(workspaceId, id)),
    );
    const defaultId = await this.#defaultId(workspaceId, userId);
    return entries.flatMap((e) => e.value ? [withDefault(e.value, defaultId)] : []);
  }

  /** The creator's default prompt in the workspace, if they set one. */
  async getDefault(workspaceId: string, userId: string): Promise<Prompt | null> {
    const id = await this.#defaultId(workspaceId, userId);
    return id ? await this.get(workspaceId, id) : null;
  }

  async update(workspaceId: string, promptId: string, patch: PromptPatch): Promise<Prompt | null> {
    const key = promptKey(workspaceId, promptId);
    const stored = await retryCommit<StoredPrompt | null>(async () => {
      const entry = await this.kv.get<StoredPrompt>(key);
      if (!entry.value) return { ok: true, value: null };
      const next: StoredPrompt = { ...entry.value, updated_at: nowIso() };
      if (patch.name !== undefined) next.name = patch.name;
      if (patch.system_instruction !== undefined) {
        next.system_instruction = patch.system_instruction;
      }
      if (patch.user_template !== undefined) next.user_template = patch.user_template;
      if (patch.tone !== undefined) next.tone = patch.tone;
      if (patch.default_audience !== undefined) next.default_audience = patch.default_audience;
      if (patch.default_language !== undefined) next.default_language = patch.default_language;
      checkSize(next);
      const res = await this.kv.atomic().check(entry).set(key, next).commit();
      return res.ok ? { ok: true, value: next } : { ok: false };
    });
    if (!stored) return null;
    return withDefault(stored, await this.#defaultId(workspaceId, stored.created_by));
  }

  /**
   * Deletes the prompt unless it is its creator's last one in the workspace. The count, the
   * prompt and the default pointer are checked in one commit, so racing deletes cannot remove
   * the last two at once.
   */
  async delete(workspaceId: string, promptId: string): Promise<DeleteResult> {
    const key = promptKey(workspaceId, promptId);
    return await retryCommit<DeleteResult>(async () => {
      const entry = await this.kv.get<StoredPrompt>(key);
      if (!entry.value) return { ok: true, value: "not_found" };
      const user = entry.value.created_by;
      const [count, pointer] = await this.kv.getMany<[number, string]>([
        countKey(workspaceId, user),
        defaultKey(workspaceId, user),
      ]);
      if ((count.value ?? 0) <= 1) return { ok: true, value: "last_prompt" };
      const op = this.kv.atomic()
        .check(entry)
        .check(count)
        .check(pointer)
        .delete(key)
        .delete(byCreatorKey(workspaceId, user, promptId))
        .set(countKey(workspaceId, user), (count.value ?? 1) - 1);
      if (pointer.value === promptId) op.delete(defaultKey(workspaceId, user));
      const res = await op.commit();
      return res.ok ? { ok: true, value: "deleted" } : { ok: false };
    });
  }

  /** Makes the prompt its creator's one default in the workspace; null when it is unknown. */
  async setDefault(workspaceId: string, promptId: string): Promise<Prompt | null> {
    const key = promptKey(workspaceId, promptId);
    return await retryCommit<Prompt | null>(async () => {
      const entry = await this.kv.get<StoredPrompt>(key);
      if (!entry.value) return { ok: true, value: null };
      const res = await this.kv.atomic()
        .check(entry)
        .set(defaultKey(workspaceId, entry.value.created_by), promptId)
        .commit();
      return res.ok ? { ok: true, value: withDefault(entry.value, promptId) } : { ok: false };
    });
  }
}
