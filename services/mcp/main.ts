import { runStandalone } from "../../shared/runtime/standalone.ts";
import { createMcpService } from "./mod.ts";

await runStandalone("mcp", createMcpService);
