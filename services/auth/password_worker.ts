/// <reference lib="deno.worker" />
/**
 * A module worker that runs argon2id (hash-wasm) off the main thread: ~100 ms of CPU per
 * password that would otherwise stall the one event loop serving every route. It answers each
 * job with the PHC encoding, or with an error message (hash-wasm refuses an empty password or
 * out-of-range parameters).
 */
import { argon2id } from "hash-wasm";

export interface Argon2Job {
  id: number;
  password: string;
  salt: Uint8Array;
  memorySize: number;
  iterations: number;
  parallelism: number;
  hashLength: number;
}

export type Argon2Answer = { id: number; encoded: string } | { id: number; error: string };

self.onmessage = async (event: MessageEvent<Argon2Job>) => {
  const { id, ...options } = event.data;
  let answer: Argon2Answer;
  try {
    answer = { id, encoded: await argon2id({ ...options, outputType: "encoded" }) };
  } catch (err) {
    answer = { id, error: err instanceof Error ? err.message : String(err) };
  }
  self.postMessage(answer);
};
