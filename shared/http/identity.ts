import { z } from "zod";

/**
 * How the gateway hands a verified caller to a service. The gateway strips these headers from
 * every incoming request and sets them itself; a service refuses any request without the
 * internal secret, so a direct caller can neither reach it nor forge an identity.
 */
export const INTERNAL_SECRET_HEADER = "x-cp-internal";
export const CALLER_HEADER = "x-cp-caller";
export const REQUEST_ID_HEADER = "x-request-id";
/**
 * On a WebSocket upgrade the gateway relays to collab deployed apart: the admission collab
 * answered on `/internal/ws/admit` (collab's checks passed, its ticket used up), signed by
 * collab with the internal secret. Read only beside the internal secret.
 */
export const WS_ADMISSION_HEADER = "x-cp-ws-admission";
/** Where the gateway asks collab deployed apart to check an upgrade before relaying it. */
export const WS_ADMIT_PATH = "/internal/ws/admit";

export const callerSchema = z.object({
  user_id: z.string().min(1),
  email: z.string(),
  name: z.string(),
  role: z.enum(["admin", "member"]),
  approved: z.boolean(),
  /** The session (refresh family) the caller's access token belongs to, when it names one. */
  sid: z.string().optional(),
});
export type Caller = z.infer<typeof callerSchema>;

export function encodeCaller(caller: Caller): string {
  return encodeURIComponent(JSON.stringify(caller));
}

/** Decoded identity headers by their text: one token's requests repeat the same header. */
const decoded = new Map<string, Caller | null>();
const DECODED_MAX = 10_000;

export function decodeCaller(header: string | null | undefined): Caller | null {
  if (!header) return null;
  const known = decoded.get(header);
  if (known !== undefined) return known;
  let caller: Caller | null = null;
  try {
    const parsed = callerSchema.safeParse(JSON.parse(decodeURIComponent(header)));
    caller = parsed.success ? parsed.data : null;
  } catch {
    caller = null;
  }
  if (decoded.size >= DECODED_MAX) decoded.clear();
  decoded.set(header, caller);
  return caller;
}

/**
 * In one process the gateway hands a request to a service without copying it: the verified
 * caller travels beside the request object itself, which no client can reach or forge (a
 * client's own identity headers on it are never read). Across processes the headers above
 * carry it instead.
 */
export interface InProcessPass {
  caller: Caller | null;
  requestId: string;
  /** the client's network address as the gateway saw it (see client_address.ts) */
  clientAddress?: string;
}

/**
 * The pass is kept on the request under a symbol only this module holds: no client can set it
 * (a request from the wire carries no JS properties) and no code without the symbol reads it.
 * A property rather than a WeakMap entry: on the hot path the WeakMap's insertions and its
 * weak-table upkeep in every garbage collection showed in bench:api.
 */
const PASS = Symbol("in-process pass");
type Carrier = Request & { [PASS]?: InProcessPass };

export const inProcessPasses = {
  get: (req: Request): InProcessPass | undefined => (req as Carrier)[PASS],
  has: (req: Request): boolean => (req as Carrier)[PASS] !== undefined,
  set: (req: Request, pass: InProcessPass): void => {
    (req as Carrier)[PASS] = pass;
  },
};
