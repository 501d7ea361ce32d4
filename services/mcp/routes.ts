import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { requireCaller, type ServiceApp } from "../../shared/http/service_app.ts";
import { toolInputs } from "./schemas.ts";
import { buildMcpServer, type ToolDeps } from "./tools.ts";

export const MCP_PATH = "/mcp";

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** What is wrong with a `tools/call` request's `params`, or null when it is well formed. */
function toolCallParamsProblem(params: unknown): string | null {
  if (!isObject(params)) return "params must be an object with the tool's name and arguments";
  if (typeof params.name !== "string") return "params.name must be a string, the tool's name";
  if (params.arguments !== undefined && !isObject(params.arguments)) {
    return "params.arguments must be an object of the tool's arguments";
  }
  return null;
}

/**
 * The request's JSON-RPC message, read once for both the check below and the transport
 * (`parsedBody`); null when the transport answers the request itself without reading a message
 * (not a JSON body, or an Accept without both JSON and event streams: 406, 415), and the body
 * text, unparsed, when it is not JSON (the transport answers its parse error).
 */
async function readMessage(req: Request): Promise<{ message: unknown } | { text: string } | null> {
  const accept = req.headers.get("accept") ?? "";
  const type = req.headers.get("content-type") ?? "";
  if (
    !type.includes("application/json") || !accept.includes("application/json") ||
    !accept.includes("text/event-stream")
  ) return null;
  const text = await req.text();
  try {
    return { message: JSON.parse(text) };
  } catch {
    return { text };
  }
}

/**
 * A single `tools/call` request whose `params` are malformed (arguments not an object, no tool
 * name) is a JSON-RPC Invalid params error (-32602) naming what is wrong. The SDK would parse it
 * before its own check and answer an Internal error (-32603) holding a validation dump. Batches
 * and the rest are the transport's.
 */
function malformedToolCall(message: unknown): Response | null {
  if (!isObject(message) || message.method !== "tools/call" || !("id" in message)) return null;
  const problem = toolCallParamsProblem(message.params);
  if (!problem) return null;
  return Response.json({
    jsonrpc: "2.0",
    id: message.id,
    error: { code: -32602, message: `Invalid params: ${problem}` },
  });
}

/**
 * `POST /mcp`: the Streamable HTTP transport of the Model Context Protocol, stateless (no
 * session id; a new server and transport per request) with plain JSON answers, so any process
 * of a multi-process deployment can answer any request. The gateway has verified the bearer
 * token (access "approved") and passes the caller, for whom every tool acts.
 */
export function mountMcpRoutes(app: ServiceApp, deps: ToolDeps): void {
  app.post(MCP_PATH, async (c) => {
    const caller = requireCaller(c);
    const read = await readMessage(c.req.raw);
    const malformed = read && "message" in read ? malformedToolCall(read.message) : null;
    if (malformed) return malformed;
    const server = buildMcpServer(caller, deps);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    try {
      await server.connect(transport);
      if (read === null) return await transport.handleRequest(c.req.raw);
      if ("message" in read) {
        return await transport.handleRequest(c.req.raw, { parsedBody: read.message });
      }
      // Not JSON: the transport reads the text again and answers its parse error.
      return await transport.handleRequest(new Request(c.req.raw, { body: read.text }));
    } finally {
      // The JSON answer is complete by now; the per-request server has nothing left to do.
      await server.close().catch(() => {});
    }
  });

  // Stateless: there is no server-initiated stream to open (GET) and no session to end (DELETE).
  const notAllowed = () =>
    Response.json({ error: "Method not allowed: use POST /mcp" }, {
      status: 405,
      headers: { allow: "POST" },
    });
  app.get(MCP_PATH, notAllowed);
  app.delete(MCP_PATH, notAllowed);

  app.openAPIRegistry.registerPath({
    method: "post",
    path: MCP_PATH,
    summary: "Tool interface for AI clients (Model Context Protocol, Streamable HTTP)",
    description: "JSON-RPC 2.0 messages of the Model Context Protocol over Streamable HTTP, " +
      "stateless, answered as `application/json`. Send `Authorization: Bearer <access token>` " +
      "and `Accept: application/json, text/event-stream`. Tools: " +
      `${Object.keys(toolInputs).join(", ")}; each returns its ` +
      "JSON-encoded result in one text content item and the same object as " +
      "`structuredContent` (the tool's `outputSchema`), and carries annotations (read-only, " +
      "destructive, idempotent, open-world); a refused call is a result with `isError` true. " +
      "A client with only this URL signs in by OAuth discovery: the 401 names the protected " +
      "resource metadata (RFC 9728), which names the authorization server. See docs/mcp.md.",
    security: [{ bearer: [] }],
    request: {
      body: {
        required: true,
        content: {
          "application/json": {
            schema: {
              type: "object",
              description: "A JSON-RPC 2.0 request (with `id`) or notification (without) of " +
                "the Model Context Protocol, such as `initialize`, `tools/list` or `tools/call`",
              properties: {
                jsonrpc: { const: "2.0" },
                id: { anyOf: [{ type: "string" }, { type: "integer" }] },
                method: { type: "string" },
                params: { type: "object" },
              },
              required: ["jsonrpc", "method"],
            },
          },
        },
      },
    },
    responses: {
      200: { description: "The JSON-RPC response(s)" },
      202: { description: "Accepted (notifications and responses only)" },
      400: { description: "Not a valid JSON-RPC message" },
      401: {
        description: "Missing or invalid token, or account not approved. The " +
          '`WWW-Authenticate: Bearer resource_metadata="..."` header names the protected ' +
          "resource metadata (RFC 9728), from which an MCP client finds the authorization server",
      },
      406: {
        description: "The Accept header does not allow both application/json and " +
          "text/event-stream",
      },
      415: { description: "The body is not application/json" },
    },
  });
}
