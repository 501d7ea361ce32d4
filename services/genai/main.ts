import { runStandalone } from "../../shared/runtime/standalone.ts";
import { createGenaiService } from "./mod.ts";

await runStandalone("genai", createGenaiService);
