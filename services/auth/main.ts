import { runStandalone } from "../../shared/runtime/standalone.ts";
import { createAuthService } from "./mod.ts";

await runStandalone("auth", createAuthService);
