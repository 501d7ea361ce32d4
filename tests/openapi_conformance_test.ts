/**
 * The OpenAPI document says exactly what the handlers do. Every operation of the document is
 * sent requests made from the document alone: each one it calls invalid (one rule broken at a
 * time) must be refused with a 4xx it documents; each one it calls valid (only the required
 * fields, then every field) must succeed, or be refused only for membership, existence or
 * state, with a status it documents. A method a documented path does not have answers 405.
 */
// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { e2e, startTestStack, type TestStack } from "./helpers/stack.ts";
import { startFakeChatCompletions } from "./fakes/chat_completions.ts";
import {
  type Doc,
  HTTP_METHODS,
  MISSING,
  type Operation,
  operations,
  resolve,
  sample,
  type Schema,
  violations,
} from "./helpers/openapi_cases.ts";
import {
  type Accounts,
  createAccounts,
  createWorld,
  fixtures,
  prepare,
  tokenFor,
  type World,
} from "./helpers/openapi_world.ts";

/**
 * The 400s a request the document calls valid may still get: each is a rule about state the
 * document names in words (a secret that is wrong, a time taken by another post), never about
 * the request's shape.
 */
const STATE_REFUSALS: Record<string, RegExp> = {
  // The refresh token may come from the cp_refresh cookie instead: one of the two is required.
  "POST /api/auth/refresh": /^refresh_token is required/,
  "POST /api/auth/logout": /^refresh_token is required/,
  // A code only the email knows: wrong, used or expired.
  "POST /api/auth/reset-password": /^Invalid, used or expired reset code$/,
  "POST /api/auth/callback": /^Invalid, used or expired authorization code$/,
  "POST /oauth/token": /^invalid_grant$/,
  // The state of a LinkedIn round trip this browser never started.
  "GET /oauth/linkedin/callback": /^Unknown or used LinkedIn authorization state$/,
  // The post's own media, each once: which ones the post holds is state.
  "PUT /api/posts/{id}/media": /^media_ids must name each of the post's media exactly once$/,
  // Recovering a workspace that is not deleted (the spec's 400).
  "POST /api/admin/workspaces/{workspace_id}/recover": /^Workspace is not deleted$/,
};

/**
 * Statuses a valid request may get besides success: membership, existence, state, limits;
 * and 426 from the socket route, which only an upgrade opens (the document says so).
 */
const STATE_STATUSES = new Set([403, 404, 409, 410, 426, 429, 503]);

/** A body in a media type the document does not give the operation. */
const TEXT_BODY = Symbol("text body");

interface Sent {
  status: number;
  error: string;
  location: string;
}

/** One request of `operation`, its fields given by name (`MISSING` leaves one out). */
async function send(
  stack: TestStack,
  { method, path, op }: Operation,
  values: { params: Record<string, unknown>; body: unknown },
  token: string | undefined,
): Promise<Sent> {
  let url = path;
  const query = new URLSearchParams();
  const headers = new Headers({ accept: "application/json, text/event-stream" });
  for (const param of op.parameters ?? []) {
    const value = values.params[`${param.in}:${param.name}`];
    if (value === MISSING || value === undefined) continue;
    const text = String(value);
    if (param.in === "path") url = url.replace(`{${param.name}}`, encodeURIComponent(text));
    if (param.in === "query") query.set(param.name, text);
    if (param.in === "header") headers.set(param.name, text);
  }
  if (token) headers.set("authorization", `Bearer ${token}`);
  let body: string | undefined;
  const [mediaType] = Object.keys(op.requestBody?.content ?? {});
  if (values.body === TEXT_BODY) {
    headers.set("content-type", "text/plain");
    body = "a body of a type no operation takes";
  } else if (mediaType && values.body !== MISSING) {
    headers.set("content-type", mediaType);
    body = mediaType === "application/x-www-form-urlencoded"
      ? new URLSearchParams(values.body as Record<string, string>).toString()
      : JSON.stringify(values.body);
  }
  const qs = query.size ? `?${query}` : "";
  const res = await fetch(`${stack.url}${url}${qs}`, {
    method: method.toUpperCase(),
    headers,
    body,
    redirect: "manual",
  });
  const text = await res.text();
  let error = "";
  try {
    error = String(JSON.parse(text).error ?? "");
  } catch {
    error = text.slice(0, 200);
  }
  return { status: res.status, error, location: res.headers.get("location") ?? "" };
}

/** The operation's parameters and body schema. */
function parts(doc: Doc, op: any) {
  const params: { key: string; param: any; schema: Schema }[] = (op.parameters ?? []).map((
    p: any,
  ) => ({ key: `${p.in}:${p.name}`, param: p, schema: resolve(doc, p.schema) }));
  const [mediaType, media] = Object.entries<any>(op.requestBody?.content ?? {})[0] ?? [];
  return {
    params,
    mediaType: mediaType as string | undefined,
    bodySchema: media ? resolve(doc, media.schema) : undefined,
    bodyRequired: op.requestBody?.required === true,
  };
}

/** A valid request's fields (`minimal`: required only; `full`: every field). */
function validValues(doc: Doc, op: any, mode: "minimal" | "full", fx: any) {
  const { params, bodySchema } = parts(doc, op);
  const values: Record<string, unknown> = {};
  for (const { key, param, schema } of params) {
    if (mode === "minimal" && !param.required) continue;
    values[key] = sample(doc, schema, { mode, fixtures: fx }, param.name);
  }
  const body = bodySchema ? sample(doc, bodySchema, { mode, fixtures: fx }) : MISSING;
  return { params: values, body };
}

interface Context {
  stack: TestStack;
  doc: Doc;
  accounts: Accounts;
}

async function fixturesFor(ctx: Context, world: World, path: string) {
  const extra = await prepare(ctx.stack, ctx.accounts, path);
  return fixtures({ stack: ctx.stack, accounts: ctx.accounts, world, path, extra });
}

const label = ({ method, path }: Operation) => `${method.toUpperCase()} ${path}`;

async function withStack(fn: (ctx: Context) => Promise<void>) {
  const ai = startFakeChatCompletions();
  const stack = await startTestStack({
    OPENAI_BASE_URL: ai.baseUrl,
    OPENAI_API_KEY: "test-key",
    OPENAI_MODEL: "fake-model",
  });
  try {
    const doc = await (await fetch(`${stack.url}/api/openapi.json`)).json() as Doc;
    const accounts = await createAccounts(stack);
    await fn({ stack, doc, accounts });
  } finally {
    await stack.close();
    await ai.close();
  }
}

Deno.test(
  "every request the OpenAPI document calls invalid is refused with a 4xx it documents",
  e2e,
  async () => {
    await withStack(async (ctx) => {
      const { stack, doc, accounts } = ctx;
      const failures: string[] = [];
      let sent = 0;
      for (const operation of operations(doc)) {
        const { op, path } = operation;
        const world = await createWorld(stack, accounts);
        const fx = await fixturesFor(ctx, world, path);
        const base = validValues(doc, op, "minimal", fx);
        const token = tokenFor(accounts, path, op);
        const { params, mediaType, bodySchema, bodyRequired } = parts(doc, op);
        const cases: { rule: string; params: Record<string, unknown>; body: unknown }[] = [];
        for (const { key, param, schema } of params) {
          if (param.required && param.in !== "path") {
            cases.push({
              rule: `${key} required`,
              params: { ...base.params, [key]: MISSING },
              body: base.body,
            });
          }
          const opts = { mode: "minimal" as const, fixtures: fx, wire: "text" as const };
          for (const v of violations(doc, schema, opts, param.name)) {
            if (param.in === "path" && v.value === "") continue; // another path, not this one
            cases.push({
              rule: `${key} ${v.rule}`,
              params: { ...base.params, [key]: v.value },
              body: base.body,
            });
          }
        }
        if (bodySchema) {
          if (bodyRequired) {
            cases.push({ rule: "body required", params: base.params, body: MISSING });
          }
          cases.push({ rule: "media type", params: base.params, body: TEXT_BODY });
          const wire = mediaType === "application/json" ? "json" as const : "text" as const;
          const opts = { mode: "minimal" as const, fixtures: fx, wire };
          for (const v of violations(doc, bodySchema, opts)) {
            cases.push({ rule: `body ${v.rule}`, params: base.params, body: v.value });
          }
        }
        for (const c of cases) {
          const answer = await send(stack, operation, c, token);
          sent++;
          const documented = String(answer.status) in (op.responses ?? {});
          if (answer.status < 400 || answer.status >= 500 || !documented) {
            failures.push(
              `${label(operation)} [${c.rule}] answered ${answer.status}${
                documented ? "" : " (undocumented)"
              }: ${answer.error}`,
            );
          }
        }
      }
      assert.ok(sent > 500, `only ${sent} invalid requests were made`);
      assert.deepEqual(
        failures,
        [],
        `${failures.length} of ${sent} invalid requests:\n${failures.join("\n")}`,
      );
    });
  },
);

Deno.test(
  "every request the OpenAPI document calls valid succeeds, or is refused only for membership, existence or state, with a status it documents",
  e2e,
  async () => {
    await withStack(async (ctx) => {
      const { stack, doc, accounts } = ctx;
      const failures: string[] = [];
      let succeeded = 0;
      let sent = 0;
      for (const operation of operations(doc)) {
        const { op, path } = operation;
        for (const mode of ["minimal", "full"] as const) {
          const world = await createWorld(stack, accounts);
          const fx = await fixturesFor(ctx, world, path);
          const values = validValues(doc, op, mode, fx);
          const answer = await send(stack, operation, values, tokenFor(accounts, path, op));
          sent++;
          const documented = String(answer.status) in (op.responses ?? {});
          const publicRoute = !op.security?.length;
          const allowed = answer.status < 400 ||
            STATE_STATUSES.has(answer.status) ||
            (answer.status === 401 && publicRoute) ||
            (answer.status === 400 && STATE_REFUSALS[label(operation)]?.test(answer.error));
          if (answer.status < 400) succeeded++;
          if (!documented || !allowed) {
            failures.push(
              `${label(operation)} (${mode}) answered ${answer.status}${
                documented ? "" : " (undocumented)"
              }: ${answer.error} ${answer.location}`,
            );
          }
        }
      }
      assert.deepEqual(
        failures,
        [],
        `${failures.length} of ${sent} valid requests:\n${failures.join("\n")}`,
      );
      assert.ok(succeeded > sent / 2, `only ${succeeded} of ${sent} valid requests succeeded`);
    });
  },
);

/**
 * One HTTP/1.1 request over a plain socket: fetch refuses TRACE (a forbidden method), which a
 * client that is not a browser can still send.
 */
async function rawRequest(
  base: string,
  method: string,
  path: string,
  token: string,
): Promise<{ status: number; allow: string; body: string }> {
  const { hostname, port } = new URL(base);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  try {
    const head = `${method} ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n` +
      `Authorization: Bearer ${token}\r\nConnection: close\r\n\r\n`;
    await conn.write(new TextEncoder().encode(head));
    const text = new TextDecoder().decode(await new Response(conn.readable).arrayBuffer());
    const [headers, ...rest] = text.split("\r\n\r\n");
    const status = Number(headers.split(" ")[1]);
    const allow = /^allow:\s*(.*)$/im.exec(headers)?.[1]?.trim() ?? "";
    const body = rest.join("\r\n\r\n");
    return { status, allow, body: /chunked/i.test(headers) ? unchunk(body) : body };
  } finally {
    try {
      conn.close();
    } catch {
      // closed by the reader already
    }
  }
}

function unchunk(body: string): string {
  let out = "";
  let rest = body;
  while (rest) {
    const eol = rest.indexOf("\r\n");
    const size = parseInt(rest.slice(0, eol), 16);
    if (!size) break;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
  return out;
}

Deno.test(
  "a method a documented path does not have answers 405 with Allow naming the methods it has",
  e2e,
  async () => {
    await withStack(async ({ stack, doc, accounts }) => {
      const failures: string[] = [];
      let checked = 0;
      for (const [path, item] of Object.entries(doc.paths)) {
        const methods = Object.keys(item).filter((m) => HTTP_METHODS.includes(m));
        const expected = new Set(methods.map((m) => m.toUpperCase()));
        if (expected.has("GET")) expected.add("HEAD");
        const url = path.replace(/\{[^}]+\}/g, "sample");
        for (const method of ["TRACE", "PATCH", "PUT", "DELETE"].filter((m) => !expected.has(m))) {
          const res = await rawRequest(stack.url, method, url, accounts.admin.access_token);
          checked++;
          const allow = new Set(res.allow.split(/,\s*/).filter(Boolean));
          const same = allow.size === expected.size && [...allow].every((m) => expected.has(m));
          if (res.status !== 405 || !same) {
            failures.push(`${method} ${path}: ${res.status}, Allow: ${res.allow}`);
          }
        }
      }
      assert.deepEqual(failures, []);
      assert.ok(checked > 150, `only ${checked} requests`);
      const trace = await rawRequest(stack.url, "TRACE", "/api/ideas", accounts.owner.access_token);
      assert.equal(trace.status, 405);
      assert.equal(trace.allow, "GET, HEAD, POST");
      assert.deepEqual(JSON.parse(trace.body), { error: "Method TRACE not allowed on /api/ideas" });
    });
  },
);
