import { z } from "zod";
import type { BaseConfig } from "../../shared/config.ts";
import { parseEnv } from "../../shared/config.ts";
import { type CollabLimits, DEFAULT_LIMITS } from "./limits.ts";

const ms = (fallback: number, min: number) => z.coerce.number().int().min(min).default(fallback);

/** Tuning knobs; the defaults are the spec's (compaction after 100 updates, 30 s idle). */
export const collabEnvShape = {
  COLLAB_COMPACT_AFTER: z.coerce.number().int().min(1).default(100),
  COLLAB_IDLE_TIMEOUT_MS: ms(30_000, 100),
  COLLAB_MEMBERSHIP_CHECK_MS: ms(2_000, 50),
  COLLAB_ROOM_GRACE_MS: ms(10_000, 0),
  COLLAB_MAX_CONNECTIONS_PER_USER: z.coerce.number().int().min(1).default(
    DEFAULT_LIMITS.maxConnectionsPerUser,
  ),
  COLLAB_MAX_TEXT_CHARS: z.coerce.number().int().min(1).default(DEFAULT_LIMITS.maxTextChars),
  COLLAB_FOLLOW_POLL_MS: ms(50, 0),
};

export interface CollabConfig {
  base: BaseConfig;
  /** compact once more than this many updates are stored after the snapshot */
  compactAfter: number;
  /** close a socket that sent nothing for this long */
  idleTimeoutMs: number;
  /** re-check every connection's membership this often */
  membershipCheckMs: number;
  /** keep a room in memory this long after its last socket left */
  graceMs: number;
  /** frame, document, awareness and per-user socket limits (docs/collab.md) */
  limits: CollabLimits;
  /** read open documents' heads this often for other instances' writes (0: kv.watch only) */
  followPollMs: number;
}

/** The collab service's settings; a malformed value throws a ConfigError naming it. */
export function parseCollabConfig(
  env: Record<string, string | undefined>,
  base: BaseConfig,
): CollabConfig {
  const raw = parseEnv(collabEnvShape, env);
  return {
    base,
    compactAfter: raw.COLLAB_COMPACT_AFTER,
    idleTimeoutMs: raw.COLLAB_IDLE_TIMEOUT_MS,
    membershipCheckMs: raw.COLLAB_MEMBERSHIP_CHECK_MS,
    graceMs: raw.COLLAB_ROOM_GRACE_MS,
    followPollMs: raw.COLLAB_FOLLOW_POLL_MS,
    limits: {
      ...DEFAULT_LIMITS,
      maxConnectionsPerUser: raw.COLLAB_MAX_CONNECTIONS_PER_USER,
      maxTextChars: raw.COLLAB_MAX_TEXT_CHARS,
    },
  };
}
