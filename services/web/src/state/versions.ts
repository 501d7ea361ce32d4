/**
 * A post's versions: the list (who, when, why), one version's text and fields, saving what the
 * post holds now (with an optional label), and restoring one (owners and editors; the server
 * sets the live text, which every open editor sees at once).
 */
import { call, client, type Schemas } from "./api.ts";

export type VersionSummary = Schemas["PostVersionSummary"];
export type Version = Schemas["PostVersion"];

export function loadVersions(workspaceId: string, postId: string) {
  return call(
    client().GET("/api/posts/{id}/versions", {
      params: { path: { id: postId }, query: { workspaceId } },
    }),
  );
}

export function loadVersion(workspaceId: string, postId: string, versionId: string) {
  return call(
    client().GET("/api/posts/{id}/versions/{version_id}", {
      params: { path: { id: postId, version_id: versionId }, query: { workspaceId } },
    }),
  );
}

/** Saves a version of the post as it is now; a blank label is left out. */
export function saveVersion(workspaceId: string, postId: string, label: string) {
  const trimmed = label.trim();
  return call(
    client().POST("/api/posts/{id}/versions", {
      params: { path: { id: postId } },
      body: trimmed ? { workspace_id: workspaceId, label: trimmed } : { workspace_id: workspaceId },
    }),
  );
}

/** Makes the post the version again; answers the post. */
export function restoreVersion(workspaceId: string, postId: string, versionId: string) {
  return call(
    client().POST("/api/posts/{id}/versions/{version_id}/restore", {
      params: { path: { id: postId, version_id: versionId } },
      body: { workspace_id: workspaceId },
    }),
  );
}
