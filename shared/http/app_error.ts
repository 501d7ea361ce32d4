import type { ContentfulStatusCode } from "hono/utils/http-status";

/** What an AppError may carry beside its status and message. */
export interface AppErrorOptions {
  /**
   * For a 429 or a passing 503: whole seconds (at least 1) until trying again makes sense,
   * answered as the `Retry-After` header beside the unchanged `{"error"}` body.
   */
  retryAfterSeconds?: number;
}

/**
 * The one error type that reaches a client: its status and message become
 * `{"error": message}`, with the headers of `errorHeaders`. Anything else thrown is logged and
 * answered 500.
 */
export class AppError extends Error {
  readonly retryAfterSeconds: number | undefined;

  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message);
    this.name = "AppError";
    this.retryAfterSeconds = options.retryAfterSeconds === undefined
      ? undefined
      : Math.max(1, Math.ceil(options.retryAfterSeconds));
  }
}

/** The response headers an AppError's answer carries (`Retry-After` when it has a delay). */
export function errorHeaders(err: AppError): Record<string, string> {
  return err.retryAfterSeconds === undefined
    ? {}
    : { "retry-after": String(err.retryAfterSeconds) };
}

export const badRequest = (message: string) => new AppError(400, message);
export const unauthorized = (message = "Unauthorized") => new AppError(401, message);
export const forbidden = (message: string) => new AppError(403, message);
export const notFound = (message: string) => new AppError(404, message);
export const conflict = (message: string) => new AppError(409, message);
/** 429 from a limiter that lets the client try again in `waitMs` (`Retry-After`). */
export const tooManyRequests = (message: string, waitMs: number) =>
  new AppError(429, message, { retryAfterSeconds: waitMs / 1000 });
