import { runStandalone } from "../../shared/runtime/standalone.ts";
import { createIdeasService } from "./mod.ts";

await runStandalone("ideas", createIdeasService);
