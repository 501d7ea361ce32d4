import { CURRENT_SIGNING_KEY, signingKeyKey } from "../keys.ts";
import { SigningKeyRecord } from "./common.ts";

/** The Ed25519 keys that sign access tokens. */
export class SigningKeyStore {
  constructor(private readonly kv: Deno.Kv) {}

  // ---------------------------------------------------------------- signing keys

  async listSigningKeys(): Promise<SigningKeyRecord[]> {
    const out: SigningKeyRecord[] = [];
    for await (const e of this.kv.list<SigningKeyRecord>({ prefix: ["signing_keys"] })) {
      out.push(e.value);
    }
    return out;
  }

  async currentSigningKey(): Promise<SigningKeyRecord | null> {
    const kid = (await this.kv.get<string>(CURRENT_SIGNING_KEY)).value;
    return kid ? (await this.kv.get<SigningKeyRecord>(signingKeyKey(kid))).value : null;
  }

  /**
   * Stores a key and makes it the current one. With `onlyIfNone`, it is stored only when no
   * current key exists yet (two instances starting at once agree on one key).
   */
  async addSigningKey(key: SigningKeyRecord, { onlyIfNone = false } = {}): Promise<boolean> {
    const op = this.kv.atomic();
    if (onlyIfNone) op.check({ key: CURRENT_SIGNING_KEY, versionstamp: null });
    const res = await op.set(signingKeyKey(key.kid), key).set(CURRENT_SIGNING_KEY, key.kid)
      .commit();
    return res.ok;
  }

  async removeSigningKey(kid: string): Promise<void> {
    await this.kv.delete(signingKeyKey(kid));
  }
}
