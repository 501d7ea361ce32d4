/** `deno task start`: every service in one process (CONTRACT section 1). */
import { startAllInOne } from "./infra/all_in_one.ts";
import { registerQueueCron, stopWithin } from "./shared/runtime/lifecycle.ts";
import { trimNativeMemoryPeriodically } from "./shared/runtime/native_memory.ts";

if (import.meta.main) {
  let started!: () => void;
  registerQueueCron("all-in-one queues", new Promise<void>((resolve) => started = resolve));
  const stack = await startAllInOne(Deno.env.toObject()).catch((err) => {
    console.error(err instanceof Error ? err.message : String(err));
    Deno.exit(1);
  });
  started();
  trimNativeMemoryPeriodically();
  const stop = async () => {
    await stopWithin(() => stack.close());
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGTERM", stop);
  Deno.addSignalListener("SIGINT", stop);
}
