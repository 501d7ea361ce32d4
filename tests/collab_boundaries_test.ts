/**
 * The WebSocket through the public interface, at its edges: each refusal of the upgrade with its
 * status and `{"error"}` in the documented order; closes after the socket opened (a deleted
 * post, a deleted workspace); every limit exactly at its value and one over; comment events of
 * every action as type-100 frames, only to the post's own sockets; awareness at its size limit,
 * queried, and removed when its socket leaves.
 */
// deno-lint-ignore-file no-explicit-any -- API answers are checked field by field
import assert from "node:assert/strict";
import * as Y from "yjs";
import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import { WebsocketProvider } from "y-websocket";
import { awarenessFrame } from "../services/collab/testing.ts";
import { MESSAGE_APP_EVENT, MESSAGE_AWARENESS } from "../services/collab/protocol.ts";
import { api, e2e, startTestStack, type TestStack } from "./helpers/stack.ts";
import { createUser, type TestUser } from "./helpers/users.ts";
import { createWorkspace } from "./helpers/workspaces.ts";
import { ticketFor, upgradeStatus } from "./helpers/ws.ts";
import { settledValue, waitFor } from "./helpers/wait.ts";

const MIB = 1024 * 1024;

/** The status line's code and the body of the answer to a raw upgrade of `/ws?<query>`. */
async function upgradeAnswer(base: string, query: string): Promise<[number, unknown]> {
  const url = new URL(base);
  const conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
  try {
    const request = [
      `GET /ws?${query} HTTP/1.1`,
      `Host: ${url.host}`,
      "Upgrade: websocket",
      "Connection: Upgrade",
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
      "Sec-WebSocket-Version: 13",
      "",
      "",
    ].join("\r\n");
    await conn.write(new TextEncoder().encode(request));
    let head = "";
    const buf = new Uint8Array(4096);
    // A refusal is a small JSON answer; read until its body is complete.
    while (true) {
      const n = await conn.read(buf);
      if (n === null) break;
      head += new TextDecoder().decode(buf.subarray(0, n));
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      if (status === 101) return [101, null];
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? NaN);
      const body = head.split("\r\n\r\n")[1] ?? "";
      if (head.includes("\r\n\r\n") && new TextEncoder().encode(body).length >= length) {
        return [status, JSON.parse(body)];
      }
    }
    throw new Error(`no complete answer: ${head}`);
  } finally {
    conn.close();
  }
}

/** A raw socket on a post: its text frames, type-100 events, binary message types and close. */
function openRawSocket(stack: TestStack, params: Record<string, string>) {
  const socket = new WebSocket(
    `${stack.url.replace(/^http/, "ws")}/ws?${new URLSearchParams(params)}`,
  );
  socket.binaryType = "arraybuffer";
  const texts: string[] = [];
  const events: unknown[] = [];
  const types: number[] = [];
  let closed: { code: number; reason: string } | null = null;
  const opened = new Promise<void>((resolve, reject) => {
    socket.onopen = () => resolve();
    socket.onerror = () => reject(new Error("socket failed to open"));
  });
  socket.onmessage = (e) => {
    if (typeof e.data === "string") return void texts.push(e.data);
    const decoder = decoding.createDecoder(new Uint8Array(e.data));
    const type = decoding.readVarUint(decoder);
    types.push(type);
    if (type === MESSAGE_APP_EVENT) events.push(JSON.parse(decoding.readVarString(decoder)));
  };
  socket.onclose = (e) => (closed = { code: e.code, reason: e.reason });
  return {
    socket,
    texts,
    events,
    types,
    opened,
    get closed() {
      return closed;
    },
    /**
     * Sends a query-awareness frame and waits for its answer: every frame sent before it was
     * taken (frames are handled in order) and the socket is still open.
     */
    async roundTrip() {
      const before = types.filter((t) => t === MESSAGE_AWARENESS).length;
      socket.send(new Uint8Array([3]));
      await waitFor(
        () => closed !== null || types.filter((t) => t === MESSAGE_AWARENESS).length > before,
        "the answer to a query-awareness frame",
      );
      assert.equal(closed, null, "the socket is still open");
    },
  };
}

/** A sync step 1 from an empty document: what a provider sends on open. */
function syncStep1(): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, 0);
  encoding.writeVarUint(encoder, 0);
  encoding.writeVarUint8Array(encoder, Y.encodeStateVector(new Y.Doc()));
  return encoding.toUint8Array(encoder);
}

/** A sync update frame carrying `update`. */
function updateFrame(update: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, 0);
  encoding.writeVarUint(encoder, 2);
  encoding.writeVarUint8Array(encoder, update);
  return encoding.toUint8Array(encoder);
}

/** A binary frame of exactly `bytes` bytes that the server ignores (an unused message type). */
function ignoredFrame(bytes: number): Uint8Array {
  const frame = new Uint8Array(bytes);
  frame[0] = 99;
  return frame;
}

function openProvider(stack: TestStack, params: Record<string, string>) {
  const provider = new WebsocketProvider(stack.url.replace(/^http/, "ws"), "ws", new Y.Doc(), {
    params,
    WebSocketPolyfill: WebSocket as any,
    disableBc: true,
  });
  const closes: number[] = [];
  provider.on("connection-close", (e: CloseEvent | null) => {
    if (e) closes.push(e.code);
  });
  return { provider, closes };
}

Deno.test("the WebSocket at its edges", e2e, async (t) => {
  const stack = await startTestStack();
  const closers: (() => void)[] = [];
  try {
    const owner = await createUser(stack, { name: "Owner" });
    const viewer = await createUser(stack, { name: "Viewer" });
    const outsider = await createUser(stack, { name: "Outsider" });
    const ws = await createWorkspace(stack, owner, "Edges", [[viewer, "viewer"]]);
    const otherWs = await createWorkspace(stack, owner, "Elsewhere");
    const outsiderWs = await createWorkspace(stack, outsider, "Outsider's");
    const newPost = async (workspaceId = ws, content = "Text") => {
      const res = await api(stack, "POST", "/api/posts", {
        token: owner.access_token,
        body: { workspace_id: workspaceId, title: "Edge", content },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.post_id as string;
    };
    const postId = await newPost();
    const params = async (user: TestUser = owner, docId = postId, workspaceId = ws) => ({
      ticket: await ticketFor(stack, user),
      docId,
      workspaceId,
    });
    const query = (p: Record<string, string>) => new URLSearchParams(p).toString();
    const postText = async (id = postId) => {
      const res = await api(stack, "GET", `/api/posts/${id}?workspaceId=${ws}`, {
        token: owner.access_token,
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.content as string;
    };
    const raw = async (p?: Record<string, string>) => {
      const s = openRawSocket(stack, p ?? await params());
      closers.push(() => s.socket.close());
      await s.opened;
      return s;
    };

    await t.step(
      "each refusal answers its status and error before the socket opens, in order: query, ticket, membership, post",
      async () => {
        const deleted = await newPost();
        const del = await api(stack, "DELETE", `/api/posts/${deleted}?workspaceId=${ws}`, {
          token: owner.access_token,
        });
        assert.equal(del.status, 200, JSON.stringify(del.body));
        const otherPost = await newPost(otherWs);
        const ticket = () => ticketFor(stack, owner);
        const cases: [
          string,
          () => Record<string, string> | Promise<Record<string, string>>,
          number,
          string,
        ][] = [
          [
            "no ticket",
            () => ({ docId: postId, workspaceId: ws }),
            400,
            "ticket is required",
          ],
          [
            "an empty docId",
            async () => ({ ticket: await ticket(), docId: "", workspaceId: ws }),
            400,
            "docId is required",
          ],
          [
            "no workspaceId",
            async () => ({ ticket: await ticket(), docId: postId }),
            400,
            "workspaceId is required",
          ],
          [
            "a docId over 200 characters",
            async () => ({ ticket: await ticket(), docId: "a".repeat(201), workspaceId: ws }),
            400,
            "docId must be at most 200 characters",
          ],
          [
            "an unknown ticket, missing docId",
            () => ({ ticket: crypto.randomUUID(), workspaceId: ws }),
            400,
            "docId is required",
          ],
          [
            "an unknown ticket",
            () => ({ ticket: crypto.randomUUID(), docId: postId, workspaceId: ws }),
            401,
            "Invalid or expired ticket",
          ],
          [
            "an access token as ticket",
            () => ({ ticket: owner.access_token, docId: postId, workspaceId: ws }),
            401,
            "Invalid or expired ticket",
          ],
          [
            "an unknown ticket, not a member",
            () => ({ ticket: crypto.randomUUID(), docId: postId, workspaceId: outsiderWs }),
            401,
            "Invalid or expired ticket",
          ],
          [
            "another user's workspace",
            async () => ({ ticket: await ticket(), docId: postId, workspaceId: outsiderWs }),
            403,
            "Not a workspace member",
          ],
          [
            "an unknown workspace",
            async () => ({
              ticket: await ticket(),
              docId: postId,
              workspaceId: "no-such-workspace",
            }),
            403,
            "Not a workspace member",
          ],
          [
            "not a member, unknown post",
            async () => ({
              ticket: await ticket(),
              docId: "no-such-post",
              workspaceId: outsiderWs,
            }),
            403,
            "Not a workspace member",
          ],
          [
            "a docId of 200 characters, unknown",
            async () => ({ ticket: await ticket(), docId: "a".repeat(200), workspaceId: ws }),
            404,
            "Post not found",
          ],
          [
            "a post of another workspace",
            async () => ({ ticket: await ticket(), docId: otherPost, workspaceId: ws }),
            404,
            "Post not found",
          ],
          [
            "a deleted post",
            async () => ({ ticket: await ticket(), docId: deleted, workspaceId: ws }),
            404,
            "Post not found",
          ],
        ];
        for (const [what, make, status, error] of cases) {
          assert.deepEqual(
            await upgradeAnswer(stack.url, query(await make())),
            [status, { error }],
            what,
          );
        }
        // A query refused with 400 does not use the ticket up; a ticket refused later does.
        const kept = await ticket();
        assert.equal(await upgradeStatus(stack.url, query({ ticket: kept, workspaceId: ws })), 400);
        assert.equal(
          await upgradeStatus(stack.url, query({ ticket: kept, docId: postId, workspaceId: ws })),
          101,
        );
        const spent = await ticket();
        assert.equal(
          await upgradeStatus(
            stack.url,
            query({ ticket: spent, docId: postId, workspaceId: outsiderWs }),
          ),
          403,
        );
        assert.deepEqual(
          await upgradeAnswer(stack.url, query({ ticket: spent, docId: postId, workspaceId: ws })),
          [401, { error: "Invalid or expired ticket" }],
        );
        // Of five upgrades with one ticket at once, exactly one opens.
        const once = query(await params());
        const statuses = await Promise.all(
          Array.from({ length: 5 }, () => upgradeStatus(stack.url, once)),
        );
        assert.deepEqual(statuses.sort(), [101, 401, 401, 401, 401]);
      },
    );

    await t.step("a viewer edits like any member", async () => {
      const p = openProvider(stack, await params(viewer));
      closers.push(() => p.provider.destroy());
      await waitFor(() => p.provider.synced, "the viewer's provider to sync");
      p.provider.doc.getText("content").insert(0, "Viewer: ");
      await waitFor(async () => (await postText()) === "Viewer: Text", "the viewer's edit");
      p.provider.destroy();
    });

    await t.step(
      "a frame of exactly 1 MiB is taken, one byte more closes with 4413",
      async () => {
        const text = await raw();
        text.socket.send("t".repeat(MIB));
        await text.roundTrip();
        text.socket.send("t".repeat(MIB + 1));
        await waitFor(() => text.closed !== null, "the text socket to close");
        assert.deepEqual(text.closed, { code: 4413, reason: `Frame over ${MIB} bytes` });
        const binary = await raw();
        binary.socket.send(ignoredFrame(MIB));
        await binary.roundTrip();
        binary.socket.send(ignoredFrame(MIB + 1));
        await waitFor(() => binary.closed !== null, "the binary socket to close");
        assert.deepEqual(binary.closed, { code: 4413, reason: `Frame over ${MIB} bytes` });
      },
    );

    await t.step(
      "the text reaches exactly 200 000 characters; one more closes with 4413, unstored",
      async () => {
        const limitPost = await newPost(ws, "");
        const writer = await raw(await params(owner, limitPost));
        writer.socket.send(syncStep1());
        const doc = new Y.Doc();
        doc.getText("content").insert(0, "x".repeat(200_000));
        writer.socket.send(updateFrame(Y.encodeStateAsUpdate(doc)));
        await waitFor(
          async () => (await postText(limitPost)).length === 200_000,
          "200 000 characters stored",
        );
        await writer.roundTrip();
        const before = Y.encodeStateVector(doc);
        doc.getText("content").insert(0, "y");
        writer.socket.send(updateFrame(Y.encodeStateAsUpdate(doc, before)));
        await waitFor(() => writer.closed !== null, "the writer's socket to close");
        assert.deepEqual(writer.closed, {
          code: 4413,
          reason: "Document over 200000 characters",
        });
        assert.equal(await postText(limitPost), "x".repeat(200_000));
      },
    );

    await t.step("a document past 4 MiB is refused with 4413", async () => {
      const bigPost = await newPost(ws, "");
      const writer = await raw(await params(owner, bigPost));
      const doc = new Y.Doc();
      const map = doc.getMap("attachments");
      // Four updates of about 1 000 000 bytes fit in 4 MiB; the fifth does not.
      for (let i = 0; i < 4; i++) {
        const before = Y.encodeStateVector(doc);
        map.set(`part${i}`, new Uint8Array(1_000_000));
        writer.socket.send(updateFrame(Y.encodeStateAsUpdate(doc, before)));
        await writer.roundTrip();
      }
      const before = Y.encodeStateVector(doc);
      map.set("part4", new Uint8Array(1_000_000));
      writer.socket.send(updateFrame(Y.encodeStateAsUpdate(doc, before)));
      await waitFor(() => writer.closed !== null, "the writer's socket to close");
      assert.deepEqual(writer.closed, { code: 4413, reason: `Document over ${4 * MIB} bytes` });
    });

    await t.step(
      "every comment event reaches a Yjs socket as a type-100 frame, and no socket of another post",
      async () => {
        const otherPost = await newPost();
        const yjs = await raw(await params(viewer));
        yjs.socket.send(syncStep1());
        const elsewhere = await raw(await params(viewer, otherPost));
        elsewhere.socket.send(syncStep1());
        await yjs.roundTrip();
        await elsewhere.roundTrip();
        const base = `/api/posts/${postId}/comments`;
        const as = (user: TestUser, method: string, path: string, body?: unknown) =>
          api(stack, method, path, { token: user.access_token, body });
        const added = await as(owner, "POST", base, { workspace_id: ws, body: "A thought" });
        assert.equal(added.status, 201, JSON.stringify(added.body));
        const commentId: string = added.body.comment_id;
        const resolve = () =>
          as(owner, "POST", `${base}/${commentId}/resolve`, { workspace_id: ws });
        assert.equal((await resolve()).status, 200);
        assert.equal((await resolve()).status, 200);
        const replied = await as(owner, "POST", `${base}/${commentId}/replies`, {
          workspace_id: ws,
          body: "A reply",
        });
        assert.equal(replied.status, 200, JSON.stringify(replied.body));
        const replyId: string = replied.body.replies[0].reply_id;
        // Refused calls broadcast nothing.
        assert.equal((await as(owner, "POST", base, { workspace_id: ws, body: " " })).status, 400);
        assert.equal(
          (await as(viewer, "DELETE", `${base}/${commentId}/replies/${replyId}?workspaceId=${ws}`))
            .status,
          403,
        );
        assert.equal(
          (await as(viewer, "DELETE", `${base}/${commentId}?workspaceId=${ws}`)).status,
          403,
        );
        assert.equal(
          (await as(owner, "DELETE", `${base}/${commentId}/replies/${replyId}?workspaceId=${ws}`))
            .status,
          200,
        );
        assert.equal(
          (await as(owner, "DELETE", `${base}/${commentId}?workspaceId=${ws}`)).status,
          200,
        );
        const actions = [
          "created",
          "resolved",
          "unresolved",
          "reply_added",
          "reply_deleted",
          "deleted",
        ];
        await waitFor(() => yjs.events.length >= actions.length, "the six comment events");
        assert.deepEqual(
          await settledValue(() => JSON.stringify(yjs.events), 300),
          JSON.stringify(actions.map((action) => ({ type: "comment", action, postId, commentId }))),
        );
        assert.deepEqual(yjs.texts, [], "a Yjs socket gets no text frame");
        assert.deepEqual([elsewhere.events, elsewhere.texts], [[], []]);
      },
    );

    await t.step(
      "an awareness state of exactly 8 KiB is relayed, one byte more is dropped; a leaving socket's cursor goes",
      async () => {
        const observer = openProvider(stack, await params());
        closers.push(() => observer.provider.destroy());
        await waitFor(() => observer.provider.synced, "the observer to sync");
        const states = () => observer.provider.awareness.getStates();
        const sender = await raw(await params(viewer));
        const clientID = 424_242;
        const padded = (n: number, bytes: number) => {
          const state = { n, pad: "" };
          state.pad = "p".repeat(bytes - JSON.stringify(state).length);
          return state;
        };
        sender.socket.send(awarenessFrame([{ clientID, clock: 1, state: padded(1, 8 * 1024) }]));
        await waitFor(() => (states().get(clientID) as any)?.n === 1, "the 8 KiB state");
        const seen: number[] = [];
        observer.provider.awareness.on("change", () => {
          const n = (states().get(clientID) as any)?.n;
          if (n !== undefined) seen.push(n);
        });
        sender.socket.send(
          awarenessFrame([{ clientID, clock: 2, state: padded(2, 8 * 1024 + 1) }]),
        );
        sender.socket.send(awarenessFrame([{ clientID, clock: 3, state: { n: 3 } }]));
        await waitFor(() => (states().get(clientID) as any)?.n === 3, "the small state after");
        assert.deepEqual(seen, [3], "the state over 8 KiB never arrived");
        await sender.roundTrip();
        sender.socket.close();
        await waitFor(() => !states().has(clientID), "the leaving socket's cursor to go");
        observer.provider.destroy();
      },
    );

    await t.step("deleting the post closes its sockets with 4404; providers stop", async () => {
      const doomed = await newPost();
      const p = openProvider(stack, await params(viewer, doomed));
      closers.push(() => p.provider.destroy());
      await waitFor(() => p.provider.synced, "the provider to sync");
      const plain = await raw(await params(owner, doomed));
      const bystander = await raw();
      const del = await api(stack, "DELETE", `/api/posts/${doomed}?workspaceId=${ws}`, {
        token: owner.access_token,
      });
      assert.equal(del.status, 200, JSON.stringify(del.body));
      await waitFor(
        () => plain.closed !== null && p.closes.length > 0,
        "the post's sockets to close",
      );
      assert.deepEqual(plain.closed, { code: 4404, reason: "Post deleted" });
      assert.deepEqual(p.closes, [4404]);
      await settledValue(() => `${p.provider.wsconnecting} ${p.provider.shouldConnect}`, 300);
      assert.equal(p.provider.shouldConnect, false, "a stock provider stops on 4404");
      await bystander.roundTrip();
      assert.deepEqual(
        await upgradeAnswer(stack.url, query(await params(owner, doomed))),
        [404, { error: "Post not found" }],
      );
      p.provider.destroy();
    });

    await t.step("deleting the workspace closes its sockets with 4403", async () => {
      const doomedWs = await createWorkspace(stack, owner, "Short-lived");
      const post = await newPost(doomedWs);
      const socket = await raw(await params(owner, post, doomedWs));
      const del = await api(stack, "DELETE", `/api/workspaces/${doomedWs}`, {
        token: owner.access_token,
      });
      assert.equal(del.status, 204, JSON.stringify(del.body));
      await waitFor(() => socket.closed !== null, "the socket to close", 5_000);
      assert.deepEqual(socket.closed, { code: 4403, reason: "Not a workspace member" });
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
