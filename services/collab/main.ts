import { runStandalone } from "../../infra/standalone.ts";
import { createCollabService } from "./mod.ts";

await runStandalone("collab", createCollabService);
