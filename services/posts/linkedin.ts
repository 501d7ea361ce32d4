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
/** With organization pages: the member's scopes and the pages' (Community Management API). */
export const LINKEDIN_ORGANIZATION_SCOPES =
  "openid profile w_member_social r_organization_admin w_organization_social";

/** LinkedIn refused a call: its status, its message, and when to retry (429, 5xx). */
export type LinkedInRefusal = {
  kind: "status";
  status: number;
  body: string;
  retryAfterSeconds: number | null;
};

/** The outcome of one `POST /rest/posts` (or of a comment). */
export type CreatePostOutcome =
  | { kind: "created"; urn: string }
  | LinkedInRefusal
  /** no answer (timeout, a network failure after the request may have left), or a success
   * without the post's id */
  | { kind: "unknown"; error: string };

/** The outcome of an upload's step: done, refused, or no answer (safe to retry: not posted). */
export type UploadOutcome<T> =
  | { kind: "ok"; value: T }
  | LinkedInRefusal
  | { kind: "unknown"; error: string };

/** What a post shows beside its text, as LinkedIn's Posts API takes it (`content`). */
export type PostContent =
  | { media: { id: string; altText?: string; title?: string } }
  | { multiImage: { images: { id: string; altText?: string }[] } };

/** LinkedIn's message in an error answer (`{"message": ...}`), else the body's start. */
export function linkedInMessage(body: string): string {
  try {
    const parsed = JSON.parse(body);
    if (typeof parsed?.message === "string" && parsed.message) return parsed.message.slice(0, 300);
  } catch { /* not JSON */ }
  return body.slice(0, 200);
}

/** LinkedIn's OAuth 2.0 endpoints and the two API calls this service makes. */
export class LinkedInApi {
  constructor(private readonly config: LinkedInConfig, private readonly redirectUri: string) {}

  get configured(): boolean {
    return this.config.clientId !== null;
  }

  /** Whether connections list the member's organization pages (LINKEDIN_ORGANIZATIONS). */
  get organizationsEnabled(): boolean {
    return this.config.organizations;
  }

  authorizeUrl(state: string): string {
    const url = new URL(`${this.config.authUrl}/authorization`);
    url.searchParams.set("response_type", "code");
    url.searchParams.set("client_id", this.config.clientId ?? "");
    url.searchParams.set("redirect_uri", this.redirectUri);
    url.searchParams.set("state", state);
    url.searchParams.set(
      "scope",
      this.config.organizations ? LINKEDIN_ORGANIZATION_SCOPES : LINKEDIN_SCOPES,
    );
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

  /**
   * The pages the member administers (`organizationAcls`, then each page's `localizedName`);
   * throws with LinkedIn's answer on failure.
   */
  async organizations(accessToken: string): Promise<{ urn: string; name: string }[]> {
    const acls = await this.#fetch(
      `${this.config.apiUrl}/rest/organizationAcls?q=roleAssignee&role=ADMINISTRATOR&state=APPROVED`,
      { headers: this.#restHeaders(accessToken) },
    );
    const body = await acls.json().catch(() => null);
    if (!acls.ok || !Array.isArray(body?.elements)) {
      throw new Error(`LinkedIn did not list the member's pages (${acls.status})`);
    }
    const urns = [
      ...new Set(
        body.elements.map((e: { organization?: unknown }) => e.organization).filter((
          urn: unknown,
        ): urn is string => typeof urn === "string" && /^urn:li:organization:\d+$/.test(urn)),
      ),
    ] as string[];
    return await Promise.all(urns.map(async (urn) => {
      const id = urn.slice("urn:li:organization:".length);
      const res = await this.#fetch(`${this.config.apiUrl}/rest/organizations/${id}`, {
        headers: this.#restHeaders(accessToken),
      });
      const org = await res.json().catch(() => null);
      const name = res.ok && typeof org?.localizedName === "string" ? org.localizedName : urn;
      return { urn, name };
    }));
  }

  /**
   * Step one of an image or document upload: `initializeUpload` for `owner` (the post's
   * author); answers the URL to PUT the bytes to and the asset's URN.
   */
  async initializeUpload(
    accessToken: string,
    kind: "image" | "document",
    owner: string,
  ): Promise<UploadOutcome<{ uploadUrl: string; urn: string }>> {
    const resource = kind === "image" ? "images" : "documents";
    const answer = await this.#call(
      `${this.config.apiUrl}/rest/${resource}?action=initializeUpload`,
      {
        method: "POST",
        headers: { ...this.#restHeaders(accessToken), "Content-Type": "application/json" },
        body: JSON.stringify({ initializeUploadRequest: { owner } }),
      },
    );
    if (answer.kind !== "ok") return answer;
    let value: { uploadUrl?: unknown; image?: unknown; document?: unknown } | undefined;
    try {
      value = JSON.parse(answer.body)?.value;
    } catch { /* below */ }
    const urn = kind === "image" ? value?.image : value?.document;
    if (typeof value?.uploadUrl !== "string" || typeof urn !== "string") {
      return { kind: "unknown", error: `LinkedIn's ${resource} upload answer has no uploadUrl` };
    }
    return { kind: "ok", value: { uploadUrl: value.uploadUrl, urn } };
  }

  /** Step two: the bytes, streamed to the upload URL LinkedIn gave. */
  async uploadBytes(
    accessToken: string,
    uploadUrl: string,
    body: ReadableStream<Uint8Array>,
    size: number,
  ): Promise<UploadOutcome<null>> {
    const answer = await this.#call(uploadUrl, {
      method: "PUT",
      headers: {
        "Authorization": `Bearer ${accessToken}`,
        "Content-Type": "application/octet-stream",
        "Content-Length": String(size),
      },
      body,
    }, this.config.uploadTimeoutMs);
    return answer.kind === "ok" ? { kind: "ok", value: null } : answer;
  }

  /**
   * One `POST /rest/posts` as `author` (a member's or an organization's URN), with the headers
   * and body LinkedIn's Posts API takes; `content` carries uploaded media.
   */
  async createPost(
    accessToken: string,
    author: string,
    text: string,
    content?: PostContent,
  ): Promise<CreatePostOutcome> {
    return await this.#create(`${this.config.apiUrl}/rest/posts`, accessToken, {
      author,
      commentary: escapeCommentary(text),
      visibility: "PUBLIC",
      distribution: {
        feedDistribution: "MAIN_FEED",
        targetEntities: [],
        thirdPartyDistributionChannels: [],
      },
      ...(content ? { content } : {}),
      lifecycleState: "PUBLISHED",
      isReshareDisabledByAuthor: false,
    });
  }

  /** A comment by `actor` on the post `postUrn` (the first comment). */
  async createComment(
    accessToken: string,
    postUrn: string,
    actor: string,
    text: string,
  ): Promise<CreatePostOutcome> {
    return await this.#create(
      `${this.config.apiUrl}/rest/socialActions/${encodeURIComponent(postUrn)}/comments`,
      accessToken,
      { actor, object: postUrn, message: { text } },
    );
  }

  async #create(url: string, accessToken: string, body: unknown): Promise<CreatePostOutcome> {
    const answer = await this.#call(url, {
      method: "POST",
      headers: { ...this.#restHeaders(accessToken), "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    if (answer.kind !== "ok") return answer;
    const urn = answer.headers.get("x-restli-id");
    if (answer.status === 201 && urn) return { kind: "created", urn };
    // A success without the id: it probably exists, so it must not be sent again.
    return { kind: "unknown", error: `LinkedIn answered ${answer.status} without an x-restli-id` };
  }

  #restHeaders(accessToken: string): Record<string, string> {
    return {
      "Authorization": `Bearer ${accessToken}`,
      "LinkedIn-Version": this.config.version,
      "X-Restli-Protocol-Version": "2.0.0",
    };
  }

  /** One call: a 2xx, LinkedIn's refusal, or no answer. */
  async #call(
    url: string,
    init: RequestInit,
    timeoutMs = this.config.timeoutMs,
  ): Promise<
    | { kind: "ok"; status: number; headers: Headers; body: string }
    | LinkedInRefusal
    | { kind: "unknown"; error: string }
  > {
    let res: Response;
    try {
      res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    } catch (err) {
      return { kind: "unknown", error: err instanceof Error ? err.message : String(err) };
    }
    const body = await res.text().catch(() => "");
    if (res.ok) return { kind: "ok", status: res.status, headers: res.headers, body };
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
