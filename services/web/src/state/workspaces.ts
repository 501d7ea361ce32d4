/**
 * The caller's workspaces: loaded once after sign-in, patched from each answer, and the last
 * workspace visited (kept in localStorage: an id, never a token), which `/` opens next time.
 */
import { signal } from "@preact/signals";
import { call, client, type Schemas } from "./api.ts";

export type WorkspaceWithRole = Schemas["WorkspaceWithRole"];
export type WorkspaceRole = Schemas["WorkspaceRole"];

export const workspaces = signal<WorkspaceWithRole[] | null>(null);
export const workspacesError = signal<unknown>(null);

/** The localStorage key of the last workspace visited (an id only). */
export const LAST_WORKSPACE_KEY = "cp_last_workspace";

export async function loadWorkspaces(): Promise<WorkspaceWithRole[]> {
  try {
    const data = await call(client().GET("/api/workspaces"));
    workspaces.value = data.workspaces;
    workspacesError.value = null;
    return data.workspaces;
  } catch (err) {
    workspacesError.value = err;
    throw err;
  }
}

/**
 * Creates a workspace (the caller owns it) and adds it to the list. A `timezone` other than the
 * one it was created with is set right after (creation takes a name and a description only);
 * when that fails the workspace stays, in its first zone, and the error is thrown.
 */
export async function createWorkspace(name: string, description?: string, timezone?: string) {
  let created = await call(client().POST("/api/workspaces", { body: { name, description } }));
  workspaces.value = [...(workspaces.value ?? []), { ...created, member_role: "owner" }];
  rememberWorkspace(created.workspace_id);
  if (timezone && timezone !== created.timezone) {
    created = await updateWorkspace(created.workspace_id, { timezone });
  }
  return created;
}

/** Puts an updated workspace (the PUT answer) into the list, keeping the caller's role. */
export function patchWorkspace(updated: Schemas["Workspace"], role?: WorkspaceRole) {
  const list = workspaces.value;
  if (!list) return;
  workspaces.value = list.map((w) =>
    w.workspace_id === updated.workspace_id
      ? { ...w, ...updated, member_role: role ?? w.member_role }
      : w
  );
}

/** Drops a workspace the caller left or deleted. */
export function dropWorkspace(id: string) {
  workspaces.value = (workspaces.value ?? []).filter((w) => w.workspace_id !== id);
  if (lastWorkspaceId() === id) forgetWorkspace();
}

/** Notes the workspace of the URL as the last one visited. */
export function rememberWorkspace(id: string) {
  try {
    if (localStorage.getItem(LAST_WORKSPACE_KEY) !== id) {
      localStorage.setItem(LAST_WORKSPACE_KEY, id);
    }
  } catch {
    // storage disabled: the first workspace is opened instead
  }
}

function forgetWorkspace() {
  try {
    localStorage.removeItem(LAST_WORKSPACE_KEY);
  } catch {
    // storage disabled
  }
}

export function lastWorkspaceId(): string | null {
  try {
    return localStorage.getItem(LAST_WORKSPACE_KEY);
  } catch {
    return null;
  }
}

/** The workspace to open when the URL names none: the last one visited, else the first. */
export function preferredWorkspace(): WorkspaceWithRole | null {
  const list = workspaces.value;
  if (!list || list.length === 0) return null;
  const last = lastWorkspaceId();
  return list.find((w) => w.workspace_id === last) ?? list[0];
}

/** One workspace with the caller's role and its member count. */
export function loadWorkspace(id: string) {
  return call(client().GET("/api/workspaces/{id}", { params: { path: { id } } }));
}

/** Saves settings (or hands ownership over) and puts the answer into the list. */
export async function updateWorkspace(
  id: string,
  body: Schemas["UpdateWorkspaceRequest"],
  role?: WorkspaceRole,
) {
  const updated = await call(
    client().PUT("/api/workspaces/{id}", { params: { path: { id } }, body }),
  );
  patchWorkspace(updated, role);
  return updated;
}

/** Deletes the workspace (the owner), drops it from the list, then reloads the list. */
export async function deleteWorkspace(id: string): Promise<void> {
  await call(client().DELETE("/api/workspaces/{id}", { params: { path: { id } } }));
  dropWorkspace(id);
  await loadWorkspaces().catch(() => {});
}
