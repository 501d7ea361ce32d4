/**
 * The signature on the `file:` driver's presigned URLs: HMAC-SHA256 over the method, the key,
 * the signed `Content-Type` (empty for GET) and the expiry (Unix seconds), one per line. Keys
 * and header values cannot hold a newline, so the fields cannot run into each other.
 */
import { base64url, timingSafeEqual } from "../ids.ts";

const encoder = new TextEncoder();

export class UrlSigner {
  private constructor(private readonly key: CryptoKey) {}

  /**
   * A signer whose key is derived from `secret` (ASSETS_SIGNING_KEY, or the internal secret
   * every service of one deployment shares), so the gateway and the services agree.
   */
  static async fromSecret(secret: string): Promise<UrlSigner> {
    const base = await crypto.subtle.importKey(
      "raw",
      encoder.encode(secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    const derived = await crypto.subtle.sign(
      "HMAC",
      base,
      encoder.encode("content-pipeline presigned asset urls v1"),
    );
    const key = await crypto.subtle.importKey(
      "raw",
      derived,
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    return new UrlSigner(key);
  }

  async sign(method: "GET" | "PUT", key: string, contentType: string, expires: number) {
    const payload = `${method}\n${key}\n${contentType}\n${expires}`;
    const mac = await crypto.subtle.sign("HMAC", this.key, encoder.encode(payload));
    return base64url(new Uint8Array(mac));
  }

  async verify(
    method: "GET" | "PUT",
    key: string,
    contentType: string,
    expires: number,
    signature: string,
  ): Promise<boolean> {
    return timingSafeEqual(await this.sign(method, key, contentType, expires), signature);
  }
}
