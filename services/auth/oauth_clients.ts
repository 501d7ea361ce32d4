/**
 * The OAuth clients the hosted login serves: the first-party one (`OAUTH_CLIENT_ID` with
 * `OAUTH_REDIRECT_URIS`, the web app) and the public clients that register themselves (RFC 7591
 * dynamic registration: MCP clients such as desktop assistants). Every client is public: no
 * secret, PKCE S256 on every code, `token_endpoint_auth_method` `none`.
 */
import { z } from "@hono/zod-openapi";
import { randomToken } from "../../shared/crypto/ids.ts";
import { toIso } from "../../shared/time.ts";
import { tooManyRequests } from "../../shared/http/app_error.ts";
import type { AuthConfig } from "./config.ts";
import type { AuthStore } from "./store.ts";
import { UNUSED_CLIENT_TTL_MS } from "./store/clients.ts";

/**
 * A redirect URI a public client may register: https; http only to the loopback interface
 * (RFC 8252 7.3, a native app's local listener); or a private-use scheme (RFC 8252 7.1, such as
 * `com.example.app:/callback` or `cursor://...`) but none a browser would run or read
 * (`javascript:`, `data:`, `file:`...). Never a fragment.
 */
export const REDIRECT_URI_PATTERN = new RegExp(
  "^(?:https://[^/?#\\s]+|http://(?:127\\.0\\.0\\.1|\\[::1\\]|localhost)(?::\\d{1,5})?" +
    "|(?!(?:https?|javascript|data|file|blob|vbscript|about|ws|wss|ftp|mailto|filesystem):)" +
    "[a-z][a-z0-9+.-]*:[^\\s#]*?)(?:[/?][^\\s#]*)?$",
);

const REDIRECT_URI_RULE = "each redirect_uri must be https, http to 127.0.0.1, [::1] or " +
  "localhost, or an app's own scheme, with no fragment";

const redirectUri = z.string({ error: "redirect_uris must hold strings" })
  .max(2000, "a redirect_uri is at most 2000 characters")
  .regex(REDIRECT_URI_PATTERN, REDIRECT_URI_RULE)
  .refine((uri) => URL.canParse(uri), REDIRECT_URI_RULE)
  .openapi({ examples: ["http://127.0.0.1:33418/callback", "https://app.example/oauth/callback"] });

const GRANT_TYPES = ["authorization_code", "refresh_token"] as const;

/**
 * RFC 7591 client metadata, as far as this server uses it; other fields (client_uri, logo_uri,
 * contacts, software_id...) are accepted and ignored.
 */
export const clientMetadataSchema = z.object({
  redirect_uris: z.array(redirectUri, { error: "redirect_uris is required" })
    .min(1, "redirect_uris must hold at least 1 URI")
    .max(10, "redirect_uris holds at most 10 URIs"),
  client_name: z.string({ error: "client_name must be a string" })
    .max(200, "client_name is at most 200 characters").optional(),
  token_endpoint_auth_method: z.string().max(100).optional().openapi({
    description: "Registered as `none` whatever is asked: every client is public and proves " +
      "its codes with PKCE",
  }),
  grant_types: z.array(z.enum(GRANT_TYPES, {
    error: "grant_types may hold authorization_code and refresh_token",
  })).max(2).optional(),
  response_types: z.array(z.literal("code", { error: "response_types may hold only code" }))
    .max(1).optional(),
  scope: z.string().max(1000, "scope is at most 1000 characters").optional(),
}).openapi("ClientRegistrationRequest");
export type ClientMetadata = z.infer<typeof clientMetadataSchema>;

export const registeredClientSchema = z.object({
  client_id: z.string(),
  client_id_issued_at: z.number().int(),
  client_name: z.string().optional(),
  redirect_uris: z.array(z.string()),
  grant_types: z.array(z.enum(GRANT_TYPES)),
  response_types: z.array(z.literal("code")),
  token_endpoint_auth_method: z.literal("none"),
  scope: z.string().optional(),
}).openapi("RegisteredClient");
export type RegisteredClient = z.infer<typeof registeredClientSchema>;

/** A client the hosted login serves. */
export interface OAuthClient {
  client_id: string;
  /** the name a registered client gave itself (null when none, and for the first party) */
  client_name: string | null;
  redirect_uris: readonly string[];
  /** the web app's own client (`OAUTH_CLIENT_ID`), as opposed to a registered one */
  first_party: boolean;
}

/** Where a redirect URI sends the browser, in words for the login page. */
export function destinationOf(uri: string): string {
  const url = new URL(uri);
  if (LOOPBACK_HOSTS.has(url.hostname)) return "an app on this computer";
  if (url.protocol === "https:") return url.host;
  return `the ${url.protocol.slice(0, -1)} app`;
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

/** Whether `uri` is an http URI to the loopback interface. */
function loopback(uri: URL): boolean {
  return uri.protocol === "http:" && LOOPBACK_HOSTS.has(uri.hostname);
}

export class OAuthClients {
  constructor(
    private readonly store: AuthStore,
    private readonly config: Pick<AuthConfig, "clientId" | "redirectUris" | "base">,
  ) {}

  /** The client with this id; null when it is neither ours nor registered. */
  async find(clientId: string): Promise<OAuthClient | null> {
    if (clientId === this.config.clientId) {
      return {
        client_id: clientId,
        client_name: null,
        redirect_uris: this.config.redirectUris,
        first_party: true,
      };
    }
    const record = await this.store.clients.get(clientId);
    if (!record) return null;
    return {
      client_id: record.client_id,
      client_name: record.client_name,
      redirect_uris: record.redirect_uris,
      first_party: false,
    };
  }

  /**
   * Whether `uri` is one of the client's redirect URIs: exactly, or, for a registered loopback
   * URI, with any port (RFC 8252 7.3: a native app listens on whatever port is free).
   */
  redirectAllowed(client: OAuthClient, uri: string): boolean {
    if (client.redirect_uris.includes(uri)) return true;
    if (client.first_party || !URL.canParse(uri)) return false;
    const asked = new URL(uri);
    if (!loopback(asked)) return false;
    return client.redirect_uris.some((registered) => {
      const r = new URL(registered);
      return loopback(r) && r.hostname === asked.hostname && r.pathname === asked.pathname &&
        r.search === asked.search;
    });
  }

  /**
   * Whether a `resource` indicator (RFC 8707) names this service: an address under
   * PUBLIC_URL, such as `{PUBLIC_URL}/mcp`. Every token is good for the whole service.
   */
  servesResource(resource: string): boolean {
    if (!URL.canParse(resource)) return false;
    const asked = new URL(resource);
    const ours = new URL(this.config.base.publicUrl);
    const base = ours.pathname.replace(/\/$/, "");
    return asked.origin === ours.origin && !asked.hash &&
      (asked.pathname === base || asked.pathname === `${base}/` ||
        asked.pathname.startsWith(`${base}/`));
  }

  /** Registers a public client (429 beyond the address's hourly allowance). */
  async register(metadata: ClientMetadata, address: string): Promise<RegisteredClient> {
    const now = Date.now();
    const clientId = `cp-${randomToken(18)}`;
    const stored = await this.store.clients.register({
      client_id: clientId,
      client_name: metadata.client_name ?? null,
      redirect_uris: metadata.redirect_uris,
      created_at: toIso(new Date(now)),
      expires_at: now + UNUSED_CLIENT_TTL_MS,
    }, address);
    if (!stored.allowed) {
      throw tooManyRequests(
        "Too many client registrations from this address; try again later",
        stored.waitMs,
      );
    }
    return {
      client_id: clientId,
      client_id_issued_at: Math.floor(now / 1000),
      ...(metadata.client_name ? { client_name: metadata.client_name } : {}),
      redirect_uris: metadata.redirect_uris,
      grant_types: metadata.grant_types?.length ? metadata.grant_types : [...GRANT_TYPES],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      ...(metadata.scope ? { scope: metadata.scope } : {}),
    };
  }
}
