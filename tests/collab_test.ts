import assert from "node:assert/strict";
import * as Y from "yjs";
import { WebsocketProvider } from "y-websocket";
import * as decoding from "lib0/decoding";
import { MESSAGE_APP_EVENT } from "../services/collab/protocol.ts";
import { api, e2e, startTestStack, type TestStack } from "./helpers/stack.ts";
import { createUser, login, type TestUser } from "./helpers/users.ts";
import { ticketFor, upgradeStatus } from "./helpers/ws.ts";
import { waitFor } from "./helpers/wait.ts";

/** Waits until `check` holds, polling; fails with `what` after `timeoutMs`. */

/** A stock y-websocket provider on the post, as a browser editor would open it. */
function openProvider(
  stack: TestStack,
  params: { ticket: string; docId: string; workspaceId: string },
  doc = new Y.Doc(),
): WebsocketProvider {
  return new WebsocketProvider(stack.url.replace(/^http/, "ws"), "ws", doc, {
    params,
    // deno-lint-ignore no-explicit-any
    WebSocketPolyfill: WebSocket as any,
    disableBc: true,
  });
}

async function synced(provider: WebsocketProvider): Promise<WebsocketProvider> {
  await waitFor(() => provider.synced, "the provider to sync");
  return provider;
}

const textOf = (p: WebsocketProvider) => p.doc.getText("content").toString();

/** A raw socket on the post that records the text frames and the close it gets. */
function openRawSocket(stack: TestStack, query: string) {
  const socket = new WebSocket(`${stack.url.replace(/^http/, "ws")}/ws?${query}`);
  socket.binaryType = "arraybuffer";
  const texts: string[] = [];
  let closed: { code: number; at: number } | null = null;
  const opened = new Promise<void>((resolve, reject) => {
    socket.onopen = () => resolve();
    socket.onerror = () => reject(new Error("socket failed to open"));
  });
  socket.onmessage = (e) => {
    if (typeof e.data === "string") texts.push(e.data);
  };
  socket.onclose = (e) => (closed = { code: e.code, at: Date.now() });
  return {
    socket,
    texts,
    opened,
    get closed() {
      return closed;
    },
  };
}

Deno.test("live collaboration over the Yjs WebSocket protocol", e2e, async (t) => {
  const dataDir = await Deno.makeTempDir({ prefix: "cps-collab-" });
  const env = { DATA_DIR: dataDir, OUTBOX_FILE: `${dataDir}/outbox.jsonl` };
  let stack = await startTestStack(env);
  const providers: WebsocketProvider[] = [];
  const track = (p: WebsocketProvider) => (providers.push(p), p);
  try {
    const owner = await createUser(stack, { name: "Owner" });
    const editor = await createUser(stack, { name: "Editor" });
    const outsider = await createUser(stack, { name: "Outsider" });
    const ws = await api(stack, "POST", "/api/workspaces", {
      token: owner.access_token,
      body: { name: "Collab workspace" },
    });
    assert.equal(ws.status, 201, JSON.stringify(ws.body));
    const workspaceId: string = ws.body.workspace_id;
    const added = await api(stack, "POST", `/api/workspaces/${workspaceId}/members`, {
      token: owner.access_token,
      body: { email: editor.email, role: "editor" },
    });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    const created = await api(stack, "POST", "/api/posts", {
      token: owner.access_token,
      body: { workspace_id: workspaceId, title: "Live post", content: "Initial text" },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const postId: string = created.body.post_id;
    // A ticket opens one socket: every socket gets a ticket of its own.
    const ownerTicket = () => ticketFor(stack, owner);
    const editorTicket = () => ticketFor(stack, editor);
    const params = (ticket: string) => ({ ticket, docId: postId, workspaceId });
    const query = (ticket: string) => new URLSearchParams(params(ticket)).toString();
    const postText = async (user: TestUser = owner) => {
      const res = await api(stack, "GET", `/api/posts/${postId}?workspaceId=${workspaceId}`, {
        token: user.access_token,
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.content as string;
    };
    const stats = async () => {
      const res = await stack.internal("collab", "GET", `/internal/docs/${postId}/stats`);
      assert.equal(res.status, 200);
      return await res.json();
    };

    await t.step("a post created with content has that text in its document", async () => {
      const p = track(await synced(openProvider(stack, params(await ownerTicket()))));
      assert.equal(textOf(p), "Initial text");
      p.destroy();
    });

    await t.step(
      "two providers typing concurrently converge, and REST reads the live text",
      async () => {
        const a = track(await synced(openProvider(stack, params(await ownerTicket()))));
        const b = track(await synced(openProvider(stack, params(await editorTicket()))));
        const ta = a.doc.getText("content");
        const tb = b.doc.getText("content");
        for (let i = 0; i < 40; i++) {
          ta.insert(0, "a");
          tb.insert(tb.length, "b");
          if (i % 8 === 0) await new Promise((r) => setTimeout(r, 5));
        }
        await waitFor(
          () => textOf(a) === textOf(b) && textOf(a).length === "Initial text".length + 80,
          "the two editors to converge",
        );
        const text = textOf(a);
        assert.equal(text.replaceAll("a", "").replaceAll("b", ""), "Initil text");
        assert.equal((text.match(/a/g) ?? []).length, 41);
        await waitFor(
          async () => (await postText()) === text,
          "GET /api/posts to read the live text",
        );
        a.destroy();
        b.destroy();
      },
    );

    await t.step("a paste over 64 KiB survives and reaches the other editor", async () => {
      const a = track(await synced(openProvider(stack, params(await ownerTicket()))));
      const b = track(await synced(openProvider(stack, params(await editorTicket()))));
      const paste = "Lorem ipsum dolor sit amet. ".repeat(4_000); // ~112 KB
      a.doc.getText("content").insert(0, paste);
      await waitFor(() => textOf(b).startsWith(paste), "the paste to reach the other editor");
      await waitFor(async () => (await postText()).startsWith(paste), "the paste to be stored");
      a.destroy();
      b.destroy();
    });

    await t.step(
      "more than 100 stored updates are compacted and every character is kept",
      async () => {
        const a = track(await synced(openProvider(stack, params(await ownerTicket()))));
        const text = a.doc.getText("content");
        const before = await stats();
        let expected = textOf(a);
        for (let i = 0; i < 150; i++) {
          text.insert(text.length, `<${i}>`);
          expected += `<${i}>`;
          // One update at a time, so each is its own stored record.
          await new Promise((r) => setTimeout(r, 3));
        }
        await waitFor(async () => (await postText()) === expected, "all 150 updates to be stored");
        const after = await stats();
        assert.ok(
          after.compactions > before.compactions,
          `no compaction: ${JSON.stringify(after)}`,
        );
        assert.ok(after.stored_updates <= 100, JSON.stringify(after));
        assert.equal(after.update_records, after.stored_updates);
        const fresh = track(await synced(openProvider(stack, params(await editorTicket()))));
        assert.equal(textOf(fresh), expected);
        a.destroy();
        fresh.destroy();
      },
    );

    await t.step("a REST content change reaches a connected provider at once", async () => {
      const a = track(await synced(openProvider(stack, params(await editorTicket()))));
      const res = await api(stack, "PUT", `/api/posts/${postId}`, {
        token: owner.access_token,
        body: { workspace_id: workspaceId, content: "Rewritten through REST" },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.content, "Rewritten through REST");
      await waitFor(() => textOf(a) === "Rewritten through REST", "the provider to see it", 2_000);
      a.destroy();
    });

    await t.step(
      "comment events reach plain sockets as JSON text and providers without breaking them",
      async () => {
        // A stock provider, with no handler for application events: it must keep working.
        const p = track(await synced(openProvider(stack, params(await ownerTicket()))));
        // A provider whose app listens for events (docs/collab.md), connected with the post id
        // as y-websocket's room name: the URL path is /ws/<postId>.
        const events: unknown[] = [];
        const listening = track(
          new WebsocketProvider(`${stack.url.replace(/^http/, "ws")}/ws`, postId, new Y.Doc(), {
            params: params(await editorTicket()),
            // deno-lint-ignore no-explicit-any
            WebSocketPolyfill: WebSocket as any,
            disableBc: true,
          }),
        );
        listening.messageHandlers[MESSAGE_APP_EVENT] = (_encoder, decoder) => {
          events.push(JSON.parse(decoding.readVarString(decoder)));
        };
        await synced(listening);
        const raw = openRawSocket(stack, query(await editorTicket()));
        await raw.opened;
        const res = await api(stack, "POST", `/api/posts/${postId}/comments`, {
          token: editor.access_token,
          body: { workspace_id: workspaceId, body: "Nice intro" },
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        const expected = {
          type: "comment",
          action: "created",
          postId,
          commentId: res.body.comment_id,
        };
        await waitFor(() => raw.texts.length > 0, "the comment event");
        assert.deepEqual(JSON.parse(raw.texts[0]), expected);
        await waitFor(() => events.length > 0, "the event in the listening provider");
        assert.deepEqual(events, [expected]);
        p.doc.getText("content").insert(0, "! ");
        await waitFor(
          async () => (await postText()) === "! Rewritten through REST",
          "the provider to keep working",
        );
        assert.equal(p.wsconnected, true);
        await waitFor(
          () => textOf(listening) === "! Rewritten through REST",
          "the listening provider",
        );
        listening.destroy();
        raw.socket.close();
        p.destroy();
      },
    );

    await t.step(
      "a bad ticket, a non-member and a post of another workspace are refused before the socket opens",
      async () => {
        assert.equal(await upgradeStatus(stack.url, query(await ownerTicket())), 101);
        assert.equal(await upgradeStatus(stack.url, query(crypto.randomUUID())), 401);
        assert.equal(
          await upgradeStatus(stack.url, `docId=${postId}&workspaceId=${workspaceId}`),
          400,
        );
        const outsiderTicket = await ticketFor(stack, outsider);
        assert.equal(await upgradeStatus(stack.url, query(outsiderTicket)), 403);
        const other = await api(stack, "POST", "/api/workspaces", {
          token: owner.access_token,
          body: { name: "Other workspace" },
        });
        assert.equal(
          await upgradeStatus(
            stack.url,
            new URLSearchParams({
              ticket: await ownerTicket(),
              docId: postId,
              workspaceId: other.body.workspace_id,
            }).toString(),
          ),
          404,
        );
        const refused = openProvider(stack, params(await ticketFor(stack, outsider)));
        track(refused);
        let closed = false;
        refused.on("connection-close", () => closed = true);
        await waitFor(() => closed, "collab to close the refused socket");
        assert.equal(refused.wsconnected, false);
        assert.equal(refused.synced, false);
        refused.destroy();
      },
    );

    await t.step(
      "a member removed from the workspace loses their open sockets within 5 s",
      async () => {
        const p = track(await synced(openProvider(stack, params(await editorTicket()))));
        let closedCode: number | null = null;
        p.on("closed", (e: { code: number }) => (closedCode = e.code));
        const raw = openRawSocket(stack, query(await editorTicket()));
        await raw.opened;
        const ownerSocket = track(await synced(openProvider(stack, params(await ownerTicket()))));
        const removedAt = Date.now();
        const res = await api(
          stack,
          "DELETE",
          `/api/workspaces/${workspaceId}/members/${editor.user_id}`,
          {
            token: owner.access_token,
          },
        );
        assert.equal(res.status, 204);
        await waitFor(
          () => raw.closed !== null && closedCode !== null,
          "the sockets to close",
          5_000,
        );
        assert.equal(raw.closed!.code, 4403);
        assert.ok(raw.closed!.at - removedAt < 5_000);
        assert.equal(closedCode, 4403);
        assert.equal(p.shouldConnect, false, "the provider must not reconnect");
        assert.equal(ownerSocket.wsconnected, true, "the owner keeps editing");
        assert.equal(await upgradeStatus(stack.url, query(await editorTicket())), 403);
        p.destroy();
        ownerSocket.destroy();
      },
    );

    await t.step("a restart on the same DATA_DIR keeps the document whole", async () => {
      // Some history after the last snapshot, a chunked update among it.
      const writer = track(await synced(openProvider(stack, params(await ownerTicket()))));
      const content = writer.doc.getText("content");
      content.insert(content.length, " Appendix: " + "0123456789".repeat(8_000));
      for (let i = 0; i < 20; i++) {
        content.insert(i, `${i % 10}`);
        await new Promise((r) => setTimeout(r, 2));
      }
      const text = textOf(writer);
      await waitFor(async () => (await postText()) === text, "the edits to be stored");
      const before = await stats();
      assert.ok(before.stored_updates > 0 && before.compactions > 0, JSON.stringify(before));
      for (const p of providers) p.destroy();
      await stack.close();
      stack = await startTestStack({ ...env, COLLAB_IDLE_TIMEOUT_MS: "1500" });
      const again = await login(stack, owner.email, owner.password);
      const user = { ...owner, access_token: again.access_token };
      assert.equal(await postText(user), text);
      const p = track(await synced(openProvider(stack, params(await ticketFor(stack, user)))));
      assert.equal(textOf(p), text);
      p.destroy();

      // The idle timeout (shortened here): a socket that sends nothing is closed.
      const raw = openRawSocket(stack, query(await ticketFor(stack, user)));
      await raw.opened;
      await waitFor(() => raw.closed !== null, "the idle socket to close", 4_000);
      assert.equal(raw.closed!.code, 4504);
    });
  } finally {
    for (const p of providers) p.destroy();
    await stack.close();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});
