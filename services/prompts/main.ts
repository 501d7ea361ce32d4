import { runStandalone } from "../../infra/standalone.ts";
import { createPromptsService } from "./mod.ts";

await runStandalone("prompts", createPromptsService);
