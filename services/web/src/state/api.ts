/**
 * The client every store calls through. The app uses the real one (`api/client.ts`); a test
 * hands its own (over a fake fetch or an in-process server) to `setApiClient`. Screens and
 * components import errors and types from here, never the client itself.
 */
import { api, type ApiClient, ApiError, call, errorMessage, type Schemas } from "../api/client.ts";
import type { paths } from "../api/schema.d.ts";

let current: ApiClient = api;

/** The client the stores call now. */
export function client(): ApiClient {
  return current;
}

/** Makes the stores call `next` (tests); answers the one it replaced. */
export function setApiClient(next: ApiClient): ApiClient {
  const previous = current;
  current = next;
  return previous;
}

export { type ApiClient, ApiError, call, errorMessage, type Schemas };

/** The JSON body a route takes, from the generated schema. */
export type JsonBody<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends
  { requestBody?: { content: { "application/json": infer B } } } ? B : never;
