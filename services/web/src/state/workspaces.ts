/** The caller's workspaces: loaded once after sign-in, patched from each answer. */
import { signal } from "@preact/signals";
import { api, call, type Schemas } from "../api/client.ts";

export type WorkspaceWithRole = Schemas["WorkspaceWithRole"];

export const workspaces = signal<WorkspaceWithRole[] | null>(null);
export const workspacesError = signal<unknown>(null);

export async function loadWorkspaces(): Promise<WorkspaceWithRole[]> {
  try {
    const data = await call(api.GET("/api/workspaces"));
    workspaces.value = data.workspaces;
    workspacesError.value = null;
    return data.workspaces;
  } catch (err) {
    workspacesError.value = err;
    throw err;
  }
}

/** Creates a workspace (the caller owns it) and adds it to the list. */
export async function createWorkspace(name: string, description?: string) {
  const created = await call(api.POST("/api/workspaces", { body: { name, description } }));
  workspaces.value = [...(workspaces.value ?? []), { ...created, member_role: "owner" }];
  return created;
}
