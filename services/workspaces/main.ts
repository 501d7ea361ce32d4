import { runStandalone } from "../../shared/runtime/standalone.ts";
import { createWorkspacesService } from "./mod.ts";

await runStandalone("workspaces", createWorkspacesService);
