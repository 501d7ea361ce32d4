import { runStandalone } from "../../shared/runtime/standalone.ts";
import { createWebService } from "./mod.ts";

await runStandalone("web", createWebService);
