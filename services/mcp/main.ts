import { runStandalone } from "../../infra/standalone.ts";
import { createMcpService } from "./mod.ts";

await runStandalone("mcp", createMcpService);
