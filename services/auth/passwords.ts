import { AppError } from "../../shared/http/app_error.ts";
import type { Argon2Answer, Argon2Job, HashJob, VerifyJob } from "./password_worker.ts";

/** OWASP's argon2id parameters: 19 MiB of memory, 2 passes, 1 lane. */
export const ARGON2_PARAMS = { memorySize: 19456, iterations: 2, parallelism: 1, hashLength: 32 };

/** Hashes a password with argon2id and a random 16-byte salt; the answer is a PHC string. */
export async function hashPassword(password: string): Promise<string> {
  return await argon2Pool().hash({
    password,
    salt: crypto.getRandomValues(new Uint8Array(16)),
    ...ARGON2_PARAMS,
  });
}

/**
 * Recomputes the hash with the salt and parameters of the stored PHC string (in a worker) and
 * compares. Only argon2id hashes are ours; a malformed stored hash never matches.
 */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  if (!encoded.startsWith("$argon2id$")) return false;
  try {
    return await argon2Pool().verify(password, encoded);
  } catch (err) {
    // hash-wasm refuses an empty password, a malformed hash or out-of-range parameters.
    if (err instanceof Argon2Error) return false;
    throw err;
  }
}

/**
 * A hash of a random password, verified against when the email is unknown (or has no
 * password), so such a login costs the same time as a wrong password.
 */
let dummy: Promise<string> | null = null;
export function dummyHash(): Promise<string> {
  return dummy ??= hashPassword(crypto.randomUUID()).catch((err) => {
    dummy = null;
    throw err;
  });
}

// ------------------------------------------------------------------ the worker pool

/** hash-wasm refused the input (an answer of "no match" for a verification). */
export class Argon2Error extends Error {}

export const HASHING_BUSY = "Too many sign-ins are being checked right now; try again shortly";

type Job = HashJob | VerifyJob;
type Answer = Exclude<Argon2Answer, { error: string }>;
interface Pending {
  job: Job;
  resolve(answer: Answer): void;
  reject(err: Error): void;
}
interface Slot {
  worker: Worker;
  busy: Pending | null;
  jobId: number;
}

/**
 * Default pool size: one core is left to the event loop that serves every route (a 2-core host
 * gets one hashing worker), at most two workers. More workers would verify faster under a
 * flood of logins but starve /healthz and every other request of CPU; the queue in front of
 * them is what absorbs a burst (and the login throttle caps what one client can queue).
 */
export function defaultPoolSize(): number {
  const cores = navigator.hardwareConcurrency || 2;
  return Math.max(1, Math.min(2, cores - 1));
}

/**
 * Argon2id in module workers (services/auth/password_worker.ts), so a ~100 ms hash never runs
 * on the main thread. Jobs queue FIFO in front of `size` workers, started on first use.
 * Workers idle for IDLE_MS are ended (an idle Worker keeps the process alive and holds ~40 MiB,
 * so it is gone a few seconds after the last sign-in, well before a backup starts); `close()` ends
 * the idle ones now and the busy ones as soon as the queue drains, and the pool starts workers
 * again on the next job.
 */
export class Argon2Pool {
  static readonly IDLE_MS = 5_000;
  readonly #slots: Slot[] = [];
  readonly #queue: Pending[] = [];
  #nextId = 1;
  #closing = false;
  #idleTimer: ReturnType<typeof setTimeout> | null = null;

  /**
   * `maxQueued`: jobs allowed to wait for a worker. Beyond it a job is refused at once (503)
   * rather than queued behind a flood it could not get through in reasonable time (64 jobs
   * are about 10 s of one worker's hashing).
   */
  constructor(readonly size = defaultPoolSize(), readonly maxQueued = 64) {}

  /** The PHC string of a new argon2id hash. */
  async hash(options: Omit<HashJob, "kind">): Promise<string> {
    const answer = await this.#run({ kind: "hash", ...options });
    if (!("encoded" in answer)) throw new Error("The password worker did not answer a hash");
    return answer.encoded;
  }

  /** Whether `password` matches the PHC string `encoded` (hash-wasm's `argon2Verify`). */
  async verify(password: string, encoded: string): Promise<boolean> {
    const answer = await this.#run({ kind: "verify", password, encoded });
    return "matches" in answer && answer.matches;
  }

  #run(job: Job): Promise<Answer> {
    if (this.#queue.length >= this.maxQueued) {
      // Each queued job takes a worker for about a hash's time: a second clears most of them.
      return Promise.reject(new AppError(503, HASHING_BUSY, { retryAfterSeconds: 1 }));
    }
    this.#closing = false;
    if (this.#idleTimer !== null) {
      clearTimeout(this.#idleTimer);
      this.#idleTimer = null;
    }
    return new Promise<Answer>((resolve, reject) => {
      this.#queue.push({ job, resolve, reject });
      this.#pump();
    });
  }

  /** Jobs waiting for a worker (not counting the ones being hashed). */
  get queued(): number {
    return this.#queue.length;
  }

  /** Ends idle workers now and busy ones when nothing is left to do. */
  close(): void {
    this.#closing = true;
    if (this.#idleTimer !== null) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
    this.#reap();
  }

  #pump(): void {
    while (this.#queue.length > 0) {
      let slot = this.#slots.find((s) => s.busy === null);
      if (!slot && this.#slots.length < this.size) slot = this.#spawn();
      if (!slot) return;
      const pending = this.#queue.shift()!;
      slot.busy = pending;
      slot.jobId = this.#nextId++;
      const { job } = pending;
      // A salt is copied, so the caller's array stays usable.
      const message: Argon2Job = job.kind === "hash"
        ? { ...job, id: slot.jobId, salt: job.salt.slice() }
        : { ...job, id: slot.jobId };
      slot.worker.postMessage(message);
    }
  }

  #spawn(): Slot {
    const worker = new Worker(new URL("./password_worker.ts", import.meta.url).href, {
      type: "module",
    });
    const slot: Slot = { worker, busy: null, jobId: 0 };
    worker.onmessage = (event: MessageEvent<Argon2Answer>) => {
      const pending = slot.busy;
      if (!pending || event.data.id !== slot.jobId) return;
      slot.busy = null;
      if ("error" in event.data) pending.reject(new Argon2Error(event.data.error));
      else pending.resolve(event.data);
      this.#pump();
      this.#afterJob();
    };
    worker.onerror = (event: ErrorEvent) => {
      // A crashed worker is replaced; its job fails rather than hanging.
      event.preventDefault();
      const pending = slot.busy;
      this.#remove(slot);
      pending?.reject(new Error(`The password worker failed: ${event.message}`));
      this.#pump();
      this.#afterJob();
    };
    this.#slots.push(slot);
    return slot;
  }

  #remove(slot: Slot): void {
    slot.worker.terminate();
    const i = this.#slots.indexOf(slot);
    if (i >= 0) this.#slots.splice(i, 1);
  }

  #afterJob(): void {
    if (this.#queue.length > 0) return;
    if (this.#closing) return this.#reap();
    if (this.#slots.every((s) => s.busy === null) && this.#idleTimer === null) {
      const timer = setTimeout(() => {
        this.#idleTimer = null;
        this.#reap();
      }, Argon2Pool.IDLE_MS);
      Deno.unrefTimer(timer);
      this.#idleTimer = timer;
    }
  }

  #reap(): void {
    for (const slot of [...this.#slots]) if (slot.busy === null) this.#remove(slot);
  }
}

let pool: Argon2Pool | null = null;

/** The process's one pool (every auth instance in a process shares the CPU anyway). */
export function argon2Pool(): Argon2Pool {
  return pool ??= new Argon2Pool();
}

/** Ends the pool's workers (the auth service's close; tests). Later calls start them again. */
export function closePasswordWorkers(): void {
  pool?.close();
}
