import { InternalClient } from "../../shared/service/internal_client.ts";
import type { ServiceDirectory } from "../../shared/service/service_directory.ts";

/** The typed client of the actions service's `/internal` routes (the gateway's). */
export class ActionsClient {
  readonly #client: InternalClient;

  constructor(directory: ServiceDirectory, secret: string) {
    this.#client = new InternalClient("actions", directory.handler("actions"), secret);
  }

  /**
   * Claims the single-use upload URL `uploadId` of attachment `key` before its bytes are taken:
   * resolves once claimed; the refusal (403, 404, 409, with its message) is thrown as AppError.
   */
  async claimUpload(key: string, uploadId: string): Promise<void> {
    await this.#client.send("POST", "/internal/attachments/claim", {
      body: { key, upload_id: uploadId },
      passOn: [403, 404, 409],
    });
  }
}
