import type { ServiceName } from "../shared/config.ts";
import type { ServiceFactory } from "../shared/service/service.ts";
import { createAuthService } from "../services/auth/mod.ts";
import { createWorkspacesService } from "../services/workspaces/mod.ts";
import { createIdeasService } from "../services/ideas/mod.ts";
import { createPromptsService } from "../services/prompts/mod.ts";
import { createGenaiService } from "../services/genai/mod.ts";
import { createActionsService } from "../services/actions/mod.ts";
import { createCollabService } from "../services/collab/mod.ts";
import { createPostsService } from "../services/posts/mod.ts";
import { createAdminService } from "../services/admin/mod.ts";
import { createMcpService } from "../services/mcp/mod.ts";
import { createWebService } from "../services/web/mod.ts";

/** Every service of the product, by name: what `deno task start` runs in one process. */
export const SERVICE_FACTORIES: Partial<Record<ServiceName, ServiceFactory>> = {
  auth: createAuthService,
  workspaces: createWorkspacesService,
  ideas: createIdeasService,
  prompts: createPromptsService,
  genai: createGenaiService,
  actions: createActionsService,
  collab: createCollabService,
  posts: createPostsService,
  admin: createAdminService,
  mcp: createMcpService,
  web: createWebService,
};
