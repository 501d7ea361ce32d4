/** `deno task start:actions`: the actions service alone (CONTRACT section 9). */
import { runStandalone } from "../../shared/runtime/standalone.ts";
import { createActionsService } from "./mod.ts";

await runStandalone("actions", createActionsService);
