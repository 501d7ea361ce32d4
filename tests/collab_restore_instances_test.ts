import assert from "node:assert/strict";
import * as Y from "yjs";
import { WebsocketProvider } from "y-websocket";
import {
  killServiceProcesses,
  processEnv,
  type ServiceProcess,
  startServiceProcess,
} from "./helpers/process_stack.ts";
import { api, e2e, freePort, TEST_ADMIN } from "./helpers/stack.ts";
import { ticketFor } from "./helpers/ws.ts";
import { waitFor } from "./helpers/wait.ts";

/**
 * A restore reaches every collab instance, not only the one that ran the import: two `main.ts`
 * processes share one DATA_DIR; a stock y-websocket provider on B edits a post while a restore
 * runs through A's API. B's socket closes with 4409, the post's text (over the API of either,
 * over a fresh socket on B) is the backup's, and nothing B's old socket sent around the restore
 * lands.
 */

interface Editor {
  provider: WebsocketProvider;
  closes: number[];
}

function openProvider(at: ServiceProcess, params: Record<string, string>): Editor {
  const provider = new WebsocketProvider(at.url.replace(/^http/, "ws"), "ws", new Y.Doc(), {
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

const textOf = (e: Editor) => e.provider.doc.getText("content").toString();

Deno.test(
  "a restore through one instance closes the editors on another with 4409, and what they sent around it never lands",
  e2e,
  async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "cps-collab-restore-" });
    const shared = {
      AI_CALLS_PER_MINUTE: "0",
      OUTBOX_FILE: `${dataDir}/outbox.jsonl`,
      PUBLIC_URL: "http://cps.test",
      // B's room compacts while its editor types: a compaction from before the restore would
      // store its whole in-memory text as the restored document's snapshot.
      COLLAB_COMPACT_AFTER: "5",
    };
    const [portA, portB] = [await freePort(), await freePort()];
    const [a, b] = await Promise.all([
      startServiceProcess(processEnv(dataDir, portA, shared)),
      startServiceProcess(processEnv(dataDir, portB, shared)),
    ]);
    const editors: Editor[] = [];
    try {
      const login = await api(a, "POST", "/api/auth/login", {
        body: { email: TEST_ADMIN.email, password: TEST_ADMIN.password },
      });
      assert.equal(login.status, 200, JSON.stringify(login.body));
      const admin = { access_token: login.body.access_token as string };
      const ws = await api(a, "POST", "/api/workspaces", {
        token: admin.access_token,
        body: { name: "Restores" },
      });
      assert.equal(ws.status, 201, JSON.stringify(ws.body));
      const workspaceId = ws.body.workspace_id as string;
      const backupText = "Text in the backup";
      const post = await api(a, "POST", "/api/posts", {
        token: admin.access_token,
        body: { workspace_id: workspaceId, title: "Restored", content: backupText },
      });
      assert.equal(post.status, 201, JSON.stringify(post.body));
      const postId = post.body.post_id as string;
      const open = async (at: ServiceProcess) => {
        const editor = openProvider(at, {
          ticket: await ticketFor(at, admin),
          docId: postId,
          workspaceId,
        });
        editors.push(editor);
        await waitFor(() => editor.provider.synced, "the provider to sync");
        return editor;
      };
      const contentVia = async (at: ServiceProcess) => {
        const res = await api(at, "GET", `/api/posts/${postId}?workspaceId=${workspaceId}`, {
          token: admin.access_token,
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        return res.body.content as string;
      };

      const onB = await open(b);
      // Idle, on A: whichever instance's process runs the restore job, one of the two sockets is
      // on an instance that did not import.
      const onA = await open(a);
      assert.equal(textOf(onB), backupText);

      const backup = await api(a, "POST", "/api/admin/backups", { token: admin.access_token });
      assert.equal(backup.status, 201, JSON.stringify(backup.body));
      const text = onB.provider.doc.getText("content");
      text.insert(0, "Written after the backup. ");
      const later = "Written after the backup. " + backupText;
      await waitFor(async () => await contentVia(a) === later, "B's edit stored");
      await waitFor(() => textOf(onA) === later, "B's edit on A");

      // B's editor types all through the restore, until its socket closes.
      let typed = 0;
      const typing = (async () => {
        while (onB.closes.length === 0 && typed < 2_000) {
          text.insert(0, `[${typed++}]`);
          await new Promise((r) => setTimeout(r, 5));
        }
      })();
      const restore = await api(a, "POST", "/api/admin/backups/restore", {
        token: admin.access_token,
        body: { key: backup.body.key },
      });
      assert.equal(restore.status, 200, JSON.stringify(restore.body));
      const job = await waitFor(
        async () => {
          const r = await api(a, "GET", `/api/admin/restores/${restore.body.job_id}`, {
            token: admin.access_token,
          });
          return (r.body.status === "succeeded" || r.body.status === "failed") && r.body;
        },
        "the restore job to finish",
        20_000,
      );
      assert.equal(job.status, "succeeded", job.error);

      await waitFor(() => onB.closes.length > 0 && onA.closes.length > 0, "both sockets to close");
      await typing;
      assert.ok(typed > 0, "B's editor typed while the restore ran");
      assert.deepEqual(onB.closes, [4409], "B's editor closed for good by the restore");
      assert.deepEqual(onA.closes, [4409], "A's editor closed for good by the restore");

      // Anything still in flight from before the restore has had its chance to land.
      await new Promise((r) => setTimeout(r, 1_500));
      assert.equal(await contentVia(a), backupText, "the text over A's API");
      assert.equal(await contentVia(b), backupText, "the text over B's API");
      const fresh = await open(b);
      assert.equal(textOf(fresh), backupText, "a fresh socket on B");
      // Nothing B's old editor wrote is in the document, not even out of sight (an update
      // waiting for one it builds on would not show in the text).
      const store = fresh.provider.doc.store;
      assert.ok(!store.clients.has(onB.provider.doc.clientID), "no update of B's old editor");
      assert.equal(store.pendingStructs, null, "no update waits for a missing one");
      assert.equal(store.pendingDs, null);
    } finally {
      for (const e of editors) e.provider.destroy();
      await killServiceProcesses([a, b]);
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
);
