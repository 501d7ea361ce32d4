import { runStandalone } from "../../infra/standalone.ts";
import { createGenaiService } from "./mod.ts";

await runStandalone("genai", createGenaiService);
