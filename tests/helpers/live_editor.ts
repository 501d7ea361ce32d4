import * as Y from "yjs";
import { WebsocketProvider } from "y-websocket";
import type { TestStack } from "./stack.ts";
import { ticketFor } from "./ws.ts";

/**
 * A browser-like live editor on the post: a y-websocket provider on `/ws` with `user`'s ticket,
 * synced before it is answered with the document's `content` text. The caller destroys it.
 */
export async function openEditor(
  stack: TestStack,
  user: { access_token: string },
  workspaceId: string,
  postId: string,
): Promise<{ provider: WebsocketProvider; text: Y.Text }> {
  const doc = new Y.Doc();
  const provider = new WebsocketProvider(stack.url.replace(/^http/, "ws"), "ws", doc, {
    params: { ticket: await ticketFor(stack, user), docId: postId, workspaceId },
    // deno-lint-ignore no-explicit-any
    WebSocketPolyfill: WebSocket as any,
    disableBc: true,
  });
  const deadline = Date.now() + 5_000;
  while (!provider.synced) {
    if (Date.now() > deadline) {
      provider.destroy();
      throw new Error("timed out waiting for the editor to sync");
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return { provider, text: doc.getText("content") };
}
