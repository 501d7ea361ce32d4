import { declareKeys } from "../../shared/kv/kv_keys.ts";
import { shortKeyPart } from "../../shared/kv/kv_pages.ts";

// Key builders: the only place the ideas KV layout is spelled out (store.ts uses them).
export const ideaKey = (workspaceId: string, ideaId: string) => ["ideas", workspaceId, ideaId];
export const ideasOfWorkspace = (workspaceId: string) => ["ideas", workspaceId];
/** idea id -> workspace id, for peers that address an idea by id alone */
export const ideaWorkspaceKey = (ideaId: string) => ["ideas_by_id", ideaId];
export const totalIdeasKey = () => ["counters", "total_ideas"];

// The indexes of the paged list, one per filter; each entry's key ends in the idea's id, so a
// range of one is newest first read backwards, like `["ideas", ws]` itself.
export const ideasByStatus = (workspaceId: string, status: string) => [
  "ideas_by_status",
  workspaceId,
  status,
];
export const ideasByAuthor = (workspaceId: string, authorId: string) => [
  "ideas_by_author",
  workspaceId,
  authorId,
];
/** A tag's part is the tag, or a hash of a long one (`shortKeyPart`). */
export const ideasByTag = (workspaceId: string, tag: string) => [
  "ideas_by_tag",
  workspaceId,
  shortKeyPart(tag),
];
/** The index entries of one idea. */
export function ideaIndexKeys(
  idea: {
    workspace_id: string;
    idea_id: string;
    status: string;
    created_by: string;
    tags: string[];
  },
): Deno.KvKey[] {
  const ws = idea.workspace_id;
  return [
    [...ideasByStatus(ws, idea.status), idea.idea_id],
    [...ideasByAuthor(ws, idea.created_by), idea.idea_id],
    ...[...new Set(idea.tags.map(shortKeyPart))].map((part) => [
      "ideas_by_tag",
      ws,
      part,
      idea.idea_id,
    ]),
  ];
}
/** Set once every idea is in the indexes above (start-up, and after a restore). */
export const LIST_INDEXES_BUILT = ["index_builds", "idea_lists"];
export const captureTokenKey = (tokenHash: string) => ["qc_tokens", tokenHash];
export const captureTokensPrefix = () => ["qc_tokens"];
/** A user's tokens by token id (a ULID, so newest last): holds the token's hash. */
export const tokenByUserKey = (
  userId: string,
  tokenId: string,
) => ["qc_tokens_by_user", userId, tokenId];
export const tokensOfUser = (userId: string) => ["qc_tokens_by_user", userId];
export const activeTokenByUserKey = (userId: string) => ["qc_active_by_user", userId];
export const activeTokenByWorkspaceKey = (
  workspaceId: string,
) => ["qc_active_by_workspace", workspaceId];
/** Captures made with one token in one fixed minute window; expires on its own. */
export const captureRateKey = (tokenHash: string, windowStart: number) => [
  "qc_rate",
  tokenHash,
  windowStart,
];

/**
 * Every key family the ideas service writes, with its backup class: the one list its backup
 * and restore read.
 */
export const KEY_FAMILIES = declareKeys({
  ideas: "data",
  ideas_by_id: "data",
  counters: "data",
  qc_tokens: "data",
  qc_tokens_by_user: "data",
  qc_active_by_user: "data",
  qc_active_by_workspace: "data",
  // the paged list's indexes, built from the ideas (start-up and after a restore)
  ideas_by_status: "derived",
  ideas_by_author: "derived",
  ideas_by_tag: "derived",
  index_builds: "derived",
  // a capture token's per-minute rate windows: a restore neither brings old ones back nor
  // resets live ones
  qc_rate: "local",
});
