import type { z } from "zod";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { AppError, notFound } from "../../shared/http/app_error.ts";
import type { Caller } from "../../shared/http/identity.ts";
import { errorMessage, type Logger } from "../../shared/log.ts";
import { countMetric } from "../../shared/service/metrics.ts";
import type { IdeasClient } from "../ideas/client.ts";
import type { PostsClient } from "../posts/client.ts";
import type { WorkspacesClient } from "../workspaces/client.ts";
import {
  type Annotation,
  toolAnnotations,
  toolDescriptions,
  toolInputs,
  type ToolName,
  toolOutputs,
} from "./schemas.ts";
import { MESSAGES } from "../../shared/http/messages.ts";

export const SERVER_INFO = { name: "content-pipeline", version: "1.0.0" } as const;

const POST_NOT_FOUND = MESSAGES.postNotFound;
const IDEA_NOT_FOUND = "Idea not found";

/**
 * The three AI operations as the genai service runs them for a peer: the same prompt layers,
 * example ranking, limits, rate limit and errors (AppError with the REST status and message)
 * as `/api/genai/*`. Nothing is persisted by them.
 */
export interface GenaiOps {
  generate(caller: Caller, input: {
    workspace_id: string;
    idea_id: string;
    /** the idea as MCP read it, so genai does not read it again */
    idea: { idea_id: string; title: string; description: string; tags: string[] };
    prompt_id?: string;
    audience?: string;
    tone?: string;
    language?: string;
    length?: string;
  }): Promise<{ content: string }>;
  iterate(caller: Caller, input: {
    workspace_id: string;
    post_id: string;
    instruction: string;
    current_content: string;
    prompt_id?: string;
  }): Promise<{ suggestion: string }>;
  proofread(caller: Caller, input: {
    workspace_id: string;
    post_id: string;
    content: string;
  }): Promise<{ annotations: Annotation[] }>;
}

export interface ToolDeps {
  workspaces: WorkspacesClient;
  ideas: IdeasClient;
  posts: PostsClient;
  genai: GenaiOps;
  logger: Logger;
}

/**
 * Tools that count `McpToolInvocation` (tag `tool_name`) when they succeed: the spec has
 * create_idea count and says list_ideas and update_idea do not; the tools it leaves open count
 * when they write or call the AI model, and the read-only list_workspaces does not.
 */
const COUNTED: ReadonlySet<ToolName> = new Set([
  "create_idea",
  "generate_post",
  "iterate_post",
  "proofread_post",
  "request_review",
  "schedule_post",
]);

/**
 * An MCP server holding every tool, acting for `caller` (the gateway verified the token).
 * One is built per request: the transport is stateless, so any process can answer any call.
 */
export function buildMcpServer(caller: Caller, deps: ToolDeps): McpServer {
  const { workspaces, ideas, posts, genai, logger } = deps;
  const server = new McpServer(SERVER_INFO, {
    instructions: "Plan and write social-network posts in the Content Pipeline workspaces you " +
      "belong to: start with list_workspaces, then work with a workspace's ideas and posts.",
  });

  /** Membership first, as on every REST route: 403 `Not a workspace member`. */
  const member = (workspaceId: string) => workspaces.requireMember(workspaceId, caller.user_id);

  /**
   * A tool's answer as the spec gives it, its JSON in one text item, and the same object as
   * `structuredContent` (its output schema's shape); refusals as tool errors.
   */
  const run = (name: ToolName, body: () => Promise<unknown>) =>
  async (): Promise<
    CallToolResult
  > => {
    try {
      const result = toolOutputs[name].parse(await body()) as Record<string, unknown>;
      if (COUNTED.has(name)) countMetric("McpToolInvocation", 1, { tool_name: name });
      return {
        content: [{ type: "text", text: JSON.stringify(result) }],
        structuredContent: result,
      };
    } catch (err) {
      if (err instanceof AppError) {
        return { isError: true, content: [{ type: "text", text: err.message }] };
      }
      logger.error("mcp tool failed", {
        tool_name: name,
        user_id: caller.user_id,
        error: errorMessage(err),
      });
      return {
        isError: true,
        content: [{ type: "text", text: `${name} failed: internal error` }],
      };
    }
  };

  const register = <N extends ToolName>(
    name: N,
    handler: (args: Args<N>) => Promise<unknown>,
  ) => {
    server.registerTool(
      name,
      {
        title: toolAnnotations[name].title,
        description: toolDescriptions[name],
        inputSchema: toolInputs[name],
        outputSchema: toolOutputs[name],
        annotations: toolAnnotations[name],
      },
      // deno-lint-ignore no-explicit-any
      ((args: any) => run(name, () => handler(args))()) as any,
    );
  };

  register("list_workspaces", () => workspaces.listForUser(caller.user_id));

  register("list_ideas", async ({ workspace_id, status }) => {
    await member(workspace_id);
    // The ideas service filters by the exact status (an unknown one matches nothing).
    const items = await ideas.listIdeas(workspace_id, status || undefined);
    return {
      ideas: items.map((idea) => ({
        idea_id: idea.idea_id,
        workspace_id: idea.workspace_id,
        title: idea.title,
        description: idea.description,
        status: idea.status,
        tags: idea.tags,
        created_at: idea.created_at,
        updated_at: idea.updated_at,
      })),
    };
  });

  register("create_idea", async ({ workspace_id, title, description, tags }) => {
    await member(workspace_id);
    const idea = await ideas.createIdea({
      workspace_id,
      title,
      description,
      tags: tags ?? [],
      created_by: caller.user_id,
    });
    return {
      idea_id: idea.idea_id,
      workspace_id: idea.workspace_id,
      title: idea.title,
      status: idea.status,
      created_at: idea.created_at,
    };
  });

  register("update_idea", async ({ idea_id, workspace_id, status, tags }) => {
    await member(workspace_id);
    const idea = await ideas.mcpUpdate(idea_id, {
      workspace_id,
      ...(status ? { status } : {}),
      ...(tags ? { tags } : {}),
    });
    return {
      idea_id: idea.idea_id,
      workspace_id: idea.workspace_id,
      status: idea.status,
      updated_at: idea.updated_at,
    };
  });

  // The idea is read once, here: genai is handed it, and posts converts it without reading it.
  register("generate_post", async (args) => {
    await member(args.workspace_id);
    const idea = await ideas.getIdea(args.idea_id, args.workspace_id);
    if (!idea) throw notFound(IDEA_NOT_FOUND);
    const { idea_id, title, description, tags } = idea;
    const { content } = await genai.generate(caller, {
      ...args,
      idea: { idea_id, title, description, tags },
    });
    // A new idea is linked (and so converted), as REST post creation does; an idea already
    // converted keeps its post, and the new draft stands on its own rather than failing. So
    // does a draft whose idea another call converted meanwhile (409 from the conversion).
    const draft = {
      workspace_id: args.workspace_id,
      title: idea.title,
      content,
      tags: idea.tags,
      author_id: caller.user_id,
      author_name: caller.name,
    };
    const linked = idea.status === "new"
      ? await posts.createPost({ ...draft, source_idea_id: idea.idea_id }).catch((err) => {
        if (err instanceof AppError && err.status === 409) return null;
        throw err;
      })
      : null;
    const post = linked ?? await posts.createPost({ ...draft, source_idea_id: null });
    return {
      post_id: post.post_id,
      workspace_id: post.workspace_id,
      idea_id: idea.idea_id,
      content: post.content,
    };
  });

  register("iterate_post", async ({ workspace_id, post_id, instruction, prompt_id }) => {
    await member(workspace_id);
    const post = await posts.getPost(post_id, workspace_id);
    if (!post) throw notFound(POST_NOT_FOUND);
    const { suggestion } = await genai.iterate(caller, {
      workspace_id,
      post_id,
      instruction,
      current_content: post.content,
      ...(prompt_id ? { prompt_id } : {}),
    });
    const updated = await posts.setContent(post_id, suggestion, workspace_id, caller.user_id);
    return { post_id: updated.post_id, content: updated.content };
  });

  register("proofread_post", async ({ workspace_id, post_id }) => {
    await member(workspace_id);
    const post = await posts.getPost(post_id, workspace_id);
    if (!post) throw notFound(POST_NOT_FOUND);
    const { annotations } = await genai.proofread(caller, {
      workspace_id,
      post_id,
      content: post.content,
    });
    return { post_id, annotations };
  });

  register("list_posts", async ({ workspace_id, status }) => {
    await member(workspace_id);
    const found = await posts.listPosts(workspace_id, status);
    return {
      posts: found.map((p) => ({
        post_id: p.post_id,
        title: p.title,
        status: p.status,
        updated_at: p.updated_at,
        media_count: p.media?.length ?? 0,
        publish_as: p.publish_as ?? "member",
      })),
    };
  });

  register("request_review", async ({ workspace_id, post_id, reviewer_ids }) => {
    await member(workspace_id);
    return await posts.requestReview(caller, post_id, { workspace_id, reviewer_ids });
  });

  register("schedule_post", async ({ workspace_id, post_id, at }) => {
    await member(workspace_id);
    const post = await posts.schedule(caller, post_id, {
      workspace_id,
      ...(at !== undefined ? { at } : {}),
    });
    return { ...post, media_count: post.media.length };
  });

  register("set_first_comment", async ({ workspace_id, post_id, first_comment }) => {
    await member(workspace_id);
    const post = await posts.setFirstComment(
      post_id,
      workspace_id,
      first_comment,
      caller.user_id,
    );
    return { post_id: post.post_id, first_comment: post.first_comment, status: post.status };
  });

  return server;
}

/** A tool's parsed arguments (defaults applied), from its input shape. */
type Args<N extends ToolName> = z.output<z.ZodObject<(typeof toolInputs)[N]>>;
