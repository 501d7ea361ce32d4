/**
 * RFC 9728 protected resource metadata: where a resource of this service says which
 * authorization server issues its tokens. The auth service serves the documents; the gateway
 * names them in the `WWW-Authenticate` header of its 401s, so a client given only a URL (an MCP
 * client given `{PUBLIC_URL}/mcp`) finds where to sign in.
 */
export const PROTECTED_RESOURCE_METADATA = "/.well-known/oauth-protected-resource";

/** The MCP tool interface, a resource of its own (its metadata is the path-suffixed one). */
export const MCP_RESOURCE_PATH = "/mcp";

/** The resource a request path belongs to: `/mcp` for the tool interface, else the API (""). */
export function resourceOf(path: string): string {
  return path === MCP_RESOURCE_PATH || path.startsWith(`${MCP_RESOURCE_PATH}/`)
    ? MCP_RESOURCE_PATH
    : "";
}

/**
 * The `WWW-Authenticate` value of a 401 for a request to `path` (RFC 6750 3, RFC 9728 5.1):
 * `error="invalid_token"` when a token was sent and refused.
 */
export function bearerChallenge(publicUrl: string, path: string, tokenSent: boolean): string {
  const metadata = `${publicUrl}${PROTECTED_RESOURCE_METADATA}${resourceOf(path)}`;
  return `Bearer resource_metadata="${metadata}"${tokenSent ? ', error="invalid_token"' : ""}`;
}
