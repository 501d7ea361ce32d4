import { declareKeys } from "../../shared/kv/kv_keys.ts";

// Key builders: the only place the ideas KV layout is spelled out (store.ts uses them).
export const ideaKey = (workspaceId: string, ideaId: string) => ["ideas", workspaceId, ideaId];
export const ideasOfWorkspace = (workspaceId: string) => ["ideas", workspaceId];
/** idea id -> workspace id, for peers that address an idea by id alone */
export const ideaWorkspaceKey = (ideaId: string) => ["ideas_by_id", ideaId];
export const totalIdeasKey = () => ["counters", "total_ideas"];
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
  // a capture token's per-minute rate windows: a restore neither brings old ones back nor
  // resets live ones
  qc_rate: "local",
});
