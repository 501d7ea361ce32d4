import { createHash } from "node:crypto";

/**
 * A loopback fake of the LinkedIn endpoints the publishing flow uses, speaking the real
 * protocol: OAuth 2.0 `/oauth/v2/authorization` (redirects back with `code` and `state`) and
 * `/oauth/v2/accessToken` (form-encoded code exchange), OpenID `/v2/userinfo`, and
 * `POST /rest/posts` (201 with `x-restli-id`), the Images and Documents APIs
 * (`?action=initializeUpload`, then a `PUT` of the bytes to the upload URL it answers), comments
 * (`/rest/socialActions/{urn}/comments`), and the pages a member administers
 * (`/rest/organizationAcls`, `/rest/organizations/{id}`). Failures of `/rest/posts`, of the
 * uploads and of comments are programmable: 429, 500, 401, 426, 422, a hang (never answers),
 * a slow success (answers normally after 0.8 s) or a held success (answers normally when the test
 * lets it).
 * Every request is recorded; an upload's bytes are counted and hashed, not kept.
 */

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  /** when it arrived (ms since the epoch) */
  at: number;
}

export type PostFailure = 429 | 500 | 401 | 426 | 422 | "hang" | "slow" | HeldAnswer;

/** A normal answer held back: `arrived` is called when the request comes, it answers on `until`. */
export interface HeldAnswer {
  arrived(): void;
  until: Promise<void>;
}

/** One `PUT` of bytes to an upload URL the fake handed out. */
export interface ReceivedUpload {
  /** the image or document URN the upload URL was for */
  urn: string;
  bytes: number;
  sha256: string;
  /** the first bytes, to check what arrived */
  head: Uint8Array;
}

export interface FakeLinkedIn {
  /** LINKEDIN_AUTH_URL */
  authUrl: string;
  /** LINKEDIN_API_URL */
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  requests: RecordedRequest[];
  /** `/rest/posts` calls, in order */
  posts(): RecordedRequest[];
  /** answers for the next `/rest/posts` calls, in order; then 201 */
  failures: PostFailure[];
  /** answers for the next initializeUpload calls, in order; then 200 */
  uploadFailures: PostFailure[];
  /** answers for the next comment calls, in order; then 201 */
  commentFailures: PostFailure[];
  /** the bytes received at upload URLs, in order */
  uploads: ReceivedUpload[];
  /** the pages the member administers (organizationAcls), by numeric id */
  organizations: { id: string; name: string }[];
  /** `expires_in` of the next tokens (seconds) */
  expiresIn: number;
  member: { sub: string; name: string };
  close(): Promise<void>;
}

export function startFakeLinkedIn(): FakeLinkedIn {
  const requests: RecordedRequest[] = [];
  const tokens = new Set<string>();
  const codes = new Map<string, string>();
  const hung: (() => void)[] = [];
  /** upload URL → the URN it is for; each accepts one PUT */
  const pendingUploads = new Map<string, string>();
  let base = "";

  /** The programmed answer `f`, or null to answer normally. */
  async function failure(f: PostFailure | undefined): Promise<Response | null> {
    if (f === undefined) return null;
    if (typeof f === "object") {
      f.arrived();
      await f.until;
      return null;
    }
    if (f === "slow") {
      await new Promise((resolve) => setTimeout(resolve, 800));
      return null;
    }
    if (f === "hang") {
      await new Promise<void>((resolve) => hung.push(resolve));
      return new Response("late", { status: 500 });
    }
    if (f === 429) {
      return Response.json({ message: "Too many requests" }, {
        status: 429,
        headers: { "retry-after": "1" },
      });
    }
    if (f === 422) {
      return Response.json({ message: "Unprocessable: the fake refused it", status: 422 }, {
        status: 422,
      });
    }
    return Response.json({ status: f }, { status: f });
  }

  /** A PUT of bytes to an upload URL: counted and hashed as they stream in, never kept. */
  async function receiveUpload(req: Request, url: URL): Promise<Response> {
    const urn = pendingUploads.get(`${base}${url.pathname}`);
    requests.push({
      method: req.method,
      path: url.pathname,
      headers: Object.fromEntries(req.headers),
      body: "",
      at: Date.now(),
    });
    if (!urn) {
      await req.body?.cancel();
      return Response.json({ message: "unknown upload URL" }, { status: 404 });
    }
    pendingUploads.delete(`${base}${url.pathname}`);
    const hash = createHash("sha256");
    let bytes = 0;
    const head = new Uint8Array(16);
    for await (const chunk of req.body ?? []) {
      if (bytes < head.length) head.set(chunk.subarray(0, head.length - bytes), bytes);
      bytes += chunk.byteLength;
      hash.update(chunk);
    }
    fake.uploads.push({ urn, bytes, sha256: hash.digest("hex"), head });
    return new Response(null, { status: 201 });
  }
  let n = 0;
  const fake: FakeLinkedIn = {
    authUrl: "",
    apiUrl: "",
    clientId: "fake-client-id",
    clientSecret: "fake-client-secret",
    requests,
    posts: () => requests.filter((r) => r.path === "/rest/posts"),
    failures: [],
    uploadFailures: [],
    commentFailures: [],
    uploads: [],
    organizations: [],
    expiresIn: 60 * 86_400,
    member: { sub: "AbC123xyz", name: "Lina Linked" },
    close: async () => {
      for (const release of hung) release();
      await server.shutdown();
    },
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const url = new URL(req.url);
    if (url.pathname.startsWith("/upload/") && req.method === "PUT") {
      return await receiveUpload(req, url);
    }
    const body = req.method === "GET" ? "" : await req.text();
    requests.push({
      method: req.method,
      path: url.pathname,
      headers: Object.fromEntries(req.headers),
      body,
      at: Date.now(),
    });
    if (url.pathname === "/oauth/v2/authorization" && req.method === "GET") {
      const q = url.searchParams;
      if (q.get("client_id") !== fake.clientId || q.get("response_type") !== "code") {
        return new Response("bad client", { status: 400 });
      }
      const code = `code-${++n}`;
      codes.set(code, q.get("redirect_uri") ?? "");
      const back = new URL(q.get("redirect_uri")!);
      back.searchParams.set("code", code);
      back.searchParams.set("state", q.get("state") ?? "");
      return new Response(null, { status: 302, headers: { location: back.toString() } });
    }
    if (url.pathname === "/oauth/v2/accessToken" && req.method === "POST") {
      const form = new URLSearchParams(body);
      const code = form.get("code") ?? "";
      const ok = form.get("grant_type") === "authorization_code" &&
        form.get("client_id") === fake.clientId &&
        form.get("client_secret") === fake.clientSecret &&
        codes.get(code) === form.get("redirect_uri");
      if (!ok) return Response.json({ error: "invalid_grant" }, { status: 400 });
      codes.delete(code);
      const token = `token-${++n}-${crypto.randomUUID()}`;
      tokens.add(token);
      return Response.json({
        access_token: token,
        expires_in: fake.expiresIn,
        scope: "openid,profile,w_member_social",
      });
    }
    const bearer = req.headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
    if (url.pathname === "/v2/userinfo" && req.method === "GET") {
      if (!tokens.has(bearer)) return Response.json({ message: "invalid" }, { status: 401 });
      return Response.json({ sub: fake.member.sub, name: fake.member.name, email_verified: true });
    }
    if (url.pathname === "/rest/posts" && req.method === "POST") {
      const failed = await failure(fake.failures.shift());
      if (failed) return failed;
      if (!tokens.has(bearer)) return Response.json({ status: 401 }, { status: 401 });
      const urn = `urn:li:share:${7000000000000000000n + BigInt(++n)}`;
      return new Response(null, { status: 201, headers: { "x-restli-id": urn } });
    }
    const initialize = url.pathname.match(/^\/rest\/(images|documents)$/);
    if (
      initialize && req.method === "POST" && url.searchParams.get("action") === "initializeUpload"
    ) {
      const failed = await failure(fake.uploadFailures.shift());
      if (failed) return failed;
      if (!tokens.has(bearer)) return Response.json({ status: 401 }, { status: 401 });
      const owner = JSON.parse(body)?.initializeUploadRequest?.owner;
      if (typeof owner !== "string") {
        return Response.json({ message: "initializeUploadRequest.owner is required" }, {
          status: 422,
        });
      }
      const kind = initialize[1] === "images" ? "image" : "document";
      const urn = `urn:li:${kind}:${kind === "image" ? "C" : "D"}${++n}`;
      const uploadUrl = `${base}/upload/${encodeURIComponent(urn)}`;
      pendingUploads.set(uploadUrl, urn);
      return Response.json({ value: { uploadUrl, [kind]: urn, uploadUrlExpiresAt: Date.now() } });
    }
    const comment = url.pathname.match(/^\/rest\/socialActions\/([^/]+)\/comments$/);
    if (comment && req.method === "POST") {
      const failed = await failure(fake.commentFailures.shift());
      if (failed) return failed;
      if (!tokens.has(bearer)) return Response.json({ status: 401 }, { status: 401 });
      const postUrn = decodeURIComponent(comment[1]);
      const id = `urn:li:comment:(${postUrn},${++n})`;
      return new Response(null, { status: 201, headers: { "x-restli-id": id } });
    }
    if (url.pathname === "/rest/organizationAcls" && req.method === "GET") {
      if (!tokens.has(bearer)) return Response.json({ status: 401 }, { status: 401 });
      const q = url.searchParams;
      if (q.get("q") !== "roleAssignee" || q.get("role") !== "ADMINISTRATOR") {
        return Response.json({ message: "unsupported query" }, { status: 400 });
      }
      return Response.json({
        elements: fake.organizations.map((o) => ({
          organization: `urn:li:organization:${o.id}`,
          role: "ADMINISTRATOR",
          state: "APPROVED",
          roleAssignee: `urn:li:person:${fake.member.sub}`,
        })),
      });
    }
    const org = url.pathname.match(/^\/rest\/organizations\/(\d+)$/);
    if (org && req.method === "GET") {
      if (!tokens.has(bearer)) return Response.json({ status: 401 }, { status: 401 });
      const found = fake.organizations.find((o) => o.id === org[1]);
      if (!found) return Response.json({ status: 404 }, { status: 404 });
      return Response.json({ id: Number(found.id), localizedName: found.name });
    }
    return new Response("not found", { status: 404 });
  });
  base = `http://127.0.0.1:${server.addr.port}`;
  fake.authUrl = `${base}/oauth/v2`;
  fake.apiUrl = base;
  return fake;
}
