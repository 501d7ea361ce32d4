/** `deno task start:actions`: the actions service alone. */
import { runStandalone } from "../../shared/runtime/standalone.ts";
import { createActionsService } from "./mod.ts";

await runStandalone("actions", createActionsService);
