import { z } from "zod";

/**
 * How the gateway hands a verified caller to a service. The gateway strips these headers from
 * every incoming request and sets them itself; a service refuses any request without the
 * internal secret, so a direct caller can neither reach it nor forge an identity.
 */
export const INTERNAL_SECRET_HEADER = "x-cp-internal";
export const CALLER_HEADER = "x-cp-caller";
export const REQUEST_ID_HEADER = "x-request-id";

export const callerSchema = z.object({
  user_id: z.string().min(1),
  email: z.string(),
  name: z.string(),
  role: z.enum(["admin", "member"]),
  approved: z.boolean(),
});
export type Caller = z.infer<typeof callerSchema>;

export function encodeCaller(caller: Caller): string {
  return encodeURIComponent(JSON.stringify(caller));
}

export function decodeCaller(header: string | null | undefined): Caller | null {
  if (!header) return null;
  try {
    const parsed = callerSchema.safeParse(JSON.parse(decodeURIComponent(header)));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
