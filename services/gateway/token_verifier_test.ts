import assert from "node:assert/strict";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { TokenVerifier } from "./token_verifier.ts";
import { encodeCaller } from "../../shared/http/identity.ts";

const ISSUER = "http://localhost:8000";
const AUDIENCE = "content-pipeline";

async function keyAndVerifier() {
  const { privateKey, publicKey } = await generateKeyPair("EdDSA", { crv: "Ed25519" });
  const jwk = { ...await exportJWK(publicKey), kid: "k1", alg: "EdDSA", use: "sig" };
  let loads = 0;
  const verifier = new TokenVerifier({
    issuer: ISSUER,
    audience: AUDIENCE,
    loadJwks: () => {
      loads++;
      return Promise.resolve({ keys: [jwk] });
    },
  });
  const sign = (
    claims: Record<string, unknown>,
    opts: { exp?: number; iss?: string; aud?: string } = {},
  ) =>
    new SignJWT({
      email: "a@b.test",
      name: "A",
      "custom:role": "member",
      "custom:approved": "true",
      token_use: "access",
      ...claims,
    })
      .setProtectedHeader({ alg: "EdDSA", kid: "k1" })
      .setIssuer(opts.iss ?? ISSUER)
      .setAudience(opts.aud ?? AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(opts.exp ?? Math.floor(Date.now() / 1000) + 3600)
      .sign(privateKey);
  return { verifier, sign, loads: () => loads };
}

Deno.test("token verifier accepts a valid EdDSA token and maps its claims", async () => {
  const { verifier, sign } = await keyAndVerifier();
  const verified = await verifier.verify(await sign({ sub: "u1", "custom:role": "admin" }));
  assert.deepEqual(verified?.caller, {
    user_id: "u1",
    email: "a@b.test",
    name: "A",
    role: "admin",
    approved: true,
  });
  assert.equal(verified?.header, encodeCaller(verified!.caller));
});

Deno.test("token verifier refuses wrong issuer, audience, expiry, missing sub and tampering", async () => {
  const { verifier, sign } = await keyAndVerifier();
  assert.equal(await verifier.verify(await sign({ sub: "u1" }, { iss: "http://evil" })), null);
  assert.equal(await verifier.verify(await sign({ sub: "u1" }, { aud: "other" })), null);
  assert.equal(
    await verifier.verify(await sign({ sub: "u1" }, { exp: Math.floor(Date.now() / 1000) - 10 })),
    null,
  );
  assert.equal(await verifier.verify(await sign({})), null);
  const token = await sign({ sub: "u1" });
  const [h, p, s] = token.split(".");
  const forged = btoa(
    JSON.stringify({ ...JSON.parse(atob(p.replaceAll("-", "+").replaceAll("_", "/"))), sub: "u2" }),
  )
    .replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
  assert.equal(await verifier.verify(`${h}.${forged}.${s}`), null);
  assert.equal(await verifier.verify("not-a-jwt"), null);
});

Deno.test("token verifier reports unapproved accounts and caches verified tokens", async () => {
  const { verifier, sign, loads } = await keyAndVerifier();
  const token = await sign({ sub: "u1", "custom:approved": "false" });
  assert.equal((await verifier.verify(token))?.caller.approved, false);
  assert.equal((await verifier.verify(token))?.caller.approved, false);
  assert.equal(loads(), 1);
});

Deno.test("token verifier refuses id tokens and tokens without token_use as bearer tokens", async () => {
  const { verifier, sign } = await keyAndVerifier();
  assert.equal(await verifier.verify(await sign({ sub: "u1", token_use: "id" })), null);
  assert.equal(await verifier.verify(await sign({ sub: "u1", token_use: undefined })), null);
  assert.equal((await verifier.verify(await sign({ sub: "u1" })))?.caller.user_id, "u1");
});
