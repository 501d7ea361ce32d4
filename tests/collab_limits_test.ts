/**
 * Issue 11, items 9 (WebSocket limits), 15 (distributed mode: the gateway checks the ticket,
 * collab's /ws requires the internal secret) and the open-socket part of 4 (revocation).
 * Everything is driven over real sockets against the real stack.
 */
import assert from "node:assert/strict";
import * as encoding from "lib0/encoding";
import * as Y from "yjs";
import { WebsocketProvider } from "y-websocket";
import { api, e2e, freePort, startTestStack, type TestStack } from "./helpers/stack.ts";
import { createUser, login, loginAdmin, type TestUser } from "./helpers/users.ts";
import { ticketFor, upgradeStatus } from "./helpers/ws.ts";
import { awarenessFrame } from "../services/collab/testing.ts";
import { settledValue, waitFor } from "./helpers/wait.ts";

/** Waits until `check` holds, polling; fails with `what` after `timeoutMs`. */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A stock y-websocket provider on the post, recording the close that ended it. */
function openProvider(url: string, params: Record<string, string>, doc = new Y.Doc()) {
  const provider = new WebsocketProvider(url.replace(/^http/, "ws"), "ws", doc, {
    params,
    // deno-lint-ignore no-explicit-any
    WebSocketPolyfill: WebSocket as any,
    disableBc: true,
  });
  const closes: number[] = [];
  provider.on("connection-close", (e: CloseEvent | null) => {
    if (e) closes.push(e.code);
  });
  return { provider, closes };
}

async function synced<T extends { provider: WebsocketProvider }>(p: T): Promise<T> {
  await waitFor(() => p.provider.synced, "the provider to sync");
  return p;
}

const textOf = (p: { provider: WebsocketProvider }) => p.provider.doc.getText("content").toString();

/** A raw socket on the post that records its close. */
function openRawSocket(base: string, query: string) {
  const socket = new WebSocket(`${base.replace(/^http/, "ws")}/ws?${query}`);
  socket.binaryType = "arraybuffer";
  let closed: { code: number; reason: string; at: number } | null = null;
  const opened = new Promise<void>((resolve, reject) => {
    socket.onopen = () => resolve();
    socket.onerror = () => reject(new Error("socket failed to open"));
  });
  socket.onclose = (e) => (closed = { code: e.code, reason: e.reason, at: Date.now() });
  return {
    socket,
    opened,
    get closed() {
      return closed;
    },
  };
}

/** A sync update frame (message type 0, sync type 2) carrying `update`. */
function updateFrame(update: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, 0);
  encoding.writeVarUint(encoder, 2);
  encoding.writeVarUint8Array(encoder, update);
  return encoding.toUint8Array(encoder);
}

/** A Yjs update inserting `text` into the `content` text of an empty document. */
function insertUpdate(text: string): Uint8Array {
  const doc = new Y.Doc();
  doc.getText("content").insert(0, text);
  const update = Y.encodeStateAsUpdate(doc);
  doc.destroy();
  return update;
}

async function workspaceWithPost(stack: TestStack, owner: TestUser, content: string) {
  const ws = await api(stack, "POST", "/api/workspaces", {
    token: owner.access_token,
    body: { name: `Limits ${crypto.randomUUID().slice(0, 8)}` },
  });
  assert.equal(ws.status, 201, JSON.stringify(ws.body));
  const workspaceId: string = ws.body.workspace_id;
  const post = await api(stack, "POST", "/api/posts", {
    token: owner.access_token,
    body: { workspace_id: workspaceId, title: "Limits", content },
  });
  assert.equal(post.status, 201, JSON.stringify(post.body));
  return { workspaceId, postId: post.body.post_id as string };
}

async function addMember(stack: TestStack, owner: TestUser, workspaceId: string, user: TestUser) {
  const res = await api(stack, "POST", `/api/workspaces/${workspaceId}/members`, {
    token: owner.access_token,
    body: { email: user.email, role: "editor" },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
}

Deno.test("the WebSocket's limits", e2e, async (t) => {
  const stack = await startTestStack();
  const closers: (() => void)[] = [];
  try {
    const owner = await createUser(stack, { name: "Owner" });
    const editor = await createUser(stack, { name: "Editor" });
    const { workspaceId, postId } = await workspaceWithPost(stack, owner, "Start");
    await addMember(stack, owner, workspaceId, editor);
    // A ticket opens one socket: every socket gets a ticket of its own.
    const ownerTicket = () => ticketFor(stack, owner);
    const editorTicket = () => ticketFor(stack, editor);
    const params = (ticket: string) => ({ ticket, docId: postId, workspaceId });
    const query = (ticket: string) => new URLSearchParams(params(ticket)).toString();
    const postText = async () => {
      const res = await api(stack, "GET", `/api/posts/${postId}?workspaceId=${workspaceId}`, {
        token: owner.access_token,
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.content as string;
    };
    const stats = async () => {
      const res = await stack.internal("collab", "GET", `/internal/docs/${postId}/stats`);
      assert.equal(res.status, 200);
      return await res.json();
    };
    const observer = await synced(openProvider(stack.url, params(await ownerTicket())));
    closers.push(() => observer.provider.destroy());
    assert.equal(textOf(observer), "Start");

    await t.step(
      "a 2 MiB frame is refused (4413), neither stored nor forwarded",
      async () => {
        const before = await stats();
        const raw = openRawSocket(stack.url, query(await editorTicket()));
        await raw.opened;
        raw.socket.send(updateFrame(insertUpdate("x".repeat(2 * 1024 * 1024))));
        await waitFor(() => raw.closed !== null, "the socket to be closed");
        assert.equal(raw.closed!.code, 4413);
        // A later edit through the observer arrives; the big one never did.
        observer.provider.doc.getText("content").insert(5, "!");
        await waitFor(async () => (await postText()) === "Start!", "the observer's edit");
        assert.equal(textOf(observer), "Start!");
        assert.equal((await stats()).seq, before.seq + 1, "only the observer's edit was stored");
      },
    );

    await t.step(
      "an update taking the text past 200 000 characters is refused (4413)",
      async () => {
        // One 210 000-character paste: under the 1 MiB frame limit, over the text limit.
        const paster = openProvider(stack.url, params(await editorTicket()));
        closers.push(() => paster.provider.destroy());
        await synced(paster);
        paster.provider.doc.getText("content").insert(0, "y".repeat(210_000));
        await waitFor(() => paster.closes.length > 0, "the paster's socket to be closed");
        assert.equal(paster.closes[0], 4413);
        // The paster's provider and the observer's text have settled after the refusal.
        await settledValue(
          () =>
            `${paster.provider.shouldConnect} ${paster.provider.wsconnecting} ${textOf(observer)}`,
          300,
        );
        assert.equal(paster.provider.shouldConnect, false, "a stock provider stops on 4413");
        assert.equal(textOf(observer), "Start!");
        assert.equal(await postText(), "Start!");
        // Up to the limit is fine.
        const near = await synced(openProvider(stack.url, params(await editorTicket())));
        closers.push(() => near.provider.destroy());
        near.provider.doc.getText("content").insert(0, "z".repeat(150_000));
        await waitFor(() => textOf(observer).length === 150_006, "a 150 000-character paste");
        assert.deepEqual(near.closes, []);
        near.provider.destroy();
      },
    );

    await t.step("the 21st socket of one user is closed (4429)", async () => {
      const ticket = () => ticketFor(stack, editor);
      const sockets: ReturnType<typeof openRawSocket>[] = [];
      for (let i = 0; i < 20; i++) {
        const raw = openRawSocket(stack.url, query(await ticket()));
        closers.push(() => raw.socket.close());
        sockets.push(raw);
        await raw.opened;
      }
      await settledValue(() => sockets.filter((s) => s.closed !== null).length, 200);
      assert.deepEqual(sockets.map((s) => s.closed), new Array(20).fill(null));
      const extra = openRawSocket(stack.url, query(await ticket()));
      closers.push(() => extra.socket.close());
      await waitFor(() => extra.closed !== null, "the 21st socket to be closed");
      assert.equal(extra.closed!.code, 4429);
      // Another user is not affected, and a closed socket frees its place.
      const other = openRawSocket(stack.url, query(await ownerTicket()));
      closers.push(() => other.socket.close());
      await other.opened;
      sockets[0].socket.close();
      await waitFor(() => sockets[0].closed !== null, "the first socket to close");
      await sleep(100);
      const again = openRawSocket(stack.url, query(await ticket()));
      closers.push(() => again.socket.close());
      await again.opened;
      await settledValue(() => again.closed === null && other.closed === null, 200);
      assert.equal(again.closed, null);
      assert.equal(other.closed, null);
      for (const s of [...sockets, again, other]) s.socket.close();
    });

    await t.step("an awareness state over 8 KiB is dropped", async () => {
      const seen: unknown[] = [];
      const clientID = 777_001;
      observer.provider.awareness.on("change", () => {
        const state = observer.provider.awareness.getStates().get(clientID);
        if (state) seen.push(state);
      });
      const raw = openRawSocket(stack.url, query(await editorTicket()));
      closers.push(() => raw.socket.close());
      await raw.opened;
      raw.socket.send(awarenessFrame([{ clientID, clock: 1, state: { n: 1 } }]));
      raw.socket.send(
        awarenessFrame([{ clientID, clock: 2, state: { n: 2, pad: "p".repeat(9_000) } }]),
      );
      raw.socket.send(awarenessFrame([{ clientID, clock: 3, state: { n: 3 } }]));
      await waitFor(
        () => (observer.provider.awareness.getStates().get(clientID) as { n?: number })?.n === 3,
        "the last small state",
      );
      assert.deepEqual(seen.map((s) => (s as { n: number }).n), [1, 3]);
      assert.equal(raw.closed, null);
      raw.socket.close();
    });

    await t.step("a client cannot set or remove another client's awareness", async () => {
      const victim = await synced(openProvider(stack.url, params(await ownerTicket())));
      closers.push(() => victim.provider.destroy());
      const victimId = victim.provider.awareness.clientID;
      victim.provider.awareness.setLocalStateField("user", { name: "Victim" });
      const victimState = () =>
        observer.provider.awareness.getStates().get(victimId) as
          | { user?: { name: string } }
          | undefined;
      await waitFor(() => victimState()?.user?.name === "Victim", "the victim's cursor");
      const raw = openRawSocket(stack.url, query(await editorTicket()));
      closers.push(() => raw.socket.close());
      await raw.opened;
      const ownId = 777_002;
      // Its first entry names someone else's client: not its to take.
      raw.socket.send(
        awarenessFrame([{ clientID: victimId, clock: 1_000, state: { user: { name: "Forged" } } }]),
      );
      raw.socket.send(awarenessFrame([{ clientID: ownId, clock: 1, state: { n: 1 } }]));
      raw.socket.send(
        awarenessFrame([
          { clientID: victimId, clock: 1_001, state: null },
          { clientID: victimId, clock: 1_002, state: { user: { name: "Forged" } } },
        ]),
      );
      raw.socket.send(awarenessFrame([{ clientID: ownId, clock: 2, state: { n: 2 } }]));
      await waitFor(
        () => (observer.provider.awareness.getStates().get(ownId) as { n?: number })?.n === 2,
        "the socket's own state",
      );
      assert.equal(victimState()?.user?.name, "Victim");
      assert.equal(raw.closed, null);
      raw.socket.close();
      victim.provider.destroy();
    });
  } finally {
    for (const close of closers) {
      try {
        close();
      } catch { /* already closed */ }
    }
    await stack.close();
  }
});

Deno.test("open sockets and tickets of revoked users are refused", e2e, async (t) => {
  const stack = await startTestStack();
  const closers: (() => void)[] = [];
  try {
    const admin = await loginAdmin(stack);
    const owner = await createUser(stack, { name: "Owner" });
    const { workspaceId, postId } = await workspaceWithPost(stack, owner, "Text");
    const query = (ticket: string) =>
      new URLSearchParams({ ticket, docId: postId, workspaceId }).toString();
    const params = (ticket: string) => ({ ticket, docId: postId, workspaceId });
    const ownerSocket = await synced(
      openProvider(stack.url, params(await ticketFor(stack, owner))),
    );
    closers.push(() => ownerSocket.provider.destroy());

    const setEnabled = async (user: TestUser, enabled: boolean) => {
      const res = await api(stack, "PUT", `/api/admin/users/${user.user_id}/status`, {
        token: admin.access_token,
        body: { enabled },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    };

    await t.step("open socket closed within 5 s of disabling its user (4401)", async () => {
      const user = await createUser(stack, { name: "Disabled soon" });
      await addMember(stack, owner, workspaceId, user);
      const p = await synced(openProvider(stack.url, params(await ticketFor(stack, user))));
      closers.push(() => p.provider.destroy());
      const raw = openRawSocket(stack.url, query(await ticketFor(stack, user)));
      closers.push(() => raw.socket.close());
      await raw.opened;
      const disabledAt = Date.now();
      await setEnabled(user, false);
      await waitFor(
        () => raw.closed !== null && p.closes.length > 0,
        "the sockets to close",
        5_000,
      );
      assert.equal(raw.closed!.code, 4401);
      assert.ok(raw.closed!.at - disabledAt < 5_000);
      assert.equal(p.closes[0], 4401);
      await settledValue(
        () =>
          `${p.provider.shouldConnect} ${p.provider.wsconnecting} ${ownerSocket.provider.wsconnected}`,
        200,
      );
      assert.equal(p.provider.shouldConnect, false, "the provider must not reconnect");
      assert.equal(ownerSocket.provider.wsconnected, true, "the owner keeps editing");
    });

    await t.step(
      "open sockets closed within 5 s of their session's logout (4401 Session ended); the user's other session keeps its socket",
      async () => {
        const user = await createUser(stack, { name: "Two devices" });
        await addMember(stack, owner, workspaceId, user);
        const other = await login(stack, user.email, user.password);
        const laptop = openRawSocket(stack.url, query(await ticketFor(stack, user)));
        closers.push(() => laptop.socket.close());
        const phone = openRawSocket(stack.url, query(await ticketFor(stack, other)));
        closers.push(() => phone.socket.close());
        await Promise.all([laptop.opened, phone.opened]);
        const loggedOutAt = Date.now();
        const out = await api(stack, "POST", "/api/auth/logout", {
          body: { refresh_token: user.refresh_token },
        });
        assert.equal(out.status, 204);
        await waitFor(
          () => laptop.closed !== null,
          "the logged-out session's socket to close",
          5_000,
        );
        assert.equal(laptop.closed!.code, 4401);
        assert.equal(laptop.closed!.reason, "Session ended");
        assert.ok(laptop.closed!.at - loggedOutAt < 5_000);
        await settledValue(() => phone.closed?.code ?? "open", 300);
        assert.equal(phone.closed, null, "the other session's socket stays open");
      },
    );

    await t.step(
      "a disabled user's earlier ticket is refused at connect (401)",
      async () => {
        const user = await createUser(stack, { name: "Disabled ticket" });
        await addMember(stack, owner, workspaceId, user);
        assert.equal(await upgradeStatus(stack.url, query(await ticketFor(stack, user))), 101);
        const ticket = await ticketFor(stack, user);
        await setEnabled(user, false);
        assert.equal(await upgradeStatus(stack.url, query(ticket)), 401);
        // A rejected user's ticket too.
        const rejected = await createUser(stack, { name: "Rejected" });
        await addMember(stack, owner, workspaceId, rejected);
        const rejectedTicket = await ticketFor(stack, rejected);
        const res = await api(stack, "POST", `/api/admin/users/${rejected.user_id}/reject`, {
          token: admin.access_token,
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(await upgradeStatus(stack.url, query(rejectedTicket)), 401);
      },
    );

    await t.step(
      "open socket closed within 5 s of removing the member (4403)",
      async () => {
        const user = await createUser(stack, { name: "Removed soon" });
        await addMember(stack, owner, workspaceId, user);
        const raw = openRawSocket(stack.url, query(await ticketFor(stack, user)));
        closers.push(() => raw.socket.close());
        await raw.opened;
        const ticket = await ticketFor(stack, user);
        const removedAt = Date.now();
        const res = await api(
          stack,
          "DELETE",
          `/api/workspaces/${workspaceId}/members/${user.user_id}`,
          { token: owner.access_token },
        );
        assert.equal(res.status, 204);
        await waitFor(() => raw.closed !== null, "the socket to close", 5_000);
        assert.equal(raw.closed!.code, 4403);
        assert.ok(raw.closed!.at - removedAt < 5_000);
        assert.equal(await upgradeStatus(stack.url, query(ticket)), 403);
      },
    );
  } finally {
    for (const close of closers) {
      try {
        close();
      } catch { /* already closed */ }
    }
    await stack.close();
  }
});

// ---------------------------------------------------------------- distributed mode

const SECRET = "collab-limits-secret-0123456789";
const ADMIN = { email: "dist-collab@example.test", password: "Dist-Passw0rd!", name: "Dist Admin" };

/** Runs `services/<name>/main.ts` as its `start:<name>` task does, as this process's child. */
function spawnService(name: string, env: Record<string, string>) {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `services/${name}/main.ts`],
    cwd: new URL("..", import.meta.url).pathname,
    env: { LOG_LEVEL: "error", ...env },
    stdout: "null",
    stderr: "piped",
  }).spawn();
}

async function waitHealthy(url: string, timeoutMs = 60_000) {
  await waitFor(
    async () => {
      try {
        const res = await fetch(`${url}/healthz`);
        await res.body?.cancel();
        return res.ok;
      } catch {
        return false; // not listening yet
      }
    },
    `${url} to become healthy`,
    timeoutMs,
  );
}

Deno.test(
  "distributed mode: collab admits the socket once and the gateway relays it",
  e2e,
  async (t) => {
    const dataDir = await Deno.makeTempDir({ prefix: "cps-dist-collab-" });
    const names = ["gateway", "auth", "workspaces", "posts", "collab"] as const;
    const ports = Object.fromEntries(
      await Promise.all(names.map(async (n) => [n, await freePort()] as const)),
    ) as Record<typeof names[number], number>;
    const url = (n: typeof names[number]) => `http://127.0.0.1:${ports[n]}`;
    const common = {
      INTERNAL_SECRET: SECRET,
      PUBLIC_URL: url("gateway"),
      AUTH_URL: url("auth"),
      WORKSPACES_URL: url("workspaces"),
      POSTS_URL: url("posts"),
      COLLAB_URL: url("collab"),
      OUTBOX_FILE: `${dataDir}/outbox.jsonl`,
    };
    const children = names.map((n) =>
      spawnService(n, {
        ...common,
        PORT: String(ports[n]),
        DATA_DIR: `${dataDir}/${n}`,
        ...(n === "auth"
          ? { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, ADMIN_NAME: ADMIN.name }
          : {}),
      })
    );
    const stack = { url: url("gateway") };
    const providers: WebsocketProvider[] = [];
    try {
      await Promise.all(names.map((n) => waitHealthy(url(n))));
      const login = await api(stack, "POST", "/api/auth/login", {
        body: { email: ADMIN.email, password: ADMIN.password },
      });
      assert.equal(login.status, 200, JSON.stringify(login.body));
      const token = login.body.access_token as string;
      const ws = await api(stack, "POST", "/api/workspaces", { token, body: { name: "Dist" } });
      assert.equal(ws.status, 201, JSON.stringify(ws.body));
      const workspaceId = ws.body.workspace_id as string;
      const post = await api(stack, "POST", "/api/posts", {
        token,
        body: { workspace_id: workspaceId, title: "Dist", content: "Distributed text" },
      });
      assert.equal(post.status, 201, JSON.stringify(post.body));
      const postId = post.body.post_id as string;
      // A ticket opens one socket: every socket gets a ticket of its own.
      const newTicket = () => ticketFor(stack, { access_token: token });
      const query = (tk: string, ws = workspaceId) =>
        new URLSearchParams({ ticket: tk, docId: postId, workspaceId: ws }).toString();

      await t.step("the relayed socket works end to end", async () => {
        const p = openProvider(stack.url, {
          ticket: await newTicket(),
          docId: postId,
          workspaceId,
        });
        providers.push(p.provider);
        await synced(p);
        assert.equal(textOf(p), "Distributed text");
        p.provider.destroy();
      });

      await t.step(
        "a post created without text opens too: posts told collab its workspace",
        async () => {
          const empty = await api(stack, "POST", "/api/posts", {
            token,
            body: { workspace_id: workspaceId, title: "Empty" },
          });
          assert.equal(empty.status, 201, JSON.stringify(empty.body));
          const p = openProvider(stack.url, {
            ticket: await newTicket(),
            docId: empty.body.post_id,
            workspaceId,
          });
          providers.push(p.provider);
          await synced(p);
          assert.equal(textOf(p), "");
          p.provider.destroy();
        },
      );

      await t.step(
        "collab's /ws refuses a direct connection without the secret",
        async () => {
          const ticket = await newTicket();
          assert.equal(await upgradeStatus(url("collab"), query(ticket)), 401);
          assert.equal(
            await upgradeStatus(url("collab"), query(ticket), {
              "x-cp-internal": "not-the-secret",
            }),
            401,
          );
          // With the secret (as the gateway relays it) the same upgrade goes through.
          assert.equal(
            await upgradeStatus(url("collab"), query(ticket), { "x-cp-internal": SECRET }),
            101,
          );
        },
      );

      await t.step("the gateway refuses a bad ticket with an HTTP status", async () => {
        assert.equal(await upgradeStatus(stack.url, query(crypto.randomUUID())), 401);
        const other = await api(stack, "POST", "/api/workspaces", {
          token,
          body: { name: "Other" },
        });
        assert.equal(other.status, 201);
        assert.equal(
          await upgradeStatus(stack.url, query(await newTicket(), "no-such-workspace")),
          403,
        );
        assert.equal(
          await upgradeStatus(stack.url, query(await newTicket(), other.body.workspace_id)),
          404,
        );
        // The gateway uses the ticket up: its second socket is refused there, over HTTP.
        const ticket = await newTicket();
        assert.equal(await upgradeStatus(stack.url, query(ticket)), 101);
        assert.equal(await upgradeStatus(stack.url, query(ticket)), 401);
      });
    } finally {
      for (const p of providers) p.destroy();
      for (const child of children) {
        try {
          child.kill("SIGTERM");
        } catch { /* already gone */ }
        await child.stderr.cancel();
        // A server whose shutdown waits on a socket gets 10 s, then SIGKILL.
        const exited = await Promise.race([child.status.then(() => true), sleep(10_000)]);
        if (!exited) {
          try {
            child.kill("SIGKILL");
          } catch { /* gone meanwhile */ }
          await child.status;
        }
      }
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
);
