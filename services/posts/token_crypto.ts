import { join } from "node:path";
import { readOrCreateTextFile } from "../../shared/runtime/file_once.ts";

/**
 * LinkedIn access tokens are encrypted at rest (AES-256-GCM) with a key that is not in the
 * posts KV, so a KV file or a backup alone never yields a token:
 * - `LINKEDIN_TOKEN_KEY` (base64 of 32 bytes) when set;
 * - else `$DATA_DIR/linkedin_token.key`, created on first use with 32 random bytes and mode
 *   0600. Backups cover the KV databases and the asset store, never this file; a deployment
 *   on several machines sets `LINKEDIN_TOKEN_KEY` instead.
 */
export class TokenCipher {
  private constructor(private readonly key: CryptoKey) {}

  static async open(options: { keyBase64: string | null; dataDir: string }): Promise<TokenCipher> {
    let raw: Uint8Array;
    if (options.keyBase64) {
      raw = Uint8Array.fromBase64(options.keyBase64);
    } else {
      await Deno.mkdir(options.dataDir, { recursive: true });
      const text = await readOrCreateTextFile(
        join(options.dataDir, "linkedin_token.key"),
        () => crypto.getRandomValues(new Uint8Array(32)).toBase64() + "\n",
        0o600,
      );
      raw = Uint8Array.fromBase64(text.trim());
    }
    if (raw.length !== 32) throw new Error("The LinkedIn token key must be 32 bytes");
    const key = await crypto.subtle.importKey("raw", raw as BufferSource, "AES-GCM", false, [
      "encrypt",
      "decrypt",
    ]);
    return new TokenCipher(key);
  }

  /** `base64(iv).base64(ciphertext+tag)`; `aad` binds it to its workspace. */
  async encrypt(plain: string, aad: string): Promise<string> {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const data = await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(aad) },
      this.key,
      new TextEncoder().encode(plain),
    );
    return `${iv.toBase64()}.${new Uint8Array(data).toBase64()}`;
  }

  async decrypt(sealed: string, aad: string): Promise<string> {
    const [iv, data] = sealed.split(".");
    const plain = await crypto.subtle.decrypt(
      {
        name: "AES-GCM",
        iv: Uint8Array.fromBase64(iv),
        additionalData: new TextEncoder().encode(aad),
      },
      this.key,
      Uint8Array.fromBase64(data),
    );
    return new TextDecoder().decode(plain);
  }
}
