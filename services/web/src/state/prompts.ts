/**
 * Prompts of a workspace (the caller's own and the shared ones), the default prompt, and the
 * audience and language lists a prompt or a generation picks from.
 */
import { call, client, type JsonBody, type Schemas } from "./api.ts";

export type Prompt = Schemas["Prompt"];
export type PromptFields = Omit<JsonBody<"/api/prompts", "post">, "workspace_id">;
export type ListItem = { id: string; name: string };

export function loadPrompts(workspaceId: string) {
  return call(client().GET("/api/prompts", { params: { query: { workspaceId } } }));
}

export function createPrompt(workspaceId: string, fields: PromptFields) {
  return call(client().POST("/api/prompts", { body: { workspace_id: workspaceId, ...fields } }));
}

export function updatePrompt(workspaceId: string, id: string, fields: PromptFields) {
  return call(
    client().PUT("/api/prompts/{id}", {
      params: { path: { id } },
      body: { workspace_id: workspaceId, ...fields },
    }),
  );
}

export function makeDefaultPrompt(workspaceId: string, id: string) {
  return call(
    client().PUT("/api/prompts/{id}/default", {
      params: { path: { id } },
      body: { workspace_id: workspaceId },
    }),
  );
}

export function deletePrompt(workspaceId: string, id: string) {
  return call(
    client().DELETE("/api/prompts/{id}", {
      params: { path: { id }, query: { workspaceId } },
    }),
  );
}

export type ListKind = "audiences" | "languages";

/** The workspace's audiences or languages. */
export function loadList(workspaceId: string, kind: ListKind) {
  return kind === "audiences"
    ? call(client().GET("/api/audiences", { params: { query: { workspaceId } } }))
    : call(client().GET("/api/languages", { params: { query: { workspaceId } } }));
}

/** Replaces the workspace's audiences or languages; answers the list as saved. */
export function saveList(workspaceId: string, kind: ListKind, items: ListItem[]) {
  return kind === "audiences"
    ? call(
      client().PUT("/api/audiences", {
        body: { workspace_id: workspaceId, audiences: items },
      }),
    )
    : call(
      client().PUT("/api/languages", {
        body: { workspace_id: workspaceId, languages: items },
      }),
    );
}
