/**
 * Handing memory the C allocator has freed back to the system.
 *
 * glibc's malloc gives memory back only from the top of its heap (`MALLOC_TRIM_THRESHOLD_`);
 * what is freed below a block still in use stays resident. After a burst of requests (each
 * allocating buffers and KV values in native code, and ArrayBuffers, which V8 takes from malloc)
 * that was measured at about 55 MiB of the process's resident memory, for ever:
 * `malloc_trim(0)` hands every free page back (it took the resting service from 234 to 179
 * MiB). So the process calls it every `TRIM_INTERVAL_MS` and after a backup or restore.
 *
 * It takes FFI (`Deno.dlopen`) on Linux with glibc; where either is missing (Deno Deploy, a
 * process without `--allow-ffi`, macOS, musl) this does nothing: it never prompts and never
 * fails.
 */

/** How often a running process hands freed memory back (a call takes well under 1 ms). */
const TRIM_INTERVAL_MS = 10_000;

type Trim = () => void;

let trim: Trim | null | undefined;

function load(): Trim | null {
  if (Deno.build.os !== "linux") return null;
  try {
    if (Deno.permissions.querySync({ name: "ffi", path: "libc.so.6" }).state !== "granted") {
      return null;
    }
    const lib = Deno.dlopen("libc.so.6", {
      malloc_trim: { parameters: ["usize"], result: "i32" },
    });
    return () => void lib.symbols.malloc_trim(0n);
  } catch {
    return null; // no glibc here
  }
}

/** Hands the memory malloc holds free back to the system, where that can be done. */
export function releaseFreedNativeMemory(): void {
  if (trim === undefined) trim = load();
  trim?.();
}

let timer: ReturnType<typeof setInterval> | null = null;

/**
 * Hands freed memory back every TRIM_INTERVAL_MS from now on (the timer never keeps the process
 * alive); answers the stop.
 */
export function trimNativeMemoryPeriodically(): () => void {
  if (timer === null) {
    const interval = setInterval(releaseFreedNativeMemory, TRIM_INTERVAL_MS);
    Deno.unrefTimer(interval);
    timer = interval;
  }
  return () => {
    if (timer !== null) clearInterval(timer);
    timer = null;
  };
}
