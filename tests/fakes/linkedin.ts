/**
 * A loopback fake of the LinkedIn endpoints the publishing flow uses, speaking the real
 * protocol: OAuth 2.0 `/oauth/v2/authorization` (redirects back with `code` and `state`) and
 * `/oauth/v2/accessToken` (form-encoded code exchange), OpenID `/v2/userinfo`, and
 * `POST /rest/posts` (201 with `x-restli-id`). Failures of `/rest/posts` are programmable:
 * 429, 500, 401, 426 or a hang (never answers). Every request is recorded.
 */

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  /** when it arrived (ms since the epoch) */
  at: number;
}

export type PostFailure = 429 | 500 | 401 | 426 | "hang";

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
  let n = 0;
  const fake: FakeLinkedIn = {
    authUrl: "",
    apiUrl: "",
    clientId: "fake-client-id",
    clientSecret: "fake-client-secret",
    requests,
    posts: () => requests.filter((r) => r.path === "/rest/posts"),
    failures: [],
    expiresIn: 60 * 86_400,
    member: { sub: "AbC123xyz", name: "Lina Linked" },
    close: async () => {
      for (const release of hung) release();
      await server.shutdown();
    },
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const url = new URL(req.url);
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
      const failure = fake.failures.shift();
      if (failure === "hang") {
        await new Promise<void>((resolve) => hung.push(resolve));
        return new Response("late", { status: 500 });
      }
      if (failure === 429) {
        return Response.json({ message: "Too many requests" }, {
          status: 429,
          headers: { "retry-after": "1" },
        });
      }
      if (failure !== undefined) return Response.json({ status: failure }, { status: failure });
      if (!tokens.has(bearer)) return Response.json({ status: 401 }, { status: 401 });
      const urn = `urn:li:share:${7000000000000000000n + BigInt(++n)}`;
      return new Response(null, { status: 201, headers: { "x-restli-id": urn } });
    }
    return new Response("not found", { status: 404 });
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  fake.authUrl = `${base}/oauth/v2`;
  fake.apiUrl = base;
  return fake;
}
