import assert from "node:assert/strict";
import {
  Argon2Pool,
  closePasswordWorkers,
  dummyHash,
  hashPassword,
  verifyPassword,
} from "./passwords.ts";

Deno.test("passwords are argon2id PHC strings with OWASP parameters and a random salt", async () => {
  try {
    const a = await hashPassword("Secret-Passw0rd!");
    const b = await hashPassword("Secret-Passw0rd!");
    assert.match(a, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    assert.notEqual(a, b);
    assert.equal(await verifyPassword("Secret-Passw0rd!", a), true);
    assert.equal(await verifyPassword("Secret-Passw0rd!", b), true);
    assert.equal(await verifyPassword("secret-Passw0rd!", a), false);
  } finally {
    closePasswordWorkers();
  }
});

Deno.test("a malformed stored hash never verifies, and the dummy hash matches nothing", async () => {
  try {
    assert.equal(await verifyPassword("x", "plain"), false);
    assert.equal(await verifyPassword("x", "$argon2id$v=19$m=1,t=1,p=1$$"), false);
    assert.equal(await verifyPassword("", await dummyHash()), false);
  } finally {
    closePasswordWorkers();
  }
});

Deno.test("the pool hashes concurrent jobs on at most `size` workers, in order", async () => {
  const pool = new Argon2Pool(2);
  try {
    const salt = new Uint8Array(16).fill(7);
    const params = { memorySize: 1024, iterations: 1, parallelism: 1, hashLength: 16 };
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => pool.hash({ password: `pw-${i}`, salt, ...params })),
    );
    assert.equal(new Set(answers).size, 6);
    assert.equal(answers[0], await pool.hash({ password: "pw-0", salt, ...params }));
    assert.equal(await pool.verify("pw-0", answers[0]), true);
    assert.equal(await pool.verify("pw-1", answers[0]), false);
    await assert.rejects(pool.verify("pw-0", "$argon2id$v=19$m=1024,t=1,p=1$$"));
    await assert.rejects(pool.hash({ password: "", salt, ...params }));
  } finally {
    pool.close();
  }
});

Deno.test("a full queue refuses new jobs with 503 instead of queueing them", async () => {
  const pool = new Argon2Pool(1, 2);
  try {
    const salt = new Uint8Array(16).fill(1);
    const params = { memorySize: 1024, iterations: 1, parallelism: 1, hashLength: 16 };
    const status = (job: Promise<unknown>) =>
      job.then(() => 200, (err) => `${err.status} retry ${err.retryAfterSeconds} s`);
    const encoded = await pool.hash({ password: "pw", salt, ...params });
    const jobs = [
      ...Array.from({ length: 3 }, (_, i) => pool.hash({ password: `pw-${i}`, salt, ...params })),
      pool.verify("pw", encoded),
    ].map(status);
    // One is hashing, two wait, the fourth (a verification: it queues for a worker too) finds
    // the queue full.
    assert.deepEqual(await Promise.all(jobs), [200, 200, 200, "503 retry 1 s"]);
  } finally {
    pool.close();
  }
});
