import { runStandalone } from "../../shared/runtime/standalone.ts";
import { createPostsService } from "./mod.ts";

await runStandalone("posts", createPostsService);
