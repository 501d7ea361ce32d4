/**
 * The one API client; only the stores under `state/` use it (screens and components call store
 * actions). Types come from `schema.d.ts` (generated from the service's OpenAPI
 * document by `deno task web:api-types`); never write a request or response shape by hand.
 *
 *     const { workspaces } = await call(api.GET("/api/workspaces"));
 *     await call(api.POST("/api/workspaces", { body: { name } }));
 *     await call(api.GET("/api/workspaces/{id}", { params: { path: { id } } }));
 *
 * `call` answers the data or throws an `ApiError` carrying the server's `{"error"}` message,
 * which `<ErrorMessage error={...}>` shows where it happened.
 */
import createClient from "openapi-fetch";
import type { components, paths } from "./schema.d.ts";
import { accessToken, refreshSession, signedOut } from "../state/session.ts";

export type Schemas = components["schemas"];

/** An API answer other than 2xx (or no answer at all): status 0 is a network failure. */
export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
    this.name = "ApiError";
  }
}

/** Routes that must not trigger the refresh-and-retry dance. */
const NO_RETRY = /^\/api\/auth\/(refresh|logout|callback|login)$/;

/**
 * Attaches the in-memory access token; on a 401 refreshes once (through the HttpOnly cookie)
 * and retries; when that fails too the session is over and the app shows sign-in.
 */
async function authedFetch(request: Request): Promise<Response> {
  const path = new URL(request.url).pathname;
  const retry = request.clone();
  const token = accessToken.value;
  if (token) request.headers.set("authorization", `Bearer ${token}`);
  let res: Response;
  try {
    res = await fetch(request);
  } catch {
    throw new ApiError(0, "Cannot reach the server. Check your connection and try again");
  }
  if (res.status !== 401 || NO_RETRY.test(path) || !token) return res;
  const refreshed = await refreshSession();
  if (!refreshed) {
    signedOut("expired");
    return res;
  }
  retry.headers.set("authorization", `Bearer ${accessToken.value}`);
  return await fetch(retry);
}

/** A typed client over `fetch` (the app's own, or a test's fake or in-process server). */
export function createApiClient(
  options: { baseUrl?: string; fetch?: (request: Request) => Promise<Response> } = {},
) {
  return createClient<paths>({
    baseUrl: options.baseUrl ?? globalThis.location?.origin ?? "",
    fetch: options.fetch ?? authedFetch,
  });
}

export type ApiClient = ReturnType<typeof createApiClient>;

/** The app's client: the access token attached, refreshed once on a 401. */
export const api: ApiClient = createApiClient();

type Answer<T> = { data?: T; error?: unknown; response: Response };

/** The answer's data, or an ApiError with the server's message. */
export async function call<T>(pending: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await pending;
  if (response.ok) return data as T;
  throw new ApiError(response.status, errorText(error, response));
}

function errorText(error: unknown, response: Response): string {
  if (error && typeof error === "object" && "error" in error) {
    const message = (error as { error: unknown }).error;
    if (typeof message === "string" && message) return message;
  }
  // a short plain-text answer is a message; a page (a proxy's HTML error page) is not shown raw
  if (typeof error === "string" && /^[^<\n]{1,200}$/.test(error.trim())) return error.trim();
  const answered = `The server answered ${response.status} ${response.statusText}`.trim();
  return response.status >= 500 ? `${answered}. Try again in a moment` : answered;
}

/** Any thrown value as a message a person can read. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
