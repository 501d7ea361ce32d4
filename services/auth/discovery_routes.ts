import { createRoute, z } from "@hono/zod-openapi";
import { json } from "../../shared/http/openapi.ts";
import type { ServiceApp } from "../../shared/http/service_app.ts";
import type { Accounts } from "./accounts.ts";

/** `/.well-known/jwks.json` and `/.well-known/openid-configuration`. */
export function mountDiscoveryRoutes(app: ServiceApp, accounts: Accounts): void {
  const { issuer, config } = accounts.deps;
  const publicUrl = config.base.publicUrl;

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
    createRoute({
      method: "get",
      path: "/.well-known/openid-configuration",
      tags: ["OAuth"],
      summary: "OpenID Connect discovery document",
      responses: {
        200: json(z.record(z.string(), z.unknown()), "Discovery document"),
      },
    }),
    (c) =>
      c.json({
        issuer: publicUrl,
        authorization_endpoint: `${publicUrl}/oauth/authorize`,
        token_endpoint: `${publicUrl}/api/auth/callback`,
        userinfo_endpoint: `${publicUrl}/api/auth/me`,
        jwks_uri: `${publicUrl}/.well-known/jwks.json`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["EdDSA"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
        scopes_supported: ["openid", "email", "profile"],
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
}
