import { SERVICE_NAMES, type ServiceName } from "../../shared/config.ts";
import { BACKUP_EXPORT_PATH, BACKUP_IMPORT_PATH } from "../../shared/http/service_app.ts";
import { INTERNAL_SECRET_HEADER } from "../../shared/http/identity.ts";
import type { ServiceDirectory } from "../../shared/service/service_directory.ts";

const ORIGIN = "http://internal.invalid";

/**
 * Every other service's keyspace through its `/internal/backup/*` routes (mounted by
 * `mountServiceInternals` when a service hands it its KV). A 404 means the service keeps no
 * keyspace. The admin service's own keyspace is operational state and is left out.
 */
export class KeyspaceClient {
  constructor(
    private readonly directory: ServiceDirectory,
    private readonly secret: string,
  ) {}

  /** The services registered here, other than admin, in a fixed order. */
  services(): ServiceName[] {
    return SERVICE_NAMES.filter((name) => name !== "admin" && this.directory.has(name));
  }

  /** The service's keyspace as NDJSON, or null when it keeps none. */
  async export(name: ServiceName): Promise<ReadableStream<Uint8Array> | null> {
    const res = await this.directory.handler(name)(
      new Request(ORIGIN + BACKUP_EXPORT_PATH, { headers: this.#headers() }),
    );
    if (res.status === 404) {
      await res.body?.cancel();
      return null;
    }
    if (!res.ok || !res.body) {
      throw new Error(`The ${name} service answered ${res.status} to the keyspace export`);
    }
    return res.body;
  }

  /**
   * Replaces the service's keyspace with `body` (NDJSON); null when it keeps none. Rejects as
   * soon as the service answers an error, even before the body has been sent.
   */
  async import(name: ServiceName, body: ReadableStream<Uint8Array>): Promise<number | null> {
    const headers = this.#headers();
    headers.set("content-type", "application/x-ndjson");
    const res = await this.directory.handler(name)(
      new Request(ORIGIN + BACKUP_IMPORT_PATH, {
        method: "POST",
        headers,
        body,
        // @ts-ignore: Deno's Request accepts `duplex` for streamed bodies
        duplex: "half",
      }),
    );
    const text = await res.text();
    if (res.status === 404 && /No route/.test(text)) return null;
    if (!res.ok) {
      throw new Error(
        `The ${name} service answered ${res.status} to the keyspace import: ${text.slice(0, 200)}`,
      );
    }
    return Number(JSON.parse(text).imported ?? 0);
  }

  #headers(): Headers {
    return new Headers({ [INTERNAL_SECRET_HEADER]: this.secret });
  }
}
