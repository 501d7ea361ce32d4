import { createRoute, z } from "@hono/zod-openapi";
import { json } from "../../shared/http/openapi.ts";
import type { ServiceApp } from "../../shared/http/service_app.ts";
import {
  MCP_RESOURCE_PATH,
  PROTECTED_RESOURCE_METADATA,
} from "../../shared/http/protected_resource.ts";
import type { Accounts } from "./accounts.ts";

const metadata = z.record(z.string(), z.unknown());

/**
 * Discovery: the JWKS, the OpenID Connect and OAuth authorization server metadata (RFC 8414),
 * and the protected resource metadata (RFC 9728) of the API and of the MCP tool interface, by
 * which a client given only a server's URL finds where to sign in.
 */
export function mountDiscoveryRoutes(app: ServiceApp, accounts: Accounts): void {
  const { issuer, config } = accounts.deps;
  const publicUrl = config.base.publicUrl;
  const endpoints = {
    issuer: publicUrl,
    authorization_endpoint: `${publicUrl}/oauth/authorize`,
    token_endpoint: `${publicUrl}/oauth/token`,
    registration_endpoint: `${publicUrl}/oauth/register`,
    jwks_uri: `${publicUrl}/.well-known/jwks.json`,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    scopes_supported: ["openid", "email", "profile"],
    service_documentation: `${publicUrl}/api/docs`,
  };
  const discovery = (path: string, summary: string, description: string) =>
    createRoute({
      method: "get",
      path,
      tags: ["OAuth"],
      summary,
      responses: { 200: json(metadata, description) },
    });

  app.openapi(
    createRoute({
      method: "get",
      path: "/.well-known/jwks.json",
      tags: ["OAuth"],
      summary: "The public keys that verify this service's tokens (EdDSA)",
      responses: {
        200: json(z.object({ keys: z.array(z.record(z.string(), z.unknown())) }), "JWKS"),
      },
    }),
    async (c) => {
      c.header("cache-control", "public, max-age=60");
      return c.json(await issuer.jwks(), 200);
    },
  );

  app.openapi(
    discovery(
      "/.well-known/openid-configuration",
      "OpenID Connect discovery document",
      "Discovery document",
    ),
    (c) =>
      c.json({
        ...endpoints,
        userinfo_endpoint: `${publicUrl}/api/auth/me`,
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["EdDSA"],
        claims_supported: [
          "iss",
          "aud",
          "sub",
          "exp",
          "iat",
          "email",
          "name",
          "custom:role",
          "custom:approved",
        ],
      }, 200),
  );

  app.openapi(
    discovery(
      "/.well-known/oauth-authorization-server",
      "OAuth 2.0 authorization server metadata (RFC 8414)",
      "The authorization server's endpoints: the hosted login, the token endpoint and dynamic " +
        "client registration; public clients with PKCE S256",
    ),
    (c) => c.json(endpoints, 200),
  );

  /** RFC 9728: what a resource of this service is and which server issues its tokens. */
  const protectedResource = (path: string, name: string) => ({
    resource: `${publicUrl}${path}`,
    authorization_servers: [publicUrl],
    bearer_methods_supported: ["header"],
    resource_name: name,
    resource_documentation: `${publicUrl}/api/docs`,
  });

  app.openapi(
    discovery(
      PROTECTED_RESOURCE_METADATA,
      "Protected resource metadata of the API (RFC 9728)",
      "The API as a protected resource, and the authorization server of its tokens",
    ),
    (c) => c.json(protectedResource("", "Content Pipeline API"), 200),
  );

  app.openapi(
    discovery(
      `${PROTECTED_RESOURCE_METADATA}${MCP_RESOURCE_PATH}`,
      "Protected resource metadata of the MCP tool interface (RFC 9728)",
      "`/mcp` as a protected resource: the `resource_metadata` that its 401 names",
    ),
    (c) => c.json(protectedResource(MCP_RESOURCE_PATH, "Content Pipeline (MCP tools)"), 200),
  );
}
