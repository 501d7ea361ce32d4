import { runStandalone } from "../../shared/runtime/standalone.ts";
import { createCollabService } from "./mod.ts";

await runStandalone("collab", createCollabService);
