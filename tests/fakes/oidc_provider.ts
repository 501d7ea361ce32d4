import { exportJWK, generateKeyPair, SignJWT } from "jose";

/**
 * A fake OpenID Connect provider (Google's role) on loopback: discovery, JWKS, an authorize
 * endpoint that signs the configured user in at once and redirects back with a code, and a
 * token endpoint (client_secret_post or basic, PKCE S256) answering a signed id_token.
 */
export interface OidcUser {
  sub: string;
  email: string;
  email_verified: boolean;
  name: string;
}

export interface AuthorizeRecord {
  client_id: string;
  redirect_uri: string;
  state: string | null;
  nonce: string | null;
  code_challenge: string | null;
  code_challenge_method: string | null;
  scope: string | null;
}

export interface TokenRecord {
  client_id: string | null;
  client_secret: string | null;
  code: string | null;
  code_verifier: string | null;
  redirect_uri: string | null;
  grant_type: string | null;
}

export interface FakeOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The account the next authorize request signs in. */
  user: OidcUser;
  authorizeRequests: AuthorizeRecord[];
  tokenRequests: TokenRecord[];
  close(): Promise<void>;
}

async function s256(verifier: string): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)),
  );
  let s = "";
  for (const b of digest) s += String.fromCharCode(b);
  return btoa(s).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

export async function startFakeOidcProvider(
  opts: { clientId?: string; clientSecret?: string } = {},
): Promise<FakeOidcProvider> {
  const clientId = opts.clientId ?? "google-client-id";
  const clientSecret = opts.clientSecret ?? "google-client-secret";
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  const jwk = { ...await exportJWK(publicKey), kid: "fake-1", alg: "RS256", use: "sig" };
  const codes = new Map<string, { authorize: AuthorizeRecord; user: OidcUser }>();
  let issuer = "";

  const provider: FakeOidcProvider = {
    issuer: "",
    clientId,
    clientSecret,
    user: { sub: "google-sub-1", email: "g@example.test", email_verified: true, name: "G User" },
    authorizeRequests: [],
    tokenRequests: [],
    close: async () => {},
  };

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    if (url.pathname === "/.well-known/openid-configuration") {
      return Response.json({
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ["code"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["RS256"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["client_secret_post", "client_secret_basic"],
      });
    }
    if (url.pathname === "/jwks") return Response.json({ keys: [jwk] });
    if (url.pathname === "/authorize") {
      const q = url.searchParams;
      const record: AuthorizeRecord = {
        client_id: q.get("client_id") ?? "",
        redirect_uri: q.get("redirect_uri") ?? "",
        state: q.get("state"),
        nonce: q.get("nonce"),
        code_challenge: q.get("code_challenge"),
        code_challenge_method: q.get("code_challenge_method"),
        scope: q.get("scope"),
      };
      provider.authorizeRequests.push(record);
      if (record.client_id !== clientId) return new Response("unknown client", { status: 400 });
      const code = crypto.randomUUID();
      codes.set(code, { authorize: record, user: { ...provider.user } });
      const back = new URL(record.redirect_uri);
      back.searchParams.set("code", code);
      if (record.state !== null) back.searchParams.set("state", record.state);
      back.searchParams.set("iss", issuer);
      return Response.redirect(back.toString(), 302);
    }
    if (url.pathname === "/token" && req.method === "POST") {
      const form = new URLSearchParams(await req.text());
      let id = form.get("client_id");
      let secret = form.get("client_secret");
      const basic = /^Basic\s+(.+)$/i.exec(req.headers.get("authorization") ?? "");
      if (basic) {
        const [u, p] = atob(basic[1]).split(":").map(decodeURIComponent);
        id = u;
        secret = p;
      }
      const record: TokenRecord = {
        client_id: id,
        client_secret: secret,
        code: form.get("code"),
        code_verifier: form.get("code_verifier"),
        redirect_uri: form.get("redirect_uri"),
        grant_type: form.get("grant_type"),
      };
      provider.tokenRequests.push(record);
      const fail = (error: string) => Response.json({ error }, { status: 400 });
      if (id !== clientId || secret !== clientSecret) {
        return Response.json({ error: "invalid_client" }, { status: 401 });
      }
      if (record.grant_type !== "authorization_code") return fail("unsupported_grant_type");
      const issued = record.code ? codes.get(record.code) : undefined;
      if (!issued) return fail("invalid_grant");
      codes.delete(record.code!);
      if (issued.authorize.redirect_uri !== record.redirect_uri) return fail("invalid_grant");
      if (
        issued.authorize.code_challenge &&
        (!record.code_verifier ||
          await s256(record.code_verifier) !== issued.authorize.code_challenge)
      ) {
        return fail("invalid_grant");
      }
      const claims: Record<string, unknown> = {
        email: issued.user.email,
        email_verified: issued.user.email_verified,
        name: issued.user.name,
      };
      if (issued.authorize.nonce) claims.nonce = issued.authorize.nonce;
      const idToken = await new SignJWT(claims)
        .setProtectedHeader({ alg: "RS256", kid: "fake-1" })
        .setIssuer(issuer)
        .setAudience(clientId)
        .setSubject(issued.user.sub)
        .setIssuedAt()
        .setExpirationTime("1h")
        .sign(privateKey);
      return Response.json({
        access_token: crypto.randomUUID(),
        token_type: "Bearer",
        expires_in: 3600,
        id_token: idToken,
        scope: issued.authorize.scope ?? "openid",
      });
    }
    return new Response("not found", { status: 404 });
  });
  issuer = `http://127.0.0.1:${server.addr.port}`;
  provider.issuer = issuer;
  provider.close = () => server.shutdown();
  return provider;
}
