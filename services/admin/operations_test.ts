import assert from "node:assert/strict";
import { openAssetStore } from "../../shared/assets/config.ts";
import type { AssetStore } from "../../shared/assets/store.ts";
import { createLogger } from "../../shared/log.ts";
import { nativeKvQueue, ServiceQueue } from "../../shared/queue/queue.ts";
import { ServiceDirectory } from "../../shared/service/service_directory.ts";
import { BackupOperations } from "./operations.ts";
import { KeyspaceClient } from "./peers.ts";
import { adminJobSchema, backupTimestamp, keyOfTimestamp } from "./schemas.ts";
import { AdminStore } from "./store.ts";

const quietLogger = createLogger("admin", { level: "error" });

const zip = new Uint8Array([0x50, 0x4b, 0x05, 0x06]);

/** Backup operations on a real file asset store in a temp dir and an in-memory KV. */
async function setup(
  test: (t: {
    ops: BackupOperations;
    store: AdminStore;
    kv: Deno.Kv;
    assets: AssetStore;
    dir: string;
  }) => Promise<void>,
) {
  const dir = await Deno.makeTempDir({ prefix: "cps-admin-ops-" });
  const kv = await Deno.openKv(":memory:");
  try {
    const assets = await openAssetStore({
      kind: "file",
      dir: `${dir}/assets`,
      signingSecret: "a-signing-secret-for-tests",
      publicUrl: "http://127.0.0.1:1",
    });
    const store = new AdminStore(
      kv,
      new ServiceQueue(nativeKvQueue(kv), adminJobSchema, quietLogger),
    );
    const ops = new BackupOperations({
      store,
      assets,
      // No services registered: a backup holds only the asset store's files.
      keyspaces: new KeyspaceClient(new ServiceDirectory(), "secret"),
      tmpDir: `${dir}/tmp`,
      logger: quietLogger,
    });
    await test({ ops, store, kv, assets, dir });
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const kvEntries = async (kv: Deno.Kv) => (await Array.fromAsync(kv.list({ prefix: [] }))).length;

Deno.test("listing backups writes nothing; the sweep records what it found once", async () => {
  await setup(async ({ ops, kv, assets }) => {
    await assets.put("_backups/2026-01-02T03-04-05.678Z.zip", zip, "application/zip");
    await assets.put("_backups/copied by hand.zip", zip, "application/zip");
    await assets.put("_backups/not-a-backup.txt", zip, "text/plain");

    const listed = await ops.list();
    assert.equal(await kvEntries(kv), 0, "GET /api/admin/backups must not write");
    assert.deepEqual(listed.map((b) => b.key), [
      "_backups/copied by hand.zip", // dated now: newer than the named date
      "_backups/2026-01-02T03-04-05.678Z.zip",
    ]);
    assert.equal(listed[1].created_at, "2026-01-02T03:04:05.678+00:00");
    assert.equal(listed[1].timestamp, "2026-01-02T03-04-05.678Z");
    assert.equal(listed[1].size_bytes, zip.length);

    assert.equal(await ops.recordFound(), 2);
    assert.equal(await ops.recordFound(), 0, "recorded once");
    const firstSeen = (await ops.list())[0].created_at;
    await new Promise((r) => setTimeout(r, 5));
    assert.equal((await ops.list())[0].created_at, firstSeen, "the sweep's date stays put");
  });
});

Deno.test("a new key skips every time taken by an object or a record", async () => {
  await setup(async ({ ops, store, assets }) => {
    const start = Date.now();
    const span = 60;
    for (let ms = 0; ms < span; ms++) {
      const timestamp = `upload-${backupTimestamp(new Date(start + ms))}`;
      const key = keyOfTimestamp(timestamp);
      if (ms % 2 === 0) await assets.put(key, zip, "application/zip");
      else {
        await store.addBackup({
          key,
          timestamp,
          created_at: "",
          size_bytes: null,
          item_count: null,
          asset_count: null,
        });
      }
    }
    const [a, b] = await Promise.all([ops.uploadUrl(), ops.uploadUrl()]);
    assert.notEqual(a.key, b.key);
    for (const { key } of [a, b]) {
      const time = Date.parse(
        key.slice("_backups/upload-".length, -".zip".length).replace(
          /T(\d\d)-(\d\d)-/,
          "T$1:$2:",
        ),
      );
      assert.ok(time >= start + span, `${key} is after every taken time`);
    }
  });
});

Deno.test("a created backup is recorded; a failed one leaves no record behind", async () => {
  await setup(async ({ ops, store, assets, dir }) => {
    await assets.put("notes/a.txt", new TextEncoder().encode("hello"), "text/plain");
    const created = await ops.create();
    assert.equal(created.asset_count, 1);
    assert.equal(created.item_count, 0);
    const records = await store.listBackups();
    assert.deepEqual(records.get(created.key), { ...created });
    assert.equal((await ops.list())[0].size_bytes, created.size_bytes);

    const failing = new BackupOperations({
      store,
      // The same store, but listing the assets to back up fails part-way into the backup.
      assets: Object.assign(Object.create(assets), {
        list: () => Promise.reject(new Error("store down")),
      }),
      keyspaces: new KeyspaceClient(new ServiceDirectory(), "secret"),
      tmpDir: `${dir}/tmp`,
      logger: quietLogger,
    });
    await assert.rejects(() => failing.create(), /store down/);
    assert.deepEqual([...(await store.listBackups()).keys()], [created.key]);
  });
});
