import type { z } from "zod";
import { AppError } from "./http/app_error.ts";
import {
  type Caller,
  CALLER_HEADER,
  encodeCaller,
  INTERNAL_SECRET_HEADER,
} from "./http/identity.ts";
import type { FetchHandler } from "./service_directory.ts";

/** The origin used for in-process requests; only the path matters to the target app. */
const INTERNAL_ORIGIN = "http://internal.invalid";

/**
 * The base of every typed internal client: sends the internal secret, optionally a caller,
 * and validates what comes back with zod.
 */
export class InternalClient {
  constructor(
    readonly service: string,
    private readonly handler: FetchHandler,
    private readonly secret: string,
  ) {}

  async request(
    method: string,
    path: string,
    options: { body?: unknown; caller?: Caller; headers?: HeadersInit } = {},
  ): Promise<Response> {
    const headers = new Headers(options.headers);
    headers.set(INTERNAL_SECRET_HEADER, this.secret);
    if (options.caller) headers.set(CALLER_HEADER, encodeCaller(options.caller));
    let body: BodyInit | undefined;
    if (options.body !== undefined) {
      headers.set("content-type", "application/json");
      body = JSON.stringify(options.body);
    }
    return await this.handler(new Request(INTERNAL_ORIGIN + path, { method, headers, body }));
  }

  /** Calls `path` and parses a 2xx JSON answer; `null` for a 404; AppError 502 otherwise. */
  async json<T>(
    schema: z.ZodType<T>,
    method: string,
    path: string,
    options: { body?: unknown; caller?: Caller } = {},
  ): Promise<T | null> {
    const res = await this.request(method, path, options);
    if (res.status === 404) {
      await res.body?.cancel();
      return null;
    }
    if (!res.ok) {
      const text = await res.text();
      throw new AppError(
        502,
        `The ${this.service} service answered ${res.status} to ${method} ${path}: ${
          text.slice(0, 200)
        }`,
      );
    }
    const parsed = schema.safeParse(await res.json());
    if (!parsed.success) {
      throw new AppError(502, `The ${this.service} service gave an unexpected answer`);
    }
    return parsed.data;
  }
}
