import { runStandalone } from "../../infra/standalone.ts";
import { createAuthService } from "./mod.ts";

await runStandalone("auth", createAuthService);
