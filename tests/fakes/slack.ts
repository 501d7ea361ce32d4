/**
 * A loopback fake of the two Slack Web API methods a DM uses, `users.lookupByEmail` and
 * `chat.postMessage`. It answers as Slack does (HTTP 200 with `{ok: false, error}` for API
 * errors), checks the bearer token, and records every call.
 */

export interface SlackCall {
  method: string;
  /** The Authorization header as sent. */
  authorization: string | null;
  contentType: string | null;
  /** The parameters, from the query string, a form body or a JSON body. */
  params: Record<string, unknown>;
}

export interface SlackPost {
  channel: string;
  text: string;
}

export interface FakeSlackOptions {
  token: string;
  /** Known users: email (lower-case) to user id. */
  users?: Record<string, string>;
}

export interface FakeSlack {
  /** The Web API base URL to give the client (SLACK_API_URL). */
  apiUrl: string;
  calls: SlackCall[];
  /** Messages chat.postMessage accepted. */
  posts: SlackPost[];
  users: Record<string, string>;
  /**
   * Failures to answer the next chat.postMessage calls with, in order: `"ratelimited"` (HTTP
   * 429 with Retry-After), `"server_error"` (HTTP 500) or any other string (`{ok: false, error}`).
   */
  postFailures: string[];
  /**
   * While true, chat.postMessage calls are recorded but not answered (a Slack that hangs):
   * the message stays in the middle of its delivery until this turns false.
   */
  holdPosts: boolean;
  close(): Promise<void>;
}

async function readParams(req: Request): Promise<Record<string, unknown>> {
  const params: Record<string, unknown> = Object.fromEntries(new URL(req.url).searchParams);
  if (req.method !== "POST") return params;
  const type = req.headers.get("content-type") ?? "";
  if (type.startsWith("application/json")) {
    const body = await req.json().catch(() => null);
    if (body && typeof body === "object") Object.assign(params, body);
  } else if (type.startsWith("application/x-www-form-urlencoded")) {
    Object.assign(params, Object.fromEntries(new URLSearchParams(await req.text())));
  } else {
    await req.body?.cancel();
  }
  return params;
}

export function startFakeSlack(options: FakeSlackOptions): FakeSlack {
  const calls: SlackCall[] = [];
  const posts: SlackPost[] = [];
  const users: Record<string, string> = { ...options.users };
  const fake = {
    calls,
    posts,
    users,
    postFailures: [] as string[],
    holdPosts: false,
  } as unknown as FakeSlack;

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const method = new URL(req.url).pathname.replace(/^\/api\//, "").replace(/^\//, "");
    const params = await readParams(req);
    const authorization = req.headers.get("authorization");
    calls.push({ method, authorization, contentType: req.headers.get("content-type"), params });
    if (authorization !== `Bearer ${options.token}`) {
      return Response.json({ ok: false, error: authorization ? "invalid_auth" : "not_authed" });
    }
    switch (method) {
      case "users.lookupByEmail": {
        const email = String(params.email ?? "").toLowerCase();
        const id = users[email];
        if (!id) return Response.json({ ok: false, error: "users_not_found" });
        return Response.json({ ok: true, user: { id, profile: { email } } });
      }
      case "chat.postMessage": {
        while (fake.holdPosts) await new Promise((r) => setTimeout(r, 20));
        const failure = fake.postFailures.shift();
        if (failure === "ratelimited") {
          return Response.json({ ok: false, error: "ratelimited" }, {
            status: 429,
            headers: { "retry-after": "1" },
          });
        }
        if (failure === "server_error") return new Response("upstream broke", { status: 500 });
        if (failure) return Response.json({ ok: false, error: failure });
        const channel = String(params.channel ?? "");
        const text = String(params.text ?? "");
        if (!channel) return Response.json({ ok: false, error: "channel_not_found" });
        if (!text) return Response.json({ ok: false, error: "no_text" });
        posts.push({ channel, text });
        return Response.json({ ok: true, channel, ts: `${Date.now() / 1000}`, message: { text } });
      }
      default:
        return Response.json({ ok: false, error: "unknown_method" }, { status: 404 });
    }
  });

  fake.apiUrl = `http://127.0.0.1:${server.addr.port}/api`;
  fake.close = () => {
    fake.holdPosts = false;
    return server.shutdown();
  };
  return fake;
}
