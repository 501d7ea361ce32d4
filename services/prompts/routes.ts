import { createRoute } from "@hono/zod-openapi";
import { conflict, forbidden, notFound } from "../../shared/http/app_error.ts";
import { bearer as security, body, err, json } from "../../shared/http/openapi.ts";
import { requireCaller, type ServiceApp } from "../../shared/http/service_app.ts";
import type { WorkspacesClient } from "../workspaces/client.ts";
import {
  createPromptBody,
  deletedSchema,
  idParam,
  type Prompt,
  promptListSchema,
  promptSchema,
  updatePromptBody,
  workspaceBody,
  workspaceQuery,
} from "./schemas.ts";
import type { PromptsStore } from "./store.ts";
import { MESSAGES } from "../../shared/http/messages.ts";

export interface PromptsDeps {
  store: PromptsStore;
  workspaces: WorkspacesClient;
}

export const PROMPT_NOT_FOUND = "Prompt not found";
export const NOT_CREATOR = "Only the prompt's creator can change it";
export const LAST_PROMPT = "Cannot delete your last prompt in this workspace";

const tags = ["Prompts"];

const createPrompt = createRoute({
  method: "post",
  path: "/api/prompts",
  tags,
  security,
  summary: "Create a prompt template (any member)",
  request: body(createPromptBody),
  responses: {
    201: json(promptSchema, "The prompt, `is_default` false"),
    400: err("A required field missing, or the tone invalid (valid tones listed alphabetically)"),
    403: err(MESSAGES.notMember),
    404: err("Workspace soft-deleted"),
  },
});

const listPrompts = createRoute({
  method: "get",
  path: "/api/prompts",
  tags,
  security,
  summary: "List the caller's own prompts in the workspace",
  request: { query: workspaceQuery },
  responses: {
    200: json(promptListSchema, "The caller's prompts"),
    400: err("workspaceId missing"),
    403: err(MESSAGES.notMember),
    404: err("Workspace soft-deleted"),
  },
});

const getPrompt = createRoute({
  method: "get",
  path: "/api/prompts/{id}",
  tags,
  security,
  summary: "Get any prompt of the workspace",
  request: { params: idParam, query: workspaceQuery },
  responses: {
    200: json(promptSchema, "The prompt"),
    400: err("workspaceId missing"),
    403: err(MESSAGES.notMember),
    404: err("Prompt not found"),
  },
});

const updatePrompt = createRoute({
  method: "put",
  path: "/api/prompts/{id}",
  tags,
  security,
  summary: "Update a prompt (creator only)",
  request: { params: idParam, ...body(updatePromptBody) },
  responses: {
    200: json(promptSchema, "The prompt"),
    400: err("workspace_id missing or tone invalid"),
    403: err("Not a workspace member, or not the creator"),
    404: err("Prompt not found"),
  },
});

const deletePrompt = createRoute({
  method: "delete",
  path: "/api/prompts/{id}",
  tags,
  security,
  summary: "Delete a prompt (creator only; never the creator's last one in the workspace)",
  request: { params: idParam, query: workspaceQuery },
  responses: {
    200: json(deletedSchema, "Deleted"),
    400: err("workspaceId missing"),
    403: err("Not a workspace member, or not the creator"),
    404: err("Prompt not found"),
    409: err("It is the caller's last prompt in the workspace"),
  },
});

const setDefault = createRoute({
  method: "put",
  path: "/api/prompts/{id}/default",
  tags,
  security,
  summary: "Make this the caller's default prompt in the workspace (creator only)",
  request: { params: idParam, ...body(workspaceBody) },
  responses: {
    200: json(promptSchema, "The prompt, `is_default` true"),
    400: err("workspace_id missing"),
    403: err("Not a workspace member, or not the creator"),
    404: err("Prompt not found"),
  },
});

/** The REST routes of prompts: membership (403), existence (404), then creator-only (403). */
export function mountPromptRoutes(app: ServiceApp, { store, workspaces }: PromptsDeps): void {
  /** Membership, then the prompt in that workspace, then (when asked) the creator check. */
  async function load(
    workspaceId: string,
    promptId: string,
    userId: string,
    creatorOnly: boolean,
  ): Promise<Prompt> {
    await workspaces.requireMember(workspaceId, userId);
    const prompt = await store.get(workspaceId, promptId);
    if (!prompt) throw notFound(PROMPT_NOT_FOUND);
    if (creatorOnly && prompt.created_by !== userId) throw forbidden(NOT_CREATOR);
    return prompt;
  }

  app.openapi(createPrompt, async (c) => {
    const caller = requireCaller(c);
    const input = c.req.valid("json");
    await workspaces.requireMember(input.workspace_id, caller.user_id);
    const prompt = await store.create({
      workspace_id: input.workspace_id,
      name: input.name,
      system_instruction: input.system_instruction,
      user_template: input.user_template,
      tone: input.tone,
      default_audience: input.default_audience ?? null,
      default_language: input.default_language ?? null,
      created_by: caller.user_id,
    });
    return c.json(prompt, 201);
  });

  app.openapi(listPrompts, async (c) => {
    const caller = requireCaller(c);
    const { workspaceId } = c.req.valid("query");
    await workspaces.requireMember(workspaceId, caller.user_id);
    const items = await store.listByCreator(workspaceId, caller.user_id);
    return c.json({ items, count: items.length }, 200);
  });

  app.openapi(getPrompt, async (c) => {
    const caller = requireCaller(c);
    const { id } = c.req.valid("param");
    const { workspaceId } = c.req.valid("query");
    return c.json(await load(workspaceId, id, caller.user_id, false), 200);
  });

  app.openapi(updatePrompt, async (c) => {
    const caller = requireCaller(c);
    const { id } = c.req.valid("param");
    const { workspace_id, ...patch } = c.req.valid("json");
    await load(workspace_id, id, caller.user_id, true);
    const prompt = await store.update(workspace_id, id, patch);
    if (!prompt) throw notFound(PROMPT_NOT_FOUND);
    return c.json(prompt, 200);
  });

  app.openapi(deletePrompt, async (c) => {
    const caller = requireCaller(c);
    const { id } = c.req.valid("param");
    const { workspaceId } = c.req.valid("query");
    await load(workspaceId, id, caller.user_id, true);
    const result = await store.delete(workspaceId, id);
    if (result === "not_found") throw notFound(PROMPT_NOT_FOUND);
    if (result === "last_prompt") throw conflict(LAST_PROMPT);
    return c.json({ deleted: true as const }, 200);
  });

  app.openapi(setDefault, async (c) => {
    const caller = requireCaller(c);
    const { id } = c.req.valid("param");
    const { workspace_id } = c.req.valid("json");
    await load(workspace_id, id, caller.user_id, true);
    const prompt = await store.setDefault(workspace_id, id);
    if (!prompt) throw notFound(PROMPT_NOT_FOUND);
    return c.json(prompt, 200);
  });
}
