import { argon2id } from "hash-wasm";
import { timingSafeEqual } from "../../shared/ids.ts";

/** OWASP's argon2id parameters: 19 MiB of memory, 2 passes, 1 lane. */
export const ARGON2_PARAMS = { memorySize: 19456, iterations: 2, parallelism: 1, hashLength: 32 };

const PHC = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

/** Hashes a password with argon2id and a random 16-byte salt; the answer is a PHC string. */
export async function hashPassword(password: string): Promise<string> {
  return await argon2id({
    password,
    salt: crypto.getRandomValues(new Uint8Array(16)),
    ...ARGON2_PARAMS,
    outputType: "encoded",
  });
}

/**
 * Recomputes the hash with the stored salt and parameters and compares the two encodings in
 * constant time. A malformed stored hash never matches.
 */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const m = PHC.exec(encoded);
  if (!m) return false;
  const salt = Uint8Array.from(atob(padBase64(m[4])), (ch) => ch.charCodeAt(0));
  const hashLength = atob(padBase64(m[5])).length;
  try {
    const again = await argon2id({
      password,
      salt,
      memorySize: Number(m[1]),
      iterations: Number(m[2]),
      parallelism: Number(m[3]),
      hashLength,
      outputType: "encoded",
    });
    return timingSafeEqual(again, encoded);
  } catch {
    // hash-wasm refuses an empty password or out-of-range parameters: no match.
    return false;
  }
}

function padBase64(s: string): string {
  return s + "=".repeat((4 - (s.length % 4)) % 4);
}

/**
 * A hash of a random password, verified against when the email is unknown (or has no
 * password), so such a login costs the same time as a wrong password.
 */
let dummy: Promise<string> | null = null;
export function dummyHash(): Promise<string> {
  return dummy ??= hashPassword(crypto.randomUUID());
}
