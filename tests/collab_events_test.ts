import assert from "node:assert/strict";
import * as Y from "yjs";
import { WebsocketProvider } from "y-websocket";
import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import * as syncProtocol from "y-protocols/sync";
import { MESSAGE_APP_EVENT, MESSAGE_SYNC } from "../services/collab/protocol.ts";
import { api, e2e, startTestStack, type TestStack } from "./helpers/stack.ts";
import { createUser, type TestUser } from "./helpers/users.ts";
import { ticketFor } from "./helpers/ws.ts";
import { waitFor } from "./helpers/wait.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A post of `owner`'s in a fresh workspace: its ids and the `/ws` query for a fresh ticket. */
async function livePost(stack: TestStack, owner: TestUser) {
  const ws = await api(stack, "POST", "/api/workspaces", {
    token: owner.access_token,
    body: { name: "Events workspace" },
  });
  assert.equal(ws.status, 201, JSON.stringify(ws.body));
  const workspaceId: string = ws.body.workspace_id;
  const post = await api(stack, "POST", "/api/posts", {
    token: owner.access_token,
    body: { workspace_id: workspaceId, title: "Events", content: "Text" },
  });
  assert.equal(post.status, 201, JSON.stringify(post.body));
  const postId: string = post.body.post_id;
  const comment = async () => {
    const res = await api(stack, "POST", `/api/posts/${postId}/comments`, {
      token: owner.access_token,
      body: { workspace_id: workspaceId, body: "A comment" },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.comment_id as string;
  };
  const params = async () => ({
    ticket: await ticketFor(stack, owner),
    docId: postId,
    workspaceId,
  });
  return { workspaceId, postId, comment, params };
}

Deno.test(
  "a comment event that reaches a Yjs client before its first frame comes as a binary frame",
  e2e,
  async () => {
    const stack = await startTestStack();
    try {
      const owner = await createUser(stack, { name: "Owner" });
      const { postId, comment, params } = await livePost(stack, owner);
      const query = new URLSearchParams(await params()).toString();
      const socket = new WebSocket(`${stack.url.replace(/^http/, "ws")}/ws?${query}`);
      socket.binaryType = "arraybuffer";
      const texts: string[] = [];
      const events: unknown[] = [];
      socket.onmessage = (e) => {
        if (typeof e.data === "string") return texts.push(e.data);
        const decoder = decoding.createDecoder(new Uint8Array(e.data));
        if (decoding.readVarUint(decoder) === MESSAGE_APP_EVENT) {
          events.push(JSON.parse(decoding.readVarString(decoder)));
        }
      };
      await new Promise((resolve, reject) => {
        socket.onopen = resolve;
        socket.onerror = () => reject(new Error("the socket did not open"));
      });
      // The event is sent while this client's sync step 1 is still on its way, as it is for a
      // provider that connects while someone comments.
      const commentId = await comment();
      await sleep(100);
      const step1 = encoding.createEncoder();
      encoding.writeVarUint(step1, MESSAGE_SYNC);
      syncProtocol.writeSyncStep1(step1, new Y.Doc());
      socket.send(encoding.toUint8Array(step1));
      await waitFor(() => events.length > 0 || texts.length > 0, "the comment event");
      assert.deepEqual(texts, []);
      assert.deepEqual(events, [{ type: "comment", action: "created", postId, commentId }]);
      socket.close();
    } finally {
      await stack.close();
    }
  },
);

Deno.test(
  "stock providers connecting while comments are made never get a text frame",
  e2e,
  async () => {
    const stack = await startTestStack();
    const textFrames: string[] = [];
    /** The WebSocket a stock provider uses, recording every text frame it is sent. */
    class RecordingWebSocket extends WebSocket {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(url, protocols);
        this.addEventListener("message", (e) => {
          if (typeof e.data === "string") textFrames.push(e.data);
        });
      }
    }
    // A text frame makes a stock provider throw from its message handler: counted, not fatal.
    const uncaught: string[] = [];
    const onError = (e: ErrorEvent) => {
      uncaught.push(e.message);
      e.preventDefault();
    };
    globalThis.addEventListener("error", onError);
    try {
      const owner = await createUser(stack, { name: "Owner" });
      const { comment, params } = await livePost(stack, owner);
      let stop = false;
      let made = 0;
      // Two writers, so that events keep arriving while each provider's first frame is in flight.
      const commenting = [1, 2].map(async () => {
        while (!stop) {
          await comment();
          made++;
        }
      });
      for (let i = 0; i < 8; i++) {
        const provider = new WebsocketProvider(
          stack.url.replace(/^http/, "ws"),
          "ws",
          new Y.Doc(),
          // deno-lint-ignore no-explicit-any
          { params: await params(), WebSocketPolyfill: RecordingWebSocket as any, disableBc: true },
        );
        await waitFor(() => provider.synced, "the provider to sync");
        await sleep(50);
        provider.destroy();
      }
      stop = true;
      await Promise.all(commenting);
      assert.ok(made > 5, `only ${made} comments were made`);
      assert.deepEqual(textFrames, []);
      assert.deepEqual(uncaught, []);
    } finally {
      globalThis.removeEventListener("error", onError);
      await stack.close();
    }
  },
);
