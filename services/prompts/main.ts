import { runStandalone } from "../../shared/runtime/standalone.ts";
import { createPromptsService } from "./mod.ts";

await runStandalone("prompts", createPromptsService);
