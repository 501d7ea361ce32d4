/**
 * The caller's capture tokens as the server lists them (never a token's value): loaded by the
 * quick capture screen and refetched after every create and revoke, so the list never drifts.
 */
import { signal } from "@preact/signals";
import { ApiError, call, client, type Schemas } from "./api.ts";

export type CaptureTokenInfo = Schemas["CaptureTokenInfo"];
export type NewCaptureToken = Schemas["CaptureToken"];

export const captureTokens = signal<CaptureTokenInfo[] | null>(null);
export const captureTokensError = signal<unknown>(null);

export async function loadCaptureTokens(): Promise<void> {
  try {
    const data = await call(client().GET("/api/quick-capture/tokens"));
    captureTokens.value = data.items;
    captureTokensError.value = null;
  } catch (err) {
    captureTokensError.value = err;
  }
}

/** Forgets the list (a screen opened by someone else in this tab must not see it). */
export function forgetCaptureTokens(): void {
  captureTokens.value = null;
  captureTokensError.value = null;
}

/** Revokes one token; one that is already gone (404) counts as revoked. */
async function revoke(tokenId: string): Promise<void> {
  try {
    await call(
      client().DELETE("/api/quick-capture/tokens/{token_id}", {
        params: { path: { token_id: tokenId } },
      }),
    );
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 404)) throw err;
  }
}

export async function revokeCaptureToken(tokenId: string): Promise<void> {
  try {
    await revoke(tokenId);
  } finally {
    await loadCaptureTokens();
  }
}

export interface CreatedToken {
  token: NewCaptureToken;
  /** How many of the older tokens asked for were revoked. */
  revoked: number;
  /** Why some older token could not be revoked (the new one works all the same). */
  revokeError: unknown;
}

/** Creates a token for the workspace, then revokes the tokens `revokeOlder` names. */
export async function createCaptureToken(
  workspaceId: string,
  revokeOlder: readonly string[] = [],
): Promise<CreatedToken> {
  const token = await call(
    client().POST("/api/quick-capture/token", { body: { workspace_id: workspaceId } }),
  );
  const results = await Promise.allSettled(revokeOlder.map(revoke));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  await loadCaptureTokens();
  return {
    token,
    revoked: results.filter((r) => r.status === "fulfilled").length,
    revokeError: failed?.reason ?? null,
  };
}

/** Saves an idea through a capture token (the bookmarklet's page: no session needed). */
export async function captureIdea(token: string, title: string): Promise<void> {
  await call(
    client().POST("/api/quick-capture", {
      params: { header: { "x-capture-token": token } },
      body: { title, tags: [] },
    }),
  );
}
