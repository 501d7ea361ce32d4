/**
 * One post's live editing session: the Yjs document, its `content` text, the y-websocket
 * provider on `/ws` (a fresh ticket for every connect), presence, the connection state and
 * the comment events (type-100 frames, docs/collab.md).
 *
 * Other features build on `EditorSession`: comment highlights and proofread underlines add
 * CodeMirror extensions to `extraExtensions` (the editor reconfigures a Compartment when it
 * changes); the comments panel listens with `onCommentEvent`.
 */
import * as Y from "yjs";
import { WebsocketProvider } from "y-websocket";
import * as decoding from "lib0/decoding";
import { type Signal, signal } from "@preact/signals";
import type { EditorView } from "@codemirror/view";
import type { Extension } from "@codemirror/state";
import { mintTicket } from "../state/collab.ts";
import { colorIndexForColor, colorIndexForUser, PALETTE } from "./palette.ts";

export interface CommentEvent {
  type: "comment";
  action: string;
  postId: string;
  commentId: string;
}

export interface EditorSession {
  workspaceId: string;
  postId: string;
  /** The post's document. */
  ydoc: Y.Doc;
  /** The post's `Y.Text` "content". */
  ytext: Y.Text;
  /** y-websocket on /ws with ?ticket&docId&workspaceId. */
  provider: WebsocketProvider;
  /** The CodeMirror view once mounted. */
  view: Signal<EditorView | null>;
  /** Calls `fn` for every comment event (type-100 frame); answers the unsubscribe. */
  onCommentEvent(fn: (e: CommentEvent) => void): () => void;
  /** Extensions other features add; the editor reconfigures a Compartment when it changes. */
  extraExtensions: Signal<Extension[]>;
}

/** "live": connected and synced; "connecting": first connect; "reconnecting": after a drop. */
export type ConnectionState = "connecting" | "live" | "reconnecting" | "offline" | "closed";

export interface Peer {
  clientId: number;
  /** The user's id as the peer announced it (for presence only: one avatar per person). */
  userId: string | null;
  name: string;
  colorIndex: number;
  self: boolean;
}

/** The session as the editor screen drives it. */
export interface LiveEditorSession extends EditorSession {
  connection: Signal<ConnectionState>;
  /** True once the document has synced with the server the first time. */
  synced: Signal<boolean>;
  /** Local updates made while not connected (sent at the next sync). */
  pendingEdits: Signal<number>;
  /** Everyone on the post (self first), from awareness. */
  peers: Signal<Peer[]>;
  /** Why the server ended the session for good (close codes 44xx), or a ticket failure. */
  closedReason: Signal<string | null>;
  destroy(): void;
}

/** Message type of comment events (docs/collab.md). */
const MESSAGE_COMMENT_EVENT = 100;

const CLOSE_REASONS: Record<number, string> = {
  4400: "The server could not read a change from this tab. Reload the page.",
  4401: "Your account can no longer edit. Sign in again.",
  4403: "You are no longer a member of this workspace.",
  4404: "This post was deleted.",
  4409: "This post was restored from a backup. Reload the page.",
  4413: "The post is over the size limit; your last change was not saved. Reload the page.",
  4429: "You have too many editors open. Close some tabs and reload.",
};

function wsBase(): string {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  return `${proto}//${location.host}`;
}

/**
 * Opens the session. `user` names this editor for the others (cursor label, avatar); the
 * colour comes from a hash of the user id, so a user keeps it across tabs.
 */
export function createEditorSession(
  { workspaceId, postId, user }: {
    workspaceId: string;
    postId: string;
    user: { id: string; name: string };
  },
): LiveEditorSession {
  const ydoc = new Y.Doc();
  const ytext = ydoc.getText("content");
  const provider = new WebsocketProvider(wsBase(), "ws", ydoc, {
    connect: false,
    disableBc: true,
    params: { ticket: "", docId: postId, workspaceId },
  });
  const view = signal<EditorView | null>(null);
  const extraExtensions = signal<Extension[]>([]);
  const connection = signal<ConnectionState>("connecting");
  const pendingEdits = signal(0);
  const synced = signal(false);
  const peers = signal<Peer[]>([]);
  const closedReason = signal<string | null>(null);
  const listeners = new Set<(e: CommentEvent) => void>();
  let destroyed = false;
  let everLive = false;
  let attempts = 0;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;

  const colorIndex = colorIndexForUser(user.id);
  const color = PALETTE[colorIndex];
  provider.awareness.setLocalStateField("user", {
    id: user.id,
    name: user.name,
    color,
    colorLight: color + "33",
  });

  provider.messageHandlers[MESSAGE_COMMENT_EVENT] = (_encoder, decoder) => {
    let event: CommentEvent;
    try {
      event = JSON.parse(decoding.readVarString(decoder));
    } catch {
      return;
    }
    for (const fn of listeners) {
      try {
        fn(event);
      } catch (err) {
        console.warn("comment event handler failed", err);
      }
    }
  };

  const offline = () => typeof navigator !== "undefined" && navigator.onLine === false;

  /** Mints a fresh ticket, then connects; on a failed mint retries with backoff. */
  async function connect() {
    clearTimeout(retryTimer);
    if (destroyed || closedReason.value) return;
    if (offline()) {
      connection.value = "offline";
      return;
    }
    connection.value = everLive ? "reconnecting" : "connecting";
    try {
      provider.params = { ...provider.params, ticket: await mintTicket() };
    } catch (err) {
      if (destroyed) return;
      const status = (err as { status?: number }).status ?? 0;
      if (status === 401 || status === 403 || status === 404) {
        closedReason.value = (err as Error).message;
        connection.value = "closed";
        return;
      }
      scheduleReconnect();
      return;
    }
    if (destroyed || offline()) return;
    provider.connect();
  }

  function scheduleReconnect() {
    clearTimeout(retryTimer);
    if (destroyed) return;
    attempts++;
    const delay = Math.min(2 ** attempts * 100, 2500);
    retryTimer = setTimeout(() => void connect(), delay);
  }

  provider.on("status", ({ status }) => {
    if (status !== "connected") return;
    attempts = 0;
    // After a drop, the others' entries were removed locally with a bumped clock, and the
    // server announced our own removal with a bumped clock: a plain re-announce (same clocks)
    // would be ignored on both sides until the next 15 s renewal. Forget the others' stale
    // clocks and announce ourselves two clocks on, so presence is back at once.
    const awareness = provider.awareness;
    for (const id of [...awareness.meta.keys()]) {
      if (id !== ydoc.clientID && !awareness.states.has(id)) awareness.meta.delete(id);
    }
    if (everLive) {
      const local = awareness.getLocalState();
      if (local) {
        awareness.setLocalState({ ...local });
        awareness.setLocalState({ ...local });
      }
    }
  });
  provider.on("sync", (isSynced: boolean) => {
    if (isSynced && provider.wsconnected) {
      everLive = true;
      synced.value = true;
      pendingEdits.value = 0;
      connection.value = "live";
    }
  });
  // Take over y-websocket's own reconnect so that every connect carries a fresh ticket.
  provider.on("connection-close", (event: CloseEvent | null) => {
    provider.shouldConnect = false;
    if (destroyed) return;
    const code = event?.code ?? 0;
    if (code >= 4400 && code < 4500) {
      closedReason.value = CLOSE_REASONS[code] ?? `The server closed the connection (${code}).`;
      connection.value = "closed";
      return;
    }
    if (offline()) {
      connection.value = "offline";
      return;
    }
    connection.value = everLive ? "reconnecting" : "connecting";
    scheduleReconnect();
  });

  ydoc.on("update", (_update: Uint8Array, origin: unknown) => {
    if (origin === provider) return;
    if (!provider.wsconnected || !provider.synced) pendingEdits.value++;
  });

  const updatePeers = () => {
    // One entry per person: the same user in two tabs shows once (their own tab wins).
    const byPerson = new Map<string, Peer>();
    provider.awareness.getStates().forEach((state, clientId) => {
      const u = (state as { user?: { id?: unknown; name?: unknown; color?: unknown } }).user;
      if (!u || typeof u.name !== "string") return;
      const self = clientId === ydoc.clientID;
      const userId = typeof u.id === "string" ? u.id : null;
      const key = userId ?? `client:${clientId}`;
      if (byPerson.has(key) && !self) return;
      byPerson.set(key, {
        clientId,
        userId,
        name: u.name,
        colorIndex: self ? colorIndex : colorIndexForColor(u.color, clientId),
        self,
      });
    });
    const list = [...byPerson.values()];
    list.sort((a, b) => Number(b.self) - Number(a.self) || a.name.localeCompare(b.name));
    peers.value = list;
  };
  provider.awareness.on("change", updatePeers);
  updatePeers();

  const onOffline = () => {
    if (destroyed) return;
    clearTimeout(retryTimer);
    // A local close: the provider will not reconnect on its own (shouldConnect goes false).
    provider.disconnect();
    connection.value = "offline";
  };
  const onOnline = () => {
    if (destroyed || closedReason.value) return;
    attempts = 0;
    void connect();
  };
  addEventListener("offline", onOffline);
  addEventListener("online", onOnline);

  void connect();

  return {
    workspaceId,
    postId,
    ydoc,
    ytext,
    provider,
    view,
    extraExtensions,
    connection,
    synced,
    pendingEdits,
    peers,
    closedReason,
    onCommentEvent(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    destroy() {
      destroyed = true;
      clearTimeout(retryTimer);
      removeEventListener("offline", onOffline);
      removeEventListener("online", onOnline);
      provider.awareness.off("change", updatePeers);
      provider.destroy();
      ydoc.destroy();
    },
  };
}
