// The ADMIN_EMAIL bootstrap as a restore re-runs it: an imported admin record
// comes back confirmed, approved, enabled and admin, with the configured password.
import assert from "node:assert/strict";
import { deliverJobSchema } from "../../shared/delivery/message.ts";
import { createLogger } from "../../shared/log.ts";
import { nativeKvQueue, ServiceQueue } from "../../shared/queue/queue.ts";
import { Accounts } from "./accounts.ts";
import type { AuthConfig } from "./config.ts";
import { closePasswordWorkers, hashPassword, verifyPassword } from "./passwords.ts";
import type { UserRecord } from "./schemas.ts";
import { AuthStore } from "./store.ts";
import type { TokenIssuer } from "./tokens.ts";

const ADMIN = { email: "root@example.test", password: "Env-Passw0rd!", name: "Root" };
const ARCHIVE_PASSWORD = "Archive-Passw0rd!";

function accountsOn(store: AuthStore): Accounts {
  return new Accounts({
    // bootstrapAdmin reads only `admin` from the config and never issues tokens or mails.
    config: { admin: ADMIN } as AuthConfig,
    store,
    issuer: {} as TokenIssuer,
    logger: createLogger("test"),
    buildMessage: () => {
      throw new Error("no message expected");
    },
  });
}

/** Overwrites the stored admin record as an imported archive would. */
async function importAdmin(kv: Deno.Kv, change: Partial<UserRecord>): Promise<void> {
  for await (const entry of kv.list<UserRecord>({ prefix: [] })) {
    const v = entry.value;
    if (v && typeof v === "object" && (v as UserRecord).email === ADMIN.email) {
      await kv.set(entry.key, { ...v, ...change });
    }
  }
}

Deno.test("a restored admin record: the env password wins, the archive's is not trusted", async () => {
  const kv = await Deno.openKv(":memory:");
  const queue = new ServiceQueue(nativeKvQueue(kv), deliverJobSchema, createLogger("test"));
  const store = new AuthStore(kv, queue);
  try {
    const accounts = accountsOn(store);
    await accounts.bootstrapAdmin();
    const created = await store.users.getUserByEmail(ADMIN.email);
    assert.ok(created?.password_hash);
    const envHash = created.password_hash;

    // Same hash, demoted and disabled in the archive: restored to admin, hash kept.
    await importAdmin(kv, { role: "member", enabled: false, confirmed: false });
    await accounts.bootstrapAdmin();
    const same = await store.users.getUserByEmail(ADMIN.email);
    assert.equal(same?.password_hash, envHash);
    assert.equal(same?.role, "admin");
    assert.equal(same?.enabled, true);
    assert.equal(same?.confirmed, true);
    assert.equal(same?.approved, true);

    // A different hash (another password) in the archive: verified, found wrong, replaced.
    const archiveHash = await hashPassword(ARCHIVE_PASSWORD);
    await importAdmin(kv, { password_hash: archiveHash, sessions_revoked_at: undefined });
    await accounts.bootstrapAdmin();
    const replaced = await store.users.getUserByEmail(ADMIN.email);
    assert.ok(replaced?.password_hash);
    assert.notEqual(replaced.password_hash, archiveHash);
    assert.equal(await verifyPassword(ADMIN.password, replaced.password_hash), true);
    assert.equal(await verifyPassword(ARCHIVE_PASSWORD, replaced.password_hash), false);
    assert.ok(replaced.sessions_revoked_at, "a replaced password revokes the sessions");

    // Another hash of the env password (made by another instance): verified and kept.
    const otherEnvHash = await hashPassword(ADMIN.password);
    await importAdmin(kv, { password_hash: otherEnvHash });
    await accountsOn(store).bootstrapAdmin();
    assert.equal((await store.users.getUserByEmail(ADMIN.email))?.password_hash, otherEnvHash);

    // The first process again, whose remembered hash is now stale: the archive's differs.
    await importAdmin(kv, { password_hash: archiveHash });
    await accounts.bootstrapAdmin();
    const again = await store.users.getUserByEmail(ADMIN.email);
    assert.ok(again?.password_hash);
    assert.equal(await verifyPassword(ARCHIVE_PASSWORD, again.password_hash), false);
    assert.equal(await verifyPassword(ADMIN.password, again.password_hash), true);
  } finally {
    kv.close();
    closePasswordWorkers();
  }
});
