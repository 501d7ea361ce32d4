import assert from "node:assert/strict";
import { createLogger } from "../../shared/log.ts";
import { withHub } from "./testing.ts";
import { createWsHandler, type WsAccess } from "./websocket.ts";

const logger = createLogger("collab-test");

function access(overrides: Partial<WsAccess> = {}): WsAccess {
  return {
    verifyTicket: (t) =>
      Promise.resolve(
        t === "good"
          ? { user_id: "u1", expires_at: new Date(Date.now() + 60_000).toISOString() }
          : t === "expired"
          ? { user_id: "u1", expires_at: new Date(Date.now() - 1).toISOString() }
          : t === "disabled"
          ? { user_id: "u-disabled", expires_at: new Date(Date.now() + 60_000).toISOString() }
          : null,
      ),
    isActive: (user) => Promise.resolve(user !== "u-disabled"),
    membership: (ws, user) =>
      Promise.resolve({
        role: ws === "w1" && user === "u1" ? "viewer" : ws === "gone" ? "owner" : null,
        workspace_status: ws === "gone" ? "deleted" : ws === "w1" ? "active" : null,
      }),
    docWorkspace: (id) => Promise.resolve(id === "p1" ? "w1" : null),
    ...overrides,
  };
}

const SECRET = "collab-test-secret-0123456789";

function upgradeRequest(query: string, secret: string | null = SECRET): Request {
  const headers = new Headers({ upgrade: "websocket", connection: "Upgrade" });
  if (secret !== null) headers.set("x-cp-internal", secret);
  return new Request(`http://collab.internal/ws?${query}`, { headers });
}

Deno.test("the upgrade is refused with an HTTP status before any socket opens", () =>
  withHub(async (hub) => {
    const handle = createWsHandler({
      hub,
      access: access(),
      logger,
      pingSeconds: 30,
      internalSecret: SECRET,
    });
    const cases: [string, number, string][] = [
      ["ticket=bad&docId=p1&workspaceId=w1", 401, "Invalid or expired ticket"],
      ["ticket=disabled&docId=p1&workspaceId=w1", 401, "Invalid or expired ticket"],
      ["ticket=expired&docId=p1&workspaceId=w1", 401, "Invalid or expired ticket"],
      ["docId=p1&workspaceId=w1", 400, "ticket is required"],
      [`ticket=${"x".repeat(900)}&docId=p1&workspaceId=w1`, 401, "Invalid or expired ticket"],
      [
        `ticket=good&docId=${"x".repeat(300)}&workspaceId=w1`,
        400,
        "docId must be at most 200 characters",
      ],
      ["ticket=good&docId=p1&workspaceId=w2", 403, "Not a workspace member"],
      ["ticket=good&docId=p1&workspaceId=gone", 404, "Workspace not found"],
      ["ticket=good&docId=p2&workspaceId=w1", 404, "Post not found"],
    ];
    for (const [query, status, error] of cases) {
      const res = await handle(upgradeRequest(query));
      assert.equal(res.status, status, query);
      assert.deepEqual(await res.json(), { error }, query);
    }
    const plain = await handle(
      new Request("http://collab.internal/ws?ticket=good", {
        headers: { "x-cp-internal": SECRET },
      }),
    );
    assert.equal(plain.status, 426);
    await plain.body?.cancel();
  }));

Deno.test("an upgrade without the internal secret is refused before the ticket is read", () =>
  withHub(async (hub) => {
    let asked = 0;
    const handle = createWsHandler({
      hub,
      logger,
      pingSeconds: 30,
      internalSecret: SECRET,
      access: access({
        verifyTicket: () => {
          asked++;
          return Promise.resolve(null);
        },
      }),
    });
    for (const secret of [null, "wrong-secret", SECRET.slice(0, -1)]) {
      const res = await handle(upgradeRequest("ticket=good&docId=p1&workspaceId=w1", secret));
      assert.equal(res.status, 401);
      assert.deepEqual(await res.json(), { error: "Unauthorized" });
    }
    assert.equal(asked, 0);
  }));

Deno.test("a post in another workspace is not found even for a member of both", () =>
  withHub(async (hub) => {
    const handle = createWsHandler({
      hub,
      logger,
      pingSeconds: 30,
      internalSecret: SECRET,
      access: access({
        membership: () => Promise.resolve({ role: "owner", workspace_status: "active" }),
        docWorkspace: () => Promise.resolve("elsewhere"),
      }),
    });
    const res = await handle(upgradeRequest("ticket=good&docId=p1&workspaceId=w1"));
    assert.equal(res.status, 404);
    assert.deepEqual(await res.json(), { error: "Post not found" });
  }));

Deno.test("relayed by the gateway: collab admits an upgrade once, using its ticket once, and the relayed socket opens on that admission", () =>
  withHub(async (hub) => {
    let redeemed = 0;
    const handle = createWsHandler({
      hub,
      logger,
      pingSeconds: 30,
      internalSecret: SECRET,
      access: access({
        verifyTicket: (t) => {
          redeemed++;
          // a ticket is single-use: only its first redemption finds it
          return Promise.resolve(
            t === "good" && redeemed === 1
              ? { user_id: "u1", expires_at: new Date(Date.now() + 60_000).toISOString() }
              : null,
          );
        },
      }),
    });
    const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, handle);
    const base = `127.0.0.1:${server.addr.port}`;
    try {
      const query = "ticket=good&docId=p1&workspaceId=w1";
      const refused = await fetch(
        `http://${base}/internal/ws/admit?ticket=good&docId=p1&workspaceId=w2`,
        {
          headers: { "x-cp-internal": SECRET },
        },
      );
      assert.equal(refused.status, 403, "a refusal is answered as the upgrade would be");
      assert.deepEqual(await refused.json(), { error: "Not a workspace member" });
      redeemed = 0;
      const res = await fetch(`http://${base}/internal/ws/admit?${query}`, {
        headers: { "x-cp-internal": SECRET },
      });
      assert.equal(res.status, 200);
      const { admission } = await res.json();
      assert.equal(redeemed, 1);

      // the admission names its post: another post's upgrade falls back to the (spent) ticket
      const elsewhere = await handle(
        new Request(`http://collab.internal/ws?ticket=good&docId=p2&workspaceId=w1`, {
          headers: {
            upgrade: "websocket",
            "x-cp-internal": SECRET,
            "x-cp-ws-admission": admission,
          },
        }),
      );
      assert.equal(elsewhere.status, 401);
      await elsewhere.body?.cancel();
      const forged = await handle(
        new Request(`http://collab.internal/ws?${query}`, {
          headers: {
            upgrade: "websocket",
            "x-cp-internal": SECRET,
            "x-cp-ws-admission": admission.replace(/.$/, (c: string) => c === "A" ? "B" : "A"),
          },
        }),
      );
      assert.equal(forged.status, 401);
      await forged.body?.cancel();

      const socket = new WebSocket(`ws://${base}/ws?${query}`, {
        headers: { "x-cp-internal": SECRET, "x-cp-ws-admission": admission },
      });
      await new Promise((resolve, reject) => {
        socket.onopen = resolve;
        socket.onerror = reject;
      });
      const closed = new Promise((r) => socket.onclose = r);
      socket.close();
      await closed;
    } finally {
      await server.shutdown();
    }
  }));

// ---------------------------------------------------------------- limits
