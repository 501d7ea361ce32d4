/// <reference lib="deno.worker" />
/**
 * A module worker that runs argon2id (hash-wasm) off the main thread: ~100 ms of CPU per
 * password that would otherwise stall the one event loop serving every route. A `hash` job is
 * answered with the PHC encoding, a `verify` job (hash-wasm's `argon2Verify`, which reads the
 * salt and parameters from the PHC string) with whether the password matches; either with an
 * error message when hash-wasm refuses the input (an empty password, a malformed hash,
 * out-of-range parameters).
 */
import { argon2id, argon2Verify } from "hash-wasm";

/** A new argon2id hash of `password` with this salt and these parameters. */
export interface HashJob {
  kind: "hash";
  password: string;
  salt: Uint8Array;
  memorySize: number;
  iterations: number;
  parallelism: number;
  hashLength: number;
}

/** Whether `password` matches the PHC string `encoded`. */
export interface VerifyJob {
  kind: "verify";
  password: string;
  encoded: string;
}

export type Argon2Job = (HashJob | VerifyJob) & { id: number };

export type Argon2Answer =
  | { id: number; encoded: string }
  | { id: number; matches: boolean }
  | { id: number; error: string };

self.onmessage = async (event: MessageEvent<Argon2Job>) => {
  const job = event.data;
  let answer: Argon2Answer;
  try {
    if (job.kind === "verify") {
      answer = {
        id: job.id,
        matches: await argon2Verify({ password: job.password, hash: job.encoded }),
      };
    } else {
      const { id: _id, kind: _kind, ...options } = job;
      answer = { id: job.id, encoded: await argon2id({ ...options, outputType: "encoded" }) };
    }
  } catch (err) {
    answer = { id: job.id, error: err instanceof Error ? err.message : String(err) };
  }
  self.postMessage(answer);
};
