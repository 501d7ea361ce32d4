/**
 * Keeping the heap near what is alive while a backup or a restore runs, without V8 flags (Deno
 * Deploy allows none, so no `gc()`).
 *
 * A backup or restore allocates a lot that dies young, but much of it is promoted before it
 * dies (KV's list pages and atomic mutations wait on I/O), and V8 lets the old generation grow
 * to several times what is alive before it collects it: measured on a restore of 45,000 KV
 * entries and 100 MiB of assets, the heap grew from 85 to 250 MiB while what was alive stayed
 * at 50 MiB. V8 does collect soon (by the next task) when external memory (ArrayBuffers) jumps
 * past its limit. So while work is watched, whenever the heap has grown `HEAP_GROWTH` over the
 * lowest it was seen at, a large ArrayBuffer is made and dropped: it is reserved, never written
 * (calloc maps fresh zero pages, so none becomes resident), and V8 answers with a full
 * collection. Measured by `deno task bench:backup`.
 */

import { releaseFreedNativeMemory } from "./native_memory.ts";

/** Heap growth (used bytes) over the lowest seen while watched that prompts a collection. */
const HEAP_GROWTH = 16 * 1024 * 1024;
/** External memory a prompt reports: well past V8's limit (64 MiB over the last collection's). */
const PROMPT_BYTES = 256 * 1024 * 1024;
/** Prompts at most this often, whatever the heap does. */
const MIN_PROMPT_INTERVAL_MS = 200;
/** How often the heap is looked at while work is watched. */
const PROBE_MS = 25;

let watchers = 0;
let timer: ReturnType<typeof setInterval> | null = null;
let floor = 0;

function heapUsed(): number {
  return Deno.memoryUsage().heapUsed;
}

let reservations = true;

/**
 * Whether a prompt reserves memory. Off on Deno Deploy (the entry points pass the base
 * config's `onDenoDeploy`), where an isolate's memory limit may count the reservation itself:
 * there V8 collects on its own schedule.
 */
export function promptCollectionsBy(reserving: boolean): void {
  reservations = reserving;
}

/** Prompts V8 to collect garbage (it does by the next task; see above); nothing becomes resident. */
export function promptCollection(): void {
  if (reservations) reserveAndDrop();
  // What the collection freed of ArrayBuffers and native objects goes back to the system.
  releaseFreedNativeMemory();
}

function reserveAndDrop(): void {
  try {
    let reserved: ArrayBuffer | null = new ArrayBuffer(PROMPT_BYTES);
    reserved = null;
    void reserved;
  } catch { /* refused (RangeError): no prompt this time */ }
}

let lastPrompt = 0;

function probe() {
  const used = heapUsed();
  if (used < floor) floor = used;
  const now = performance.now();
  if (used > floor + HEAP_GROWTH && now - lastPrompt >= MIN_PROMPT_INTERVAL_MS) {
    lastPrompt = now;
    promptCollection();
  }
}

/** Runs `work` with the heap watched (see above); watches may nest or overlap. */
export async function withHeapWatch<T>(work: () => Promise<T>): Promise<T> {
  if (watchers++ === 0) {
    floor = heapUsed();
    const interval = setInterval(probe, PROBE_MS);
    Deno.unrefTimer(interval);
    timer = interval;
  }
  try {
    return await work();
  } finally {
    if (--watchers === 0 && timer !== null) {
      clearInterval(timer);
      timer = null;
      promptCollection();
    }
  }
}
