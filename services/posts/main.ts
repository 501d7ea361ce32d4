import { runStandalone } from "../../infra/standalone.ts";
import { createPostsService } from "./mod.ts";

await runStandalone("posts", createPostsService);
