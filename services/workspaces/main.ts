import { runStandalone } from "../../infra/standalone.ts";
import { createWorkspacesService } from "./mod.ts";

await runStandalone("workspaces", createWorkspacesService);
