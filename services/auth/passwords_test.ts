import assert from "node:assert/strict";
import { dummyHash, hashPassword, verifyPassword } from "./passwords.ts";

Deno.test("passwords are argon2id PHC strings with OWASP parameters and a random salt", async () => {
  const a = await hashPassword("Secret-Passw0rd!");
  const b = await hashPassword("Secret-Passw0rd!");
  assert.match(a, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  assert.notEqual(a, b);
  assert.equal(await verifyPassword("Secret-Passw0rd!", a), true);
  assert.equal(await verifyPassword("Secret-Passw0rd!", b), true);
  assert.equal(await verifyPassword("secret-Passw0rd!", a), false);
});

Deno.test("a malformed stored hash never verifies, and the dummy hash matches nothing", async () => {
  assert.equal(await verifyPassword("x", "plain"), false);
  assert.equal(await verifyPassword("x", "$argon2id$v=19$m=1,t=1,p=1$$"), false);
  assert.equal(await verifyPassword("", await dummyHash()), false);
});
