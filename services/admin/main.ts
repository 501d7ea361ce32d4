import { runStandalone } from "../../shared/runtime/standalone.ts";
import { createAdminService } from "./mod.ts";

await runStandalone("admin", createAdminService);
