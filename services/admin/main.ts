import { runStandalone } from "../../infra/standalone.ts";
import { createAdminService } from "./mod.ts";

await runStandalone("admin", createAdminService);
