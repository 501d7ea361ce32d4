import { runStandalone } from "../../infra/standalone.ts";
import { createIdeasService } from "./mod.ts";

await runStandalone("ideas", createIdeasService);
