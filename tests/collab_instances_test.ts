import assert from "node:assert/strict";
import * as decoding from "lib0/decoding";
import * as Y from "yjs";
import { WebsocketProvider } from "y-websocket";
import { MESSAGE_APP_EVENT } from "../services/collab/protocol.ts";
import {
  killServiceProcesses,
  processEnv,
  type ServiceProcess,
  startServiceProcess,
} from "./helpers/process_stack.ts";
import { api, e2e, freePort, TEST_ADMIN } from "./helpers/stack.ts";
import { ticketFor } from "./helpers/ws.ts";
import { settledValue, waitFor } from "./helpers/wait.ts";

/**
 * Live collab across instances: two `main.ts` processes share one DATA_DIR (local
 * SQLite, where `kv.watch` sees only its own process's writes, so each follows the other by
 * polling). Stock y-websocket providers on each converge, see each other's cursors and get
 * comment events made through either, and concurrent typing on both loses and doubles nothing.
 */

function openProvider(
  at: ServiceProcess,
  params: Record<string, string>,
  events: unknown[] = [],
): WebsocketProvider {
  const provider = new WebsocketProvider(at.url.replace(/^http/, "ws"), "ws", new Y.Doc(), {
    params,
    // deno-lint-ignore no-explicit-any
    WebSocketPolyfill: WebSocket as any,
    disableBc: true,
  });
  provider.messageHandlers[MESSAGE_APP_EVENT] = (_encoder, decoder) => {
    events.push(JSON.parse(decoding.readVarString(decoder)));
  };
  return provider;
}

const textOf = (p: WebsocketProvider) => p.doc.getText("content").toString();

Deno.test("collab across two instances on one DATA_DIR", e2e, async (t) => {
  const dataDir = await Deno.makeTempDir({ prefix: "cps-collab-instances-" });
  const shared = {
    AI_CALLS_PER_MINUTE: "0",
    OUTBOX_FILE: `${dataDir}/outbox.jsonl`,
    PUBLIC_URL: "http://cps.test",
  };
  const [portA, portB] = [await freePort(), await freePort()];
  const [a, b] = await Promise.all([
    startServiceProcess(processEnv(dataDir, portA, shared)),
    startServiceProcess(processEnv(dataDir, portB, shared)),
  ]);
  const providers: WebsocketProvider[] = [];
  try {
    const login = await api(a, "POST", "/api/auth/login", {
      body: { email: TEST_ADMIN.email, password: TEST_ADMIN.password },
    });
    assert.equal(login.status, 200, JSON.stringify(login.body));
    const admin = { access_token: login.body.access_token as string };
    const ws = await api(a, "POST", "/api/workspaces", {
      token: admin.access_token,
      body: { name: "Instances" },
    });
    assert.equal(ws.status, 201, JSON.stringify(ws.body));
    const workspaceId = ws.body.workspace_id as string;
    const post = await api(b, "POST", "/api/posts", {
      token: admin.access_token,
      body: { workspace_id: workspaceId, title: "Shared", content: "" },
    });
    assert.equal(post.status, 201, JSON.stringify(post.body));
    const postId = post.body.post_id as string;
    const params = async (at: ServiceProcess) => ({
      ticket: await ticketFor(at, admin),
      docId: postId,
      workspaceId,
    });
    const eventsA: unknown[] = [];
    const eventsB: unknown[] = [];
    const pa = openProvider(a, await params(a), eventsA);
    const pb = openProvider(b, await params(b), eventsB);
    providers.push(pa, pb);
    await waitFor(() => pa.synced && pb.synced, "both providers to sync");

    await t.step("an edit on either instance reaches the provider on the other", async () => {
      pa.doc.getText("content").insert(0, "hello from A");
      await waitFor(() => textOf(pb) === "hello from A", "A's edit on B");
      pb.doc.getText("content").insert(textOf(pb).length, ", and B");
      await waitFor(() => textOf(pa) === "hello from A, and B", "B's edit on A");
    });

    await t.step("each sees the other's cursor, and it goes when its provider leaves", async () => {
      pa.awareness.setLocalStateField("user", { name: "Ann" });
      pb.awareness.setLocalStateField("user", { name: "Bob" });
      const nameOn = (p: WebsocketProvider, id: number) =>
        (p.awareness.getStates().get(id) as { user?: { name: string } } | undefined)?.user?.name;
      await waitFor(() => nameOn(pb, pa.doc.clientID) === "Ann", "Ann's cursor on B");
      await waitFor(() => nameOn(pa, pb.doc.clientID) === "Bob", "Bob's cursor on A");
      // A provider opened on B now gets A's cursor from B's copy (read from the log).
      const late = openProvider(b, await params(b));
      providers.push(late);
      await waitFor(() => nameOn(late, pa.doc.clientID) === "Ann", "Ann's cursor on a late one");
      late.destroy();
      await waitFor(() => !pa.awareness.getStates().has(late.doc.clientID), "the late one gone");
    });

    await t.step("a comment made through one instance reaches the sockets on both", async () => {
      for (const [via, tag] of [[a, "via A"], [b, "via B"]] as const) {
        eventsA.length = eventsB.length = 0;
        const res = await api(via, "POST", `/api/posts/${postId}/comments`, {
          token: admin.access_token,
          body: { workspace_id: workspaceId, body: `Comment ${tag}` },
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        const expected = {
          type: "comment",
          action: "created",
          postId,
          commentId: res.body.comment_id,
        };
        await waitFor(() => eventsA.length > 0 && eventsB.length > 0, `the event ${tag}`);
        await settledValue(() => eventsA.length + eventsB.length, 300);
        assert.deepEqual(eventsA, [expected], `A's socket, ${tag}`);
        assert.deepEqual(eventsB, [expected], `B's socket, ${tag}`);
      }
    });

    await t.step(
      "typing on both at once: the same text everywhere, nothing lost or doubled",
      async () => {
        const start = textOf(pa);
        const n = 150;
        const typeInto = async (p: WebsocketProvider, ch: string) => {
          const text = p.doc.getText("content");
          for (let i = 0; i < n; i++) {
            text.insert(Math.floor(Math.random() * (text.length + 1)), ch);
            await new Promise((r) => setTimeout(r, 3));
          }
        };
        await Promise.all([typeInto(pa, "x"), typeInto(pb, "y")]);
        const length = start.length + 2 * n;
        await waitFor(() => textOf(pa).length === length && textOf(pb).length === length, "both");
        await waitFor(() => textOf(pa) === textOf(pb), "the same text on both");
        const count = (s: string, ch: string) => s.split(ch).length - 1;
        assert.equal(count(textOf(pa), "x") - count(start, "x"), n);
        assert.equal(count(textOf(pa), "y") - count(start, "y"), n);
        // What is stored is what both show, read through either instance.
        for (const via of [a, b]) {
          const got = await api(via, "GET", `/api/posts/${postId}?workspaceId=${workspaceId}`, {
            token: admin.access_token,
          });
          assert.equal(got.status, 200);
          assert.equal(got.body.content, textOf(pa));
        }
      },
    );
  } finally {
    for (const p of providers) p.destroy();
    await killServiceProcesses([a, b]);
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});
