import { AppError } from "../http/app_error.ts";
import type { ServiceName } from "../config.ts";

/** Anything that answers a Request: a Hono app's `fetch`, or a proxy to a remote one. */
export type FetchHandler = (req: Request) => Response | Promise<Response>;

/**
 * Where each service is. In one process a service is its app's fetch handler, called directly
 * (same code path, no sockets); deployed apart it is a base URL reached over HTTP.
 */
export class ServiceDirectory {
  readonly #handlers = new Map<ServiceName, FetchHandler>();
  readonly #urls = new Map<ServiceName, string>();

  register(name: ServiceName, handler: FetchHandler): this {
    this.#handlers.set(name, handler);
    return this;
  }

  registerUrls(urls: Partial<Record<ServiceName, string>>): this {
    for (const [name, url] of Object.entries(urls)) {
      if (!url) continue;
      this.register(name as ServiceName, remoteHandler(url));
      this.#urls.set(name as ServiceName, url);
    }
    return this;
  }

  /** The base URL of a service deployed apart; undefined for one running in this process. */
  remoteUrl(name: ServiceName): string | undefined {
    return this.#urls.get(name);
  }

  has(name: ServiceName): boolean {
    return this.#handlers.has(name);
  }

  /** A handler that resolves `name` when called, so services can be registered in any order. */
  handler(name: ServiceName): FetchHandler {
    return (req) => {
      const target = this.#handlers.get(name);
      if (!target) throw new AppError(503, `The ${name} service is not available`);
      return target(req);
    };
  }
}

/** Forwards a request to `baseUrl`, keeping its path, query, method, headers and body. */
export function remoteHandler(baseUrl: string): FetchHandler {
  const base = new URL(baseUrl);
  return async (req) => {
    const url = new URL(req.url);
    url.protocol = base.protocol;
    url.host = base.host;
    const hasBody = req.method !== "GET" && req.method !== "HEAD" && req.body !== null;
    try {
      return await fetch(url, {
        method: req.method,
        headers: req.headers,
        body: hasBody ? req.body : undefined,
        redirect: "manual",
        // @ts-ignore: Deno's fetch accepts `duplex` for streamed request bodies
        duplex: hasBody ? "half" : undefined,
        signal: req.signal,
      });
    } catch {
      throw new AppError(502, `Cannot reach the service at ${base.origin}`);
    }
  };
}
