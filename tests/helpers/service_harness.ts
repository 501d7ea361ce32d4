// deno-lint-ignore-file no-explicit-any
import { Hono } from "hono";
import { ulid } from "ulid";
import { parseBaseConfig, type ServiceName } from "../../shared/config.ts";
import { type Caller, inProcessPasses } from "../../shared/http/identity.ts";
import { createLogger } from "../../shared/log.ts";
import type { ServiceFactory, ServiceInstance } from "../../shared/service/service.ts";
import { type FetchHandler, ServiceDirectory } from "../../shared/service/service_directory.ts";
import { TEST_INTERNAL_SECRET, testServiceEnv } from "./stack.ts";

/**
 * One service on its own, for its route-level rules (400/403/404/409): its factory on a fresh
 * DATA_DIR, each peer it calls answered by a small stub app through the service directory, and
 * requests handed to its app in process with the caller beside them, as the gateway hands them
 * on after verifying a token. No port, no gateway, no other service.
 */
export interface ServiceHarness {
  service: ServiceInstance;
  dataDir: string;
  /** A request as the gateway passes it on for `as` (no caller: as for a route without a token). */
  request(
    method: string,
    path: string,
    options?: { as?: Caller; body?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; body: any; headers: Headers }>;
  /** Calls a `/internal/...` route with the internal secret, as a peer does. */
  internal(method: string, path: string, body?: unknown): Promise<Response>;
  close(): Promise<void>;
}

export async function startServiceHarness(
  name: ServiceName,
  factory: ServiceFactory,
  options: { peers?: Partial<Record<ServiceName, FetchHandler>>; env?: Record<string, string> } =
    {},
): Promise<ServiceHarness> {
  const dataDir = await Deno.makeTempDir({ prefix: `cps-${name}-` });
  const env = { ...testServiceEnv(dataDir, 0), ...options.env };
  const base = parseBaseConfig(env);
  const directory = new ServiceDirectory();
  for (const [peer, handler] of Object.entries(options.peers ?? {})) {
    directory.register(peer as ServiceName, handler!);
  }
  const logger = createLogger(name, { level: "error" });
  const service = await factory({ env, base, directory, logger });
  await service.start();
  directory.register(name, service.fetch);
  return {
    service,
    dataDir,
    async request(method, path, { as, body, headers: extra } = {}) {
      const headers = new Headers(extra);
      let text: string | undefined;
      if (body !== undefined) {
        headers.set("content-type", "application/json");
        text = typeof body === "string" ? body : JSON.stringify(body);
      }
      const req = new Request(`http://service.test${path}`, { method, headers, body: text });
      inProcessPasses.set(req, { caller: as ?? null, requestId: crypto.randomUUID() });
      const res = await service.fetch(req);
      const answer = await res.text();
      let parsed: any = null;
      if (answer) {
        try {
          parsed = JSON.parse(answer);
        } catch {
          parsed = answer;
        }
      }
      return { status: res.status, body: parsed, headers: res.headers };
    },
    internal(method, path, body) {
      const headers = new Headers({ "x-cp-internal": TEST_INTERNAL_SECRET });
      if (body !== undefined) headers.set("content-type", "application/json");
      return Promise.resolve(service.fetch(
        new Request(`http://internal.invalid${path}`, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      ));
    },
    async close() {
      await service.close();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    },
  };
}

/** A verified, approved member caller, as the gateway makes one from a token. */
export function testCaller(name: string, over: Partial<Caller> = {}): Caller {
  const id = ulid();
  return {
    user_id: id,
    email: `${name.toLowerCase().replace(/\W+/g, "-")}-${id.toLowerCase()}@example.test`,
    name,
    role: "member",
    approved: true,
    ...over,
  };
}

type Role = "owner" | "editor" | "viewer";

/**
 * A stand-in for the workspaces service: answers the membership check every workspace-scoped
 * service makes, from workspaces made here. An unknown workspace has no status, a non-member
 * no role, as the real one answers.
 */
export function stubWorkspaces() {
  const workspaces = new Map<
    string,
    { owner_id: string; status: "active" | "deleted"; members: Map<string, Role> }
  >();
  const app = new Hono();
  app.get("/internal/workspaces/:wsId/members/:userId", (c) => {
    const ws = workspaces.get(c.req.param("wsId"));
    return c.json({
      workspace_id: c.req.param("wsId"),
      user_id: c.req.param("userId"),
      role: ws?.members.get(c.req.param("userId")) ?? null,
      workspace_status: ws?.status ?? null,
      owner_id: ws?.owner_id ?? null,
    });
  });
  return {
    fetch: app.fetch as FetchHandler,
    /** A workspace of `owner`'s with `members` in it (each a caller and a role); its id. */
    create(owner: Caller, members: readonly (readonly [Caller, "editor" | "viewer"])[] = []) {
      const id = ulid();
      const roles = new Map<string, Role>([[owner.user_id, "owner"]]);
      for (const [user, role] of members) roles.set(user.user_id, role);
      workspaces.set(id, { owner_id: owner.user_id, status: "active", members: roles });
      return id;
    },
    /** Soft-deletes a workspace: its members get 404 Workspace not found. */
    softDelete(id: string) {
      const ws = workspaces.get(id);
      if (ws) ws.status = "deleted";
    },
  };
}

/**
 * A stand-in for the auth service's user lookups (by email, by ids, by id), answering each of
 * `users` as an approved, confirmed, enabled account.
 */
export function stubAuth(users: readonly Caller[]) {
  const at = "2026-01-01T00:00:00.000+00:00";
  const profile = (u: Caller) => ({
    user_id: u.user_id,
    email: u.email,
    name: u.name,
    role: u.role,
    status: "approved",
    approved: true,
    confirmed: true,
    enabled: true,
    created_at: at,
    updated_at: at,
    last_login: null,
  });
  const app = new Hono();
  app.get("/internal/users/by-email/:email", (c) => {
    const email = decodeURIComponent(c.req.param("email")).trim().toLowerCase();
    const user = users.find((u) => u.email.toLowerCase() === email);
    return user ? c.json(profile(user)) : c.json({ error: "User not found" }, 404);
  });
  app.post("/internal/users/lookup", async (c) => {
    const { user_ids } = await c.req.json() as { user_ids: string[] };
    return c.json({ users: users.filter((u) => user_ids.includes(u.user_id)).map(profile) });
  });
  app.get("/internal/users/:id", (c) => {
    const user = users.find((u) => u.user_id === c.req.param("id"));
    return user ? c.json(profile(user)) : c.json({ error: "User not found" }, 404);
  });
  return { fetch: app.fetch as FetchHandler };
}

/**
 * `h.request` in the shape of the end-to-end `api(stack, method, path, {token, body})`, with the
 * caller in `token`, so a test moved onto one service keeps its calls as they were.
 */
export function harnessApi(h: ServiceHarness) {
  return (
    _at: unknown,
    method: string,
    path: string,
    options: { token?: Caller; body?: unknown } = {},
  ) => h.request(method, path, { as: options.token, body: options.body });
}
