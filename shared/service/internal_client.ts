import type { z } from "zod";
import { AppError } from "../http/app_error.ts";
import {
  type Caller,
  CALLER_HEADER,
  encodeCaller,
  INTERNAL_SECRET_HEADER,
} from "../http/identity.ts";
import type { FetchHandler } from "./service_directory.ts";

/** The origin used for in-process requests; only the path matters to the target app. */
const INTERNAL_ORIGIN = "http://internal.invalid";

/** The statuses a peer may answer on purpose, for a client to pass on to its own caller. */
export type PassedOnStatus = 400 | 401 | 403 | 404 | 409 | 429 | 500 | 502 | 503;

export interface InternalRequestOptions {
  body?: unknown;
  /** sent in the caller header: the peer acts for this verified caller */
  caller?: Caller;
  headers?: HeadersInit;
}

export interface InternalCallOptions extends InternalRequestOptions {
  /**
   * The peer's refusals to pass on: an answer with one of these statuses and an `{error}` body
   * is thrown as `AppError(status, error)` (with the peer's `Retry-After`), so the caller's
   * client sees the peer's own answer.
   */
  passOn?: readonly PassedOnStatus[];
}

/**
 * The base of every typed internal client: sends the internal secret, optionally a caller,
 * and validates what comes back with zod. Whatever a client does not pass on is a 502 naming
 * the peer, the request and its answer.
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
    options: InternalRequestOptions = {},
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
    options: InternalRequestOptions = {},
  ): Promise<T | null> {
    const res = await this.request(method, path, options);
    if (res.status === 404) {
      await res.body?.cancel();
      return null;
    }
    if (!res.ok) throw await this.#failure(res, method, path, []);
    return this.#parse(schema, res);
  }

  /** Calls `path` and parses a 2xx JSON answer; the `passOn` refusals as the peer's AppError. */
  async call<T>(
    schema: z.ZodType<T>,
    method: string,
    path: string,
    options: InternalCallOptions = {},
  ): Promise<T> {
    const res = await this.request(method, path, options);
    if (!res.ok) throw await this.#failure(res, method, path, options.passOn ?? []);
    return this.#parse(schema, res);
  }

  /** Calls `path` for its effect (a 2xx answer's body is dropped); refusals as for `call`. */
  async send(method: string, path: string, options: InternalCallOptions = {}): Promise<void> {
    const res = await this.request(method, path, options);
    if (!res.ok) throw await this.#failure(res, method, path, options.passOn ?? []);
    await res.body?.cancel();
  }

  async #parse<T>(schema: z.ZodType<T>, res: Response): Promise<T> {
    const parsed = schema.safeParse(await res.json().catch(() => undefined));
    if (!parsed.success) {
      throw new AppError(502, `The ${this.service} service gave an unexpected answer`);
    }
    return parsed.data;
  }

  async #failure(
    res: Response,
    method: string,
    path: string,
    passOn: readonly PassedOnStatus[],
  ): Promise<AppError> {
    const text = await res.text();
    if ((passOn as readonly number[]).includes(res.status)) {
      const message = errorMessageOf(text);
      // A peer's delay (its `Retry-After`) goes on with its refusal.
      const retryAfter = Number(res.headers.get("retry-after"));
      const options = Number.isInteger(retryAfter) && retryAfter >= 1
        ? { retryAfterSeconds: retryAfter }
        : {};
      if (message !== null) return new AppError(res.status as PassedOnStatus, message, options);
    }
    return new AppError(
      502,
      `The ${this.service} service answered ${res.status} to ${method} ${path}: ${
        text.slice(0, 200)
      }`,
    );
  }
}

/** The message of an `{"error": "..."}` body, or null for any other body. */
function errorMessageOf(text: string): string | null {
  try {
    const body = JSON.parse(text);
    return typeof body?.error === "string" ? body.error : null;
  } catch {
    return null;
  }
}
