/**
 * The signature on the gateway's presigned URLs (the `file:` driver's, and the single-use upload
 * URLs of either driver): HMAC-SHA256 over the method, the key, the signed `Content-Type`
 * (empty for GET) and the expiry (Unix seconds), one per line, then the upload id on a line of
 * its own when the URL has one. Keys, header values and upload ids cannot hold a newline, so
 * the fields cannot run into each other.
 */
import { base64url, timingSafeEqual } from "../crypto/ids.ts";

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

  async sign(
    method: "GET" | "PUT",
    key: string,
    contentType: string,
    expires: number,
    upload = "",
  ) {
    const payload = `${method}\n${key}\n${contentType}\n${expires}` + (upload ? `\n${upload}` : "");
    const mac = await crypto.subtle.sign("HMAC", this.key, encoder.encode(payload));
    return base64url(new Uint8Array(mac));
  }

  async verify(
    method: "GET" | "PUT",
    key: string,
    contentType: string,
    expires: number,
    signature: string,
    upload = "",
  ): Promise<boolean> {
    return timingSafeEqual(await this.sign(method, key, contentType, expires, upload), signature);
  }
}
