import { monotonicFactory } from "ulid";

const nextUlid = monotonicFactory();

/** A new ULID: lexicographically sortable by creation time, so `kv.list({prefix})` is time-ordered. */
export function newId(): string {
  return nextUlid();
}

/** `bytes` of cryptographic randomness as base64url, for tokens and codes that are secrets. */
export function randomToken(bytes = 32): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  return base64url(buf);
}

/** base64url without padding (RFC 4648 section 5), as tokens, PKCE and signatures use it. */
export function base64url(bytes: Uint8Array): string {
  return bytes.toBase64({ alphabet: "base64url", omitPadding: true });
}

/** SHA-256 of a secret as hex: what the store keeps of tokens that only need comparing. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Compares two strings in time that depends only on their length. */
export function timingSafeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  const n = Math.max(x.length, y.length);
  for (let i = 0; i < n; i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}
