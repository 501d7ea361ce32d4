/**
 * An MCP client that knows only the server's URL finds its way by OAuth discovery, as the MCP
 * authorization spec has it: the 401 of /mcp names the protected resource metadata (RFC 9728),
 * which names the authorization server (RFC 8414), where the client registers itself (RFC 7591)
 * and signs its user in through the hosted login with PKCE. The client is the official SDK's.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type OAuthClientProvider,
  UnauthorizedError,
} from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { api, e2e, startTestStack, type TestStack } from "./helpers/stack.ts";
import { assertRetryAfter } from "./helpers/retry_after.ts";
import { CLIENT_REGISTRATIONS_PER_HOUR } from "../services/auth/store/clients.ts";
import { createUser, type TestUser } from "./helpers/users.ts";
import { createWorkspace } from "./helpers/workspaces.ts";

/** What a desktop client keeps between runs, in memory: its registration, tokens, verifier. */
class MemoryProvider implements OAuthClientProvider {
  information?: OAuthClientInformationMixed;
  stored?: OAuthTokens;
  verifier = "";
  authorizationUrl?: URL;
  constructor(readonly redirectUrl: string) {}
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Conformance MCP client",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: OAuthTokens) {
    this.stored = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** The registration allowance's window. */
const HOUR_S = 3600;
const REDIRECT = "http://127.0.0.1:47123/oauth/callback";

function transport(stack: TestStack, provider: MemoryProvider) {
  return new StreamableHTTPClientTransport(new URL(`${stack.url}/mcp`), { authProvider: provider });
}

const decode = (s: string) =>
  s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

/**
 * What the user's browser does with the authorization URL: opens the hosted login, fills in
 * Email and Password and submits the form; answers the code the redirect brings back.
 */
async function signInThroughForm(
  stack: TestStack,
  url: URL,
  user: TestUser,
  redirect = REDIRECT,
): Promise<string> {
  const page = await fetch(url);
  assert.equal(page.status, 200);
  const cookie = (page.headers.get("set-cookie") ?? "").split(";")[0];
  const html = await page.text();
  const form = new URLSearchParams();
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    form.set(m[1], decode(m[2]));
  }
  assert.match(html, /<label for="email">Email<\/label>/);
  form.set("email", user.email);
  form.set("password", user.password);
  const submitted = await fetch(`${stack.url}/oauth/authorize`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: new URL(stack.url).origin,
      cookie,
    },
    body: form,
    redirect: "manual",
  });
  assert.equal(submitted.status, 302, await submitted.text());
  const back = new URL(submitted.headers.get("location")!);
  assert.equal(`${back.origin}${back.pathname}`, redirect);
  if (url.searchParams.has("state")) {
    assert.equal(back.searchParams.get("state"), url.searchParams.get("state"));
  }
  return back.searchParams.get("code")!;
}

/** The client's first connect: discovery and registration, then the authorization URL. */
async function authorizeUrl(stack: TestStack, provider: MemoryProvider): Promise<URL> {
  const client = new Client({ name: "conformance", version: "1.0.0" });
  await assert.rejects(client.connect(transport(stack, provider)), UnauthorizedError);
  assert.ok(provider.authorizationUrl, "the client was sent to the authorization server");
  return provider.authorizationUrl;
}

Deno.test(
  "an MCP client given only the server URL discovers OAuth, registers, signs in through the hosted login and calls a tool",
  e2e,
  async (t) => {
    const stack = await startTestStack();
    try {
      const user = await createUser(stack, { name: "Desktop Dana" });
      const workspaceId = await createWorkspace(stack, user, "Dana's workspace");

      await t.step("an unauthenticated /mcp names its protected resource metadata", async () => {
        const res = await api(stack, "POST", "/mcp", {
          body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
          headers: { accept: "application/json, text/event-stream" },
        });
        assert.equal(res.status, 401);
        assert.deepEqual(res.body, { error: "Unauthorized" });
        const metadataUrl = `${stack.url}/.well-known/oauth-protected-resource/mcp`;
        assert.equal(
          res.headers.get("www-authenticate"),
          `Bearer resource_metadata="${metadataUrl}"`,
        );
        const refused = await api(stack, "POST", "/mcp", {
          token: "not-a-token",
          body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
        });
        assert.equal(
          refused.headers.get("www-authenticate"),
          `Bearer resource_metadata="${metadataUrl}", error="invalid_token"`,
        );
        // A browser-based client (the Inspector's page) reads all of it from another origin.
        assert.equal(res.headers.get("access-control-allow-origin"), "*");
        assert.match(res.headers.get("access-control-expose-headers") ?? "", /www-authenticate/);
        for (
          const [path, method] of [
            ["/.well-known/oauth-protected-resource/mcp", "GET"],
            ["/.well-known/oauth-authorization-server", "GET"],
            ["/oauth/register", "POST"],
            ["/oauth/token", "POST"],
            ["/mcp", "POST"],
          ]
        ) {
          const preflight = await fetch(`${stack.url}${path}`, {
            method: "OPTIONS",
            headers: { origin: "http://localhost:6274", "access-control-request-method": method },
          });
          await preflight.body?.cancel();
          assert.equal(preflight.status, 204, path);
          assert.equal(preflight.headers.get("access-control-allow-origin"), "*", path);
          assert.match(
            preflight.headers.get("access-control-allow-methods") ?? "",
            new RegExp(method),
          );
        }
        const closed = await fetch(`${stack.url}/api/ideas`, {
          method: "OPTIONS",
          headers: { origin: "http://localhost:6274", "access-control-request-method": "GET" },
        });
        await closed.body?.cancel();
        assert.equal(
          closed.headers.get("access-control-allow-origin"),
          null,
          "the API stays same-origin",
        );
        const resource = await api(stack, "GET", "/.well-known/oauth-protected-resource/mcp");
        assert.equal(resource.headers.get("access-control-allow-origin"), "*");
        assert.equal(resource.body.resource, `${stack.url}/mcp`);
        assert.deepEqual(resource.body.authorization_servers, [stack.url]);
        const server = await api(stack, "GET", "/.well-known/oauth-authorization-server");
        assert.equal(server.body.issuer, stack.url);
        assert.equal(server.body.registration_endpoint, `${stack.url}/oauth/register`);
        assert.equal(server.body.token_endpoint, `${stack.url}/oauth/token`);
        assert.deepEqual(server.body.code_challenge_methods_supported, ["S256"]);
        assert.deepEqual(server.body.token_endpoint_auth_methods_supported, ["none"]);
      });

      const provider = new MemoryProvider(REDIRECT);

      await t.step(
        "the SDK client registers itself, signs in with PKCE and calls a tool",
        async () => {
          const url = await authorizeUrl(stack, provider);
          const registered = provider.information!;
          assert.match(registered.client_id, /^cp-/);
          assert.equal("client_secret" in registered, false);
          assert.equal(url.origin + url.pathname, `${stack.url}/oauth/authorize`);
          assert.equal(url.searchParams.get("client_id"), registered.client_id);
          assert.equal(url.searchParams.get("code_challenge_method"), "S256");
          assert.equal(url.searchParams.get("resource"), `${stack.url}/mcp`);

          const code = await signInThroughForm(stack, url, user);
          await transport(stack, provider).finishAuth(code);
          assert.ok(provider.stored?.access_token);
          assert.ok(provider.stored?.refresh_token);
          assert.equal(provider.stored?.id_token, undefined, "no id token for a registered client");

          const client = new Client({ name: "conformance", version: "1.0.0" });
          await client.connect(transport(stack, provider));
          const { tools } = await client.listTools();
          const list = tools.find((tool: Tool) => tool.name === "list_workspaces")!;
          assert.equal(list.annotations?.readOnlyHint, true);
          assert.equal(list.outputSchema?.type, "object");
          const iterate = tools.find((tool: Tool) => tool.name === "iterate_post")!;
          assert.equal(iterate.annotations?.destructiveHint, true);
          const result = await client.callTool({ name: "list_workspaces", arguments: {} });
          const content = result.content as { type: string; text: string }[];
          assert.deepEqual(result.structuredContent, JSON.parse(content[0].text));
          assert.deepEqual(result.structuredContent, {
            workspaces: [{
              workspace_id: workspaceId,
              name: "Dana's workspace",
              member_role: "owner",
            }],
          });
          await client.close();
        },
      );

      await t.step(
        "a refused access token is renewed with the client's refresh token",
        async () => {
          const before = provider.stored!;
          provider.stored = { ...before, access_token: "expired-or-revoked" };
          const client = new Client({ name: "conformance", version: "1.0.0" });
          await client.connect(transport(stack, provider));
          const result = await client.callTool({ name: "list_workspaces", arguments: {} });
          assert.equal(result.isError, undefined);
          assert.notEqual(provider.stored.refresh_token, before.refresh_token, "rotated");
          await client.close();
          // The old refresh token is used up, and the new one is this client's alone.
          const reused = await tokenRequest(stack, {
            grant_type: "refresh_token",
            refresh_token: before.refresh_token!,
            client_id: provider.information!.client_id,
          });
          assert.equal(reused.status, 400);
          assert.equal(reused.body.error, "invalid_grant");
          const elsewhere = await api(stack, "POST", "/api/auth/refresh", {
            body: { refresh_token: provider.stored.refresh_token },
          });
          assert.equal(elsewhere.status, 401);
        },
      );
    } finally {
      await stack.close();
    }
  },
);

async function tokenRequest(stack: TestStack, form: Record<string, string>) {
  const res = await fetch(`${stack.url}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

async function register(stack: TestStack, metadata: Record<string, unknown>) {
  return await api(stack, "POST", "/oauth/register", { body: metadata });
}

Deno.test(
  "client registration takes public clients and their redirect URIs only, and a code is good only for its client",
  e2e,
  async (t) => {
    const stack = await startTestStack();
    try {
      await t.step("redirect URIs a browser could be abused with are refused", async () => {
        for (
          const uri of [
            "javascript:alert(1)",
            "http://evil.example/callback",
            "https://app.example/callback#fragment",
            "data:text/html,hi",
            "not a uri",
          ]
        ) {
          const res = await register(stack, { redirect_uris: [uri] });
          assert.equal(res.status, 400, uri);
          assert.equal(res.body.error, "invalid_redirect_uri", uri);
          assert.ok(res.body.error_description, uri);
        }
        const none = await register(stack, { client_name: "no URIs" });
        assert.equal(none.status, 400);
        assert.equal(none.body.error, "invalid_redirect_uri");
        const grant = await register(stack, {
          redirect_uris: ["https://app.example/cb"],
          grant_types: ["client_credentials"],
        });
        assert.equal(grant.body.error, "invalid_client_metadata");
      });

      await t.step("every registered client is public, whatever it asks", async () => {
        const res = await register(stack, {
          redirect_uris: [
            "https://app.example/cb",
            "http://127.0.0.1:3000/cb",
            "com.example.app:/cb",
          ],
          token_endpoint_auth_method: "client_secret_basic",
          client_name: "Asks for a secret",
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        assert.equal(res.body.token_endpoint_auth_method, "none");
        assert.equal(res.body.client_secret, undefined);
        assert.deepEqual(res.body.grant_types, ["authorization_code", "refresh_token"]);
      });

      await t.step(
        "the hosted login takes only the client's redirect URIs (a loopback one on any port)",
        async () => {
          const { body: client } = await register(stack, {
            redirect_uris: ["http://127.0.0.1:3000/cb", "https://app.example/cb"],
          });
          const authorize = (redirect: string) =>
            fetch(
              `${stack.url}/oauth/authorize?${new URLSearchParams({
                response_type: "code",
                client_id: client.client_id,
                redirect_uri: redirect,
                code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
                code_challenge_method: "S256",
              })}`,
              { redirect: "manual" },
            );
          for (
            const [redirect, status] of [
              ["http://127.0.0.1:3000/cb", 200],
              ["http://127.0.0.1:51234/cb", 200],
              ["http://127.0.0.1:3000/other", 400],
              ["https://app.example/cb", 200],
              ["https://app.example:8443/cb", 400],
              [`${stack.url}/`, 400],
            ] as const
          ) {
            const res = await authorize(redirect);
            const html = await res.text();
            assert.equal(res.status, status, `${redirect}: ${html}`);
            if (status === 200) {
              const csp = res.headers.get("content-security-policy") ?? "";
              assert.match(csp, new RegExp(`form-action 'self' ${new URL(redirect).origin}`));
            }
          }
          const unknown = await fetch(
            `${stack.url}/oauth/authorize?${new URLSearchParams({
              response_type: "code",
              client_id: "cp-unknown",
              redirect_uri: "https://app.example/cb",
              code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
              code_challenge_method: "S256",
            })}`,
          );
          assert.equal(unknown.status, 400);
          assert.match(await unknown.text(), /Unknown client_id/);
        },
      );

      await t.step("the web app's own client may use the token endpoint too", async () => {
        const user = await createUser(stack);
        const verifier = "v".repeat(43);
        const challenge = btoa(String.fromCharCode(
          ...new Uint8Array(
            await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)),
          ),
        )).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
        const provider = new MemoryProvider(`${stack.url}/`);
        const url = new URL(`${stack.url}/oauth/authorize?${new URLSearchParams({
          response_type: "code",
          client_id: "content-pipeline",
          redirect_uri: provider.redirectUrl,
          code_challenge: challenge,
          code_challenge_method: "S256",
        })}`);
        const code = await signInThroughForm(stack, url, user, provider.redirectUrl);
        const tokens = await tokenRequest(stack, {
          grant_type: "authorization_code",
          code,
          redirect_uri: provider.redirectUrl,
          code_verifier: verifier,
          client_id: "content-pipeline",
        });
        assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
        assert.ok(tokens.body.id_token, "the first party gets its id token");
        const refreshed = await api(stack, "POST", "/api/auth/refresh", {
          body: { refresh_token: tokens.body.refresh_token },
        });
        assert.equal(refreshed.status, 200, "its session refreshes where the web app's do");
      });

      await t.step("a code is exchanged only by the client it was issued to", async () => {
        const user = await createUser(stack);
        const provider = new MemoryProvider(REDIRECT);
        const url = await authorizeUrl(stack, provider);
        const code = await signInThroughForm(stack, url, user);
        const asWebApp = await tokenRequest(stack, {
          grant_type: "authorization_code",
          code,
          redirect_uri: REDIRECT,
          code_verifier: provider.verifier,
          client_id: "content-pipeline",
        });
        assert.equal(asWebApp.status, 400);
        assert.equal(asWebApp.body.error, "invalid_grant");
        const unknownClient = await tokenRequest(stack, {
          grant_type: "refresh_token",
          refresh_token: "x",
          client_id: "cp-nobody",
        });
        assert.equal(unknownClient.status, 401);
        assert.equal(unknownClient.body.error, "invalid_client");
        const unsupported = await tokenRequest(stack, {
          grant_type: "client_credentials",
          client_id: provider.information!.client_id,
        });
        assert.equal(unsupported.body.error, "unsupported_grant_type");
        assert.equal(unsupported.headers.get("cache-control"), "no-store");
      });

      // Last: it uses up this address's registrations.
      await t.step(
        "registrations beyond the hourly allowance are slow_down with a Retry-After",
        async () => {
          let refused: Awaited<ReturnType<typeof register>> | null = null;
          for (let i = 0; i <= CLIENT_REGISTRATIONS_PER_HOUR && !refused; i++) {
            const res = await register(stack, { redirect_uris: ["https://app.example/cb"] });
            if (res.status === 429) refused = res;
            else assert.equal(res.status, 201, JSON.stringify(res.body));
          }
          assert.ok(refused, "no 429 within the hourly allowance and one more");
          assert.deepEqual(refused.body, {
            error: "slow_down",
            error_description: "Too many client registrations from this address; try again later",
          });
          assert.equal(refused.headers.get("cache-control"), "no-store");
          // This test's first registration opened the hour moments ago: most of it is left.
          const wait = assertRetryAfter(refused.headers, HOUR_S);
          assert.ok(wait > HOUR_S - 120, `Retry-After ${wait} is not the hour's rest`);
        },
      );
    } finally {
      await stack.close();
    }
  },
);
