/**
 * Single-use upload URLs, `<publicUrl>/assets/<key>?upload=<id>&expires=<unix>&signature=<mac>`,
 * answered by the gateway whichever driver keeps the bytes (file_routes.ts). Before it takes a
 * byte the gateway has the upload's owner claim `<id>` (`ClaimUpload`): the owner accepts each
 * id once, and only while the upload is still wanted, so a URL stores at most one body and none
 * once what it was for is gone. A bucket's own presigned PUT works until it expires, however
 * often it is used, so attachment uploads never go to the bucket directly.
 */
import type { AssetsConfig } from "./config.ts";
import { FILE_ROUTE_PREFIX } from "./file_store.ts";
import { UrlSigner } from "./signing.ts";
import { assertExpiresIn, assertKey, encodeKeyPath } from "./store.ts";
import { randomToken } from "../crypto/ids.ts";

/** An upload id: 128 random bits, base64url. */
export const UPLOAD_ID = /^[A-Za-z0-9_-]{22}$/;

/**
 * Asks the upload's owner to accept `upload` for `key` now, once: resolves when it does (with
 * the most bytes this upload may have, when the owner bounds it), throws an AppError (its status
 * and message are the answer to the PUT) when it does not.
 */
export type ClaimUpload = (key: string, upload: string) => Promise<void | { maxBytes: number }>;

export class UploadUrls {
  constructor(private readonly publicUrl: string, private readonly signer: UrlSigner) {}

  static async fromConfig(config: AssetsConfig): Promise<UploadUrls> {
    return new UploadUrls(config.publicUrl, await UrlSigner.fromSecret(config.signingSecret));
  }

  /** A fresh upload id. */
  newUploadId(): string {
    return randomToken(16);
  }

  /** A URL that accepts one `PUT` of `key` with this `Content-Type`, if its owner claims `upload`. */
  async sign(key: string, contentType: string, expiresIn: number, upload: string) {
    assertKey(key);
    assertExpiresIn(expiresIn);
    if (!UPLOAD_ID.test(upload)) throw new RangeError("Invalid upload id");
    const expires = Math.floor(Date.now() / 1000) + expiresIn;
    const signature = await this.signer.sign("PUT", key, contentType, expires, upload);
    return `${this.publicUrl}${FILE_ROUTE_PREFIX}${encodeKeyPath(key)}?upload=${upload}` +
      `&expires=${expires}&signature=${signature}`;
  }
}
