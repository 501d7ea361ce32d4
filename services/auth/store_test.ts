import assert from "node:assert/strict";
import { deliverJobSchema } from "../../shared/delivery/message.ts";
import { createLogger } from "../../shared/log.ts";
import { nativeKvQueue, ServiceQueue } from "../../shared/queue/queue.ts";
import { confirmationCode } from "./accounts.ts";
import type { NewUser } from "./store.ts";
import {
  addressBucket,
  AuthStore,
  CONFIRM_CODE_MAX_ATTEMPTS,
  LOGIN_LIMITS,
  LOGIN_TRIES_OVER_ACCOUNT_CAP,
} from "./store.ts";
import { loginTriesKeys } from "./keys.ts";
import { TokenIssuer } from "./tokens.ts";
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from "jose";

async function withStore(fn: (store: AuthStore, kv: Deno.Kv) => Promise<void>) {
  const kv = await Deno.openKv(":memory:");
  const queue = new ServiceQueue(nativeKvQueue(kv), deliverJobSchema, createLogger("test"));
  try {
    await fn(new AuthStore(kv, queue), kv);
  } finally {
    kv.close();
  }
}

/** A counted login try, or null when the throttle refused it. */
async function tryLogin(store: AuthStore, email: string, address: string) {
  const decision = await store.throttle.beginLoginTry(email, address);
  return decision.allowed ? decision.value : null;
}

const member = (email: string): NewUser => ({
  email,
  name: "Member",
  role: "member",
  approved: false,
  status: "pending",
  confirmed: false,
  enabled: true,
  password_hash: "x",
  google_sub: null,
});

Deno.test("concurrent signups of one email: exactly one account is created", async () => {
  await withStore(async (store) => {
    const results = await Promise.all(
      Array.from({ length: 8 }, () => store.users.createUser(member("same@example.test"))),
    );
    assert.equal(results.filter(Boolean).length, 1);
    assert.equal((await store.users.listUsers()).length, 1);
    const stats = await store.users.stats();
    assert.equal(stats.total_users, 1);
    assert.equal(stats.pending_users, 1);
  });
});

Deno.test("the pending counter follows approval and rejection", async () => {
  await withStore(async (store) => {
    const a = (await store.users.createUser(member("a@example.test")))!;
    await store.users.createUser(member("b@example.test"));
    assert.equal((await store.users.stats()).pending_users, 2);
    await store.users.updateUser(
      a.user_id,
      (u) => ({ user: { ...u, approved: true, status: "approved" } }),
    );
    assert.equal((await store.users.stats()).pending_users, 1);
    await store.users.updateUser(
      a.user_id,
      (u) => ({ user: { ...u, approved: false, status: "rejected" } }),
    );
    assert.equal((await store.users.stats()).pending_users, 1);
    const b = await store.users.getUserByEmail("b@example.test");
    await store.users.updateUser(b!.user_id, (u) => ({ user: { ...u, status: "rejected" } }));
    const stats = await store.users.stats();
    assert.equal(stats.pending_users, 0);
    assert.equal(stats.total_users, 2);
  });
});

Deno.test("a confirmation code works once and dies after 5 wrong tries", async () => {
  await withStore(async (store) => {
    const code = confirmationCode();
    assert.match(code, /^\d{6}$/);
    const u = (await store.users.createUser(member("c@example.test"), { confirmCode: code }))!;
    const wrong = code === "000000" ? "111111" : "000000";
    assert.equal((await store.codes.confirmEmail("nobody@example.test", code)).kind, "unknown");
    assert.equal((await store.codes.confirmEmail(u.email, wrong)).kind, "invalid");
    assert.equal((await store.codes.confirmEmail(u.email, code)).kind, "confirmed");
    assert.equal((await store.codes.confirmEmail(u.email, code)).kind, "already");

    const code2 = confirmationCode();
    const v = (await store.users.createUser(member("d@example.test"), { confirmCode: code2 }))!;
    const wrong2 = code2 === "000000" ? "111111" : "000000";
    for (let i = 0; i < CONFIRM_CODE_MAX_ATTEMPTS; i++) {
      assert.equal((await store.codes.confirmEmail(v.email, wrong2)).kind, "invalid");
    }
    assert.equal((await store.codes.confirmEmail(v.email, code2)).kind, "invalid");
    assert.equal((await store.users.getUser(v.user_id))!.confirmed, false);
  });
});

Deno.test("refresh rotation: a reused token revokes its whole family", async () => {
  await withStore(async (store) => {
    const { token: first } = await store.sessions.issueRefreshToken("u1");
    const r1 = await store.sessions.rotateRefreshToken(first);
    assert.equal(r1.kind, "rotated");
    const second = r1.kind === "rotated" ? r1.refresh_token : "";
    assert.equal((await store.sessions.rotateRefreshToken(first)).kind, "reused");
    assert.equal((await store.sessions.rotateRefreshToken(second)).kind, "invalid");
    assert.equal((await store.sessions.rotateRefreshToken("unknown")).kind, "invalid");
  });
});

Deno.test("logout revokes the token's family", async () => {
  await withStore(async (store) => {
    const { token, family_id } = await store.sessions.issueRefreshToken("u1");
    const other = await store.sessions.issueRefreshToken("u1");
    assert.equal(await store.sessions.sessionRevoked(family_id), false);
    await store.sessions.revokeRefreshToken(token);
    assert.equal((await store.sessions.rotateRefreshToken(token)).kind, "invalid");
    assert.equal(await store.sessions.sessionRevoked(family_id), true);
    assert.equal(
      await store.sessions.sessionRevoked(other.family_id),
      false,
      "other sessions go on",
    );
  });
});

Deno.test("authorization codes are single use and stored only as hashes", async () => {
  await withStore(async (store, kv) => {
    const code = await store.grants.createAuthCode({
      user_id: "u1",
      client_id: "c",
      redirect_uri: "http://x/",
      code_challenge: null,
    });
    for await (const e of kv.list({ prefix: ["auth_codes"] })) {
      assert.notEqual(e.key[1], code);
    }
    const [a, b] = await Promise.all([
      store.grants.consumeAuthCode(code),
      store.grants.consumeAuthCode(code),
    ]);
    assert.equal([a, b].filter(Boolean).length, 1);
    assert.equal(await store.grants.consumeAuthCode(code), null);
  });
});

Deno.test("login tries are counted per account and address, per address and per account", async () => {
  await withStore(async (store) => {
    const tries = [];
    for (let i = 0; i < LOGIN_LIMITS.account_address; i++) {
      tries.push(await tryLogin(store, "e@x.test", "10.0.0.1"));
    }
    assert.ok(tries.every(Boolean));
    assert.equal(await tryLogin(store, "e@x.test", "10.0.0.1"), null);
    // Another address still gets its own tries at the account; the address, at other accounts.
    const fromElsewhere = await tryLogin(store, "e@x.test", "10.0.0.2");
    assert.ok(fromElsewhere);
    assert.ok(await tryLogin(store, "other@x.test", "10.0.0.1"));
    // A success starts the account's count from that address again.
    await store.throttle.endLoginTry(tries[0]!);
    assert.ok(await tryLogin(store, "e@x.test", "10.0.0.1"));
    await store.throttle.clearLoginFailures("e@x.test");
    assert.ok(await tryLogin(store, "e@x.test", "10.0.0.1"));
  });
});

Deno.test("an account at its cap holds each address to 3 tries instead of locking", async () => {
  await withStore(async (store) => {
    for (let a = 0; a < LOGIN_LIMITS.account / LOGIN_LIMITS.account_address; a++) {
      for (let i = 0; i < LOGIN_LIMITS.account_address; i++) {
        assert.ok(await tryLogin(store, "cap@x.test", `10.1.0.${a}`));
      }
    }
    for (let i = 0; i < LOGIN_TRIES_OVER_ACCOUNT_CAP; i++) {
      assert.ok(await tryLogin(store, "cap@x.test", "10.2.0.1"));
    }
    assert.equal(await tryLogin(store, "cap@x.test", "10.2.0.1"), null);
    assert.ok(await tryLogin(store, "cap@x.test", "10.2.0.2"));
  });
});

Deno.test("the per-address allowance spans every email; IPv6 counts by /64", async () => {
  await withStore(async (store) => {
    for (let i = 0; i < LOGIN_LIMITS.address; i++) {
      assert.ok(await tryLogin(store, `u${i}@x.test`, "2001:db8:1:2::1"));
    }
    assert.equal(await tryLogin(store, "fresh@x.test", "2001:db8:1:2:ffff::9"), null);
    assert.ok(await tryLogin(store, "fresh@x.test", "2001:db8:1:3::1"));
    assert.equal(addressBucket("::ffff:192.0.2.7"), "192.0.2.7");
    assert.equal(addressBucket("[2001:DB8:0:0:1::1]"), "2001:db8:0:0::/64");
  });
});

Deno.test("a refused login try says how long until a used-up window ends", async () => {
  await withStore(async (store, kv) => {
    const MINUTE = 60_000;
    const now = Date.now();
    const keys = loginTriesKeys("wait@x.test", "10.3.0.1");
    const waitOf = async () => {
      const decision = await store.throttle.beginLoginTry("wait@x.test", "10.3.0.1");
      assert.equal(decision.allowed, false);
      return decision.allowed ? 0 : decision.waitMs;
    };
    const near = (actual: number, expected: number) =>
      assert.ok(Math.abs(actual - expected) < 5_000, `${actual} is not about ${expected}`);
    // The account's own count from this address is full: its window ends in 13 minutes.
    await kv.set(keys.account_address, { count: 10, window_start: now - 2 * MINUTE });
    near(await waitOf(), 13 * MINUTE);
    // The address is full too, until 1 minute from now: the later end is the wait.
    await kv.set(keys.address, { count: LOGIN_LIMITS.address, window_start: now - 14 * MINUTE });
    near(await waitOf(), 13 * MINUTE);
    await kv.delete(keys.address);
    // Held to 3 tries only by the account's cap: free once either window ends (the account's,
    // started 10 minutes ago, ends first).
    await kv.set(keys.account, { count: LOGIN_LIMITS.account, window_start: now - 10 * MINUTE });
    await kv.set(keys.account_address, { count: 3, window_start: now - MINUTE });
    near(await waitOf(), 5 * MINUTE);
  });
});

Deno.test("40 concurrent login tries at one account from one address: exactly 10 counted", async () => {
  await withStore(async (store) => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => tryLogin(store, "burst@x.test", "10.9.9.9")),
    );
    assert.equal(answers.filter(Boolean).length, LOGIN_LIMITS.account_address);
  });
});

Deno.test("ws tickets snapshot the caller, live a minute, open one socket", async () => {
  await withStore(async (store) => {
    const ticket = await store.grants.createWsTicket({
      user_id: "u1",
      role: "member",
      approved: true,
      sid: "s1",
    });
    assert.match(ticket, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(await store.grants.takeWsTicket(crypto.randomUUID()), null);
    const [a, b] = await Promise.all([
      store.grants.takeWsTicket(ticket),
      store.grants.takeWsTicket(ticket),
    ]);
    assert.equal([a, b].filter(Boolean).length, 1);
    const record = a ?? b;
    assert.equal(record?.user_id, "u1");
    assert.equal(record?.sid, "s1");
    assert.ok(record!.expires_at <= Date.now() + 60_000);
    assert.equal(await store.grants.takeWsTicket(ticket), null);
  });
});

Deno.test("active users of the last 7 days are counted once each", async () => {
  await withStore(async (store) => {
    const a = (await store.users.createUser(member("a@example.test")))!;
    await store.users.createUser(member("b@example.test"));
    await store.users.recordLogin(a.user_id);
    await store.users.recordLogin(a.user_id);
    assert.equal((await store.users.stats()).active_users_last_7_days, 1);
    assert.ok((await store.users.getUser(a.user_id))!.last_login);
  });
});

Deno.test("signing keys: generated once, rotation keeps old keys in the JWKS", async () => {
  await withStore(async (store) => {
    const opts = { issuer: "http://issuer.test", audience: "aud", privateJwk: null };
    const issuer = new TokenIssuer(store, opts);
    const other = new TokenIssuer(store, opts);
    await Promise.all([issuer.ensureKey(), other.ensureKey()]);
    assert.equal((await issuer.jwks()).keys.length, 1);
    const user = (await store.users.createUser(member("k@example.test")))!;
    const before = await issuer.issue(user);
    await issuer.rotate();
    const after = await issuer.issue(user);
    const jwks = await issuer.jwks();
    assert.equal(jwks.keys.length, 2);
    assert.notEqual(
      decodeProtectedHeader(before.access_token).kid,
      decodeProtectedHeader(after.access_token).kid,
    );
    const keys = createLocalJWKSet(jwks);
    for (const token of [before.access_token, after.id_token]) {
      const { payload } = await jwtVerify(token, keys, {
        issuer: "http://issuer.test",
        audience: "aud",
        algorithms: ["EdDSA"],
      });
      assert.equal(payload.sub, user.user_id);
      assert.equal(payload["custom:approved"], "false");
      assert.equal(payload["custom:role"], "member");
      assert.equal(payload.exp! - payload.iat!, 3600);
    }
  });
});

Deno.test("expired codes and tickets are refused on read, before KV's own expiry runs", async () => {
  await withStore(async (store, kv) => {
    const code = await store.grants.createAuthCode({
      user_id: "u1",
      client_id: "c",
      redirect_uri: "http://x/",
      code_challenge: null,
    });
    const ticket = await store.grants.createWsTicket({
      user_id: "u1",
      role: "member",
      approved: true,
      sid: null,
    });
    for (const prefix of [["auth_codes"], ["ws_tickets"]]) {
      for await (const e of kv.list<{ expires_at: number }>({ prefix })) {
        await kv.set(e.key, { ...e.value, expires_at: Date.now() - 1 });
      }
    }
    assert.equal(await store.grants.consumeAuthCode(code), null);
    assert.equal(await store.grants.takeWsTicket(ticket), null);
  });
});

Deno.test("setup links printed by several instances each work, once, and using one voids the rest", async () => {
  await withStore(async (store) => {
    await Promise.all([
      store.setup.saveSetupToken("token-a"),
      store.setup.saveSetupToken("token-b"),
    ]);
    assert.equal(await store.setup.takeSetupToken("token-c"), false);
    assert.equal(await store.setup.takeSetupToken("token-b"), true);
    assert.equal(
      await store.setup.takeSetupToken("token-a"),
      false,
      "the other instance's link is void",
    );
    assert.equal(await store.setup.takeSetupToken("token-b"), false, "single use");
  });
});
