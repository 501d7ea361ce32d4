import { runStandalone } from "../../infra/standalone.ts";
import { createWebService } from "./mod.ts";

await runStandalone("web", createWebService);
