import type { ServiceDirectory } from "../../shared/service/service_directory.ts";
import { CollabClient } from "../collab/client.ts";
import type { CommentBroadcast } from "./schemas.ts";

/**
 * The live documents of the collab service, as posts uses them: the one source of truth for a
 * post's text while collab runs. When collab is not part of the deployment (`available()` is
 * false) every call is a no-op and the posts service's own copy of the text is the text.
 */
export interface LiveDocs {
  available(): boolean;
  /** Replaces the document's text with `content` as one update sent to every editor. */
  setContent(postId: string, workspaceId: string, content: string): Promise<void>;
  /** The current texts; posts without a document are absent. */
  getContents(postIds: string[]): Promise<Map<string, string>>;
  deleteDoc(postId: string): Promise<void>;
  /** The SHA-256 (hex) of the current texts; posts without a document are absent. */
  fingerprints(postIds: string[]): Promise<Map<string, string>>;
  /** Tells collab each post's workspace (a socket opens only for a post's own workspace). */
  setWorkspaces(docs: { post_id: string; workspace_id: string }[]): Promise<void>;
  /** Sends a comment event to every socket on the post (best effort). */
  broadcast(postId: string, message: CommentBroadcast): Promise<void>;
}

/** The collab service's `/internal/docs` API through its client, when collab is registered. */
export function collabLiveDocs(directory: ServiceDirectory, secret: string): LiveDocs {
  const collab = new CollabClient(directory, secret);
  const available = () => directory.has("collab");
  return {
    available,
    async setContent(postId, workspaceId, content) {
      if (available()) await collab.setContent(postId, workspaceId, content);
    },
    async getContents(postIds) {
      if (!available() || postIds.length === 0) return new Map();
      return new Map(Object.entries(await collab.getContents(postIds)));
    },
    async deleteDoc(postId) {
      if (available()) await collab.deleteDoc(postId);
    },
    async fingerprints(postIds) {
      if (!available() || postIds.length === 0) return new Map();
      return new Map(Object.entries(await collab.fingerprints(postIds)));
    },
    async setWorkspaces(docs) {
      if (available() && docs.length > 0) await collab.setWorkspaces(docs);
    },
    async broadcast(postId, message) {
      if (available()) await collab.broadcast(postId, message);
    },
  };
}
