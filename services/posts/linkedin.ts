import type { LinkedInConfig } from "./config.ts";

/** LinkedIn's reserved characters in `commentary` (little text format), escaped with `\`. */
const RESERVED = /[\\|{}@\[\]()<>#*_~]/g;

/** The post text as LinkedIn's `commentary`, so the post reads exactly as written. */
export function escapeCommentary(text: string): string {
  return text.replace(RESERVED, (c) => `\\${c}`);
}

/**
 * A `Retry-After` header in seconds (delay-seconds or an HTTP date); null when absent or
 * unreadable, so the caller's own backoff applies (an absent header is not "retry at once").
 */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | null {
  const value = header?.trim();
  if (!value) return null;
  if (/^\d+$/.test(value)) return Number(value);
  if (!/ GMT$/.test(value)) return null;
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - now) / 1000)) : null;
}

export const LINKEDIN_SCOPES = "openid profile w_member_social";

/** The outcome of one `POST /rest/posts`. */
export type CreatePostOutcome =
  | { kind: "created"; urn: string }
  | { kind: "status"; status: number; body: string; retryAfterSeconds: number | null }
  /** no answer (timeout, a network failure after the request may have left), or a success
   * without the post's id */
  | { kind: "unknown"; error: string };

/** LinkedIn's OAuth 2.0 endpoints and the two API calls this service makes. */
export class LinkedInApi {
  constructor(private readonly config: LinkedInConfig, private readonly redirectUri: string) {}

  get configured(): boolean {
    return this.config.clientId !== null;
  }

  authorizeUrl(state: string): string {
    const url = new URL(`${this.config.authUrl}/authorization`);
    url.searchParams.set("response_type", "code");
    url.searchParams.set("client_id", this.config.clientId ?? "");
    url.searchParams.set("redirect_uri", this.redirectUri);
    url.searchParams.set("state", state);
    url.searchParams.set("scope", LINKEDIN_SCOPES);
    return url.toString();
  }

  /** Exchanges an authorization code; throws with LinkedIn's answer on failure. */
  async exchangeCode(code: string): Promise<{ accessToken: string; expiresIn: number }> {
    const res = await this.#fetch(`${this.config.authUrl}/accessToken`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: this.redirectUri,
        client_id: this.config.clientId ?? "",
        client_secret: this.config.clientSecret,
      }),
    });
    const body = await res.json().catch(() => null);
    if (!res.ok || typeof body?.access_token !== "string") {
      throw new Error(`LinkedIn refused the authorization code (${res.status})`);
    }
    const expiresIn = Number(body.expires_in);
    return {
      accessToken: body.access_token,
      expiresIn: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : 60 * 86_400,
    };
  }

  /** The member behind a token (OpenID Connect userinfo). */
  async userinfo(accessToken: string): Promise<{ sub: string; name: string }> {
    const res = await this.#fetch(`${this.config.apiUrl}/v2/userinfo`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    const body = await res.json().catch(() => null);
    if (!res.ok || typeof body?.sub !== "string" || !body.sub) {
      throw new Error(`LinkedIn did not tell who connected (${res.status})`);
    }
    const name = typeof body.name === "string" && body.name
      ? body.name
      : [body.given_name, body.family_name].filter((p) => typeof p === "string").join(" ");
    return { sub: body.sub, name };
  }

  /** One `POST /rest/posts` as the member, with the headers and body LinkedIn's Posts API takes. */
  async createPost(
    accessToken: string,
    memberSub: string,
    text: string,
  ): Promise<CreatePostOutcome> {
    let res: Response;
    try {
      res = await this.#fetch(`${this.config.apiUrl}/rest/posts`, {
        method: "POST",
        headers: {
          "Authorization": `Bearer ${accessToken}`,
          "LinkedIn-Version": this.config.version,
          "X-Restli-Protocol-Version": "2.0.0",
          "Content-Type": "application/json",
        },
        body: JSON.stringify({
          author: `urn:li:person:${memberSub}`,
          commentary: escapeCommentary(text),
          visibility: "PUBLIC",
          distribution: {
            feedDistribution: "MAIN_FEED",
            targetEntities: [],
            thirdPartyDistributionChannels: [],
          },
          lifecycleState: "PUBLISHED",
          isReshareDisabledByAuthor: false,
        }),
      });
    } catch (err) {
      return { kind: "unknown", error: err instanceof Error ? err.message : String(err) };
    }
    const body = await res.text().catch(() => "");
    const urn = res.headers.get("x-restli-id");
    if (res.status === 201 && urn) return { kind: "created", urn };
    if (res.ok) {
      // A success without the post's id: the post probably exists, so it must not be re-posted.
      return { kind: "unknown", error: `LinkedIn answered ${res.status} without an x-restli-id` };
    }
    return {
      kind: "status",
      status: res.status,
      body: body.slice(0, 300),
      retryAfterSeconds: retryAfterSeconds(res.headers.get("retry-after")),
    };
  }

  #fetch(url: string, init: RequestInit): Promise<Response> {
    return fetch(url, { ...init, signal: AbortSignal.timeout(this.config.timeoutMs) });
  }
}
