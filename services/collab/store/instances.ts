import { instanceKey, INSTANCES_PREFIX } from "../keys.ts";

/** How long an instance's registration lasts unless renewed (it is renewed every third of it). */
export const INSTANCE_TTL_MS = 30_000;

/**
 * Which collab instances are serving from this KV: each registers itself when it starts,
 * renews that every third of INSTANCE_TTL_MS and removes it when it closes; a process that
 * died drops out when its registration expires. An instance alone on its KV has nobody's
 * writes to follow.
 */
export class InstanceRegistry {
  constructor(private readonly kv: Deno.Kv) {}

  async register(instanceId: string): Promise<void> {
    await this.kv.set(instanceKey(instanceId), { at: Date.now() }, { expireIn: INSTANCE_TTL_MS });
  }

  async unregister(instanceId: string): Promise<void> {
    await this.kv.delete(instanceKey(instanceId));
  }

  /**
   * Whether an instance other than `instanceId` is registered. (An entry past its expiry that
   * the KV has not removed yet counts while it is at most twice as old: following a process that
   * is gone costs only reads.)
   */
  async othersAlive(instanceId: string): Promise<boolean> {
    const oldest = Date.now() - 2 * INSTANCE_TTL_MS;
    for await (
      const e of this.kv.list<{ at: number }>({ prefix: INSTANCES_PREFIX }, { limit: 100 })
    ) {
      if (e.key[1] !== instanceId && (e.value?.at ?? 0) > oldest) return true;
    }
    return false;
  }
}
