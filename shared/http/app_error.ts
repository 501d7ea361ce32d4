import type { ContentfulStatusCode } from "hono/utils/http-status";

/**
 * The one error type that reaches a client: its status and message become
 * `{"error": message}`. Anything else thrown is logged and answered 500.
 */
export class AppError extends Error {
  constructor(readonly status: ContentfulStatusCode, message: string) {
    super(message);
    this.name = "AppError";
  }
}

export const badRequest = (message: string) => new AppError(400, message);
export const unauthorized = (message = "Unauthorized") => new AppError(401, message);
export const forbidden = (message: string) => new AppError(403, message);
export const notFound = (message: string) => new AppError(404, message);
export const conflict = (message: string) => new AppError(409, message);
