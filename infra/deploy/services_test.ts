/**
 * The deployment config against the code: every service has an entry, every variable it
 * names is read by that service's config parser (and every variable the parser reads is
 * deployed or listed as not deployed), every client a service builds has its peer URL, and a
 * KV database exactly where the service opens one.
 */
import assert from "node:assert/strict";
import { type BaseConfig, baseEnvShape, SERVICE_NAMES } from "../../shared/config.ts";
import { parseAssetsUrl } from "../../shared/assets/config.ts";
import { parseDeliveryConfig } from "../../shared/delivery/mod.ts";
import { parseGatewayConfig } from "../../services/gateway/config.ts";
import { parseAuthConfig } from "../../services/auth/config.ts";
import { parseIdeasConfig } from "../../services/ideas/config.ts";
import { parseActionsConfig } from "../../services/actions/config.ts";
import { parsePostsConfig } from "../../services/posts/config.ts";
import { parseGenaiConfig } from "../../services/genai/config.ts";
import { parseCollabConfig } from "../../services/collab/config.ts";
import { parseAdminConfig } from "../../services/admin/config.ts";
import { parseWebConfig } from "../../services/web/config.ts";
import { type AppName, DEPLOYED_SERVICES, deployOrder, NOT_DEPLOYED, SECRETS } from "./services.ts";

const REPO = new URL("../../", import.meta.url).pathname;

/** A valid value for each variable a parser insists on; everything else is left unset. */
const SAMPLE_ENV: Record<string, string> = {
  INTERNAL_SECRET: "0123456789abcdef0123456789abcdef",
  PUBLIC_URL: "https://cps.example.com",
  DATA_DIR: "deno-deploy",
  ASSETS_URL: "s3://cps-assets?region=eu-west-1",
  AWS_ACCESS_KEY_ID: "AKIAEXAMPLE",
  AWS_SECRET_ACCESS_KEY: "secret",
  LINKEDIN_TOKEN_KEY: btoa("k".repeat(32)),
};

type Parser = (env: Record<string, string | undefined>, base: BaseConfig) => unknown;

/** The config parsers by name, as a service's mod.ts or main.ts calls them. */
const PARSERS: Record<string, Parser> = {
  parseGatewayConfig,
  parseAssetsUrl,
  // The gateway's presigned routes parse ASSETS_URL the same way.
  fileAssetRoutesFromEnv: parseAssetsUrl,
  parseAuthConfig,
  parseDeliveryConfig,
  parseIdeasConfig,
  parseActionsConfig,
  parsePostsConfig,
  parseGenaiConfig,
  parseCollabConfig,
  parseAdminConfig,
  parseWebConfig,
};

async function entryText(name: AppName): Promise<string> {
  const parts = [];
  for (const file of ["mod.ts", "main.ts"]) {
    parts.push(await Deno.readTextFile(`${REPO}services/${name}/${file}`).catch(() => ""));
  }
  return parts.join("\n");
}

async function serviceSources(name: AppName): Promise<string> {
  const parts = [];
  for await (const entry of Deno.readDir(`${REPO}services/${name}`)) {
    if (entry.isFile && entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts")) {
      parts.push(await Deno.readTextFile(`${REPO}services/${name}/${entry.name}`));
    }
  }
  return parts.join("\n");
}

/** The variables `name`'s own parsers read (beyond the base settings), found by running them. */
async function variablesRead(name: AppName): Promise<Set<string>> {
  const called = new Set(
    [...(await entryText(name)).matchAll(
      /\b(parse\w+Config|parseAssetsUrl|fileAssetRoutesFromEnv)\(/g,
    )]
      .map((m) => m[1]).filter((fn) => fn !== "parseBaseConfig"),
  );
  const read = new Set<string>();
  const env = new Proxy({ ...SAMPLE_ENV } as Record<string, string | undefined>, {
    get(target, key) {
      if (typeof key === "string") read.add(key);
      return target[key as string];
    },
  });
  const { parseBaseConfig } = await import("../../shared/config.ts");
  const base = parseBaseConfig(SAMPLE_ENV, { requireSecret: true });
  for (const fn of called) {
    const parser = PARSERS[fn];
    assert.ok(parser, `${name} calls ${fn}: add it to PARSERS in this test`);
    parser(env, base);
  }
  return read;
}

Deno.test("every service and the gateway has exactly one deployment entry with an existing entrypoint", async () => {
  const names = DEPLOYED_SERVICES.map((s) => s.name).sort();
  assert.deepEqual(names, [...SERVICE_NAMES, "gateway"].sort());
  for (const service of DEPLOYED_SERVICES) {
    assert.equal(service.entrypoint, `services/${service.name}/main.ts`);
    const info = await Deno.stat(`${REPO}${service.entrypoint}`);
    assert.ok(info.isFile, service.entrypoint);
  }
});

Deno.test("every variable a deployment entry names is read by that service's config parsers", async () => {
  const baseNames = new Set(Object.keys(baseEnvShape));
  for (const service of DEPLOYED_SERVICES) {
    const read = await variablesRead(service.name);
    const named = [...service.required, ...service.optional, ...Object.keys(service.fixed)];
    for (const variable of named) {
      assert.ok(
        baseNames.has(variable) || read.has(variable),
        `${service.name} is deployed with ${variable}, which none of its parsers reads`,
      );
    }
    assert.equal(new Set(named).size, named.length, `${service.name} names a variable twice`);
  }
});

Deno.test("every variable a service's own parsers read is deployed or listed in NOT_DEPLOYED", async () => {
  for (const service of DEPLOYED_SERVICES) {
    const named = new Set([
      ...service.required,
      ...service.optional,
      ...Object.keys(service.fixed),
    ]);
    for (const variable of await variablesRead(service.name)) {
      assert.ok(
        named.has(variable) || variable in NOT_DEPLOYED,
        `${service.name} reads ${variable}: add it to its entry in infra/deploy/services.ts (or NOT_DEPLOYED)`,
      );
    }
  }
});

Deno.test("each service's peers are the services whose clients it builds", async () => {
  const kvServices = new Set<string>();
  for (const name of SERVICE_NAMES) {
    if (/openServiceKv\(/.test(await entryText(name))) kvServices.add(name);
  }
  for (const service of DEPLOYED_SERVICES) {
    const source = await serviceSources(service.name);
    const expected = new Set<string>();
    for (const [, client] of source.matchAll(/new (\w+)Client\(/g)) {
      const peer = client.toLowerCase();
      if ((SERVICE_NAMES as readonly string[]).includes(peer)) expected.add(peer);
    }
    // admin backs up every keyspace; the gateway routes to every service.
    if (/new KeyspaceClient\(/.test(source)) {
      for (const name of kvServices) if (name !== "admin") expected.add(name);
    }
    if (service.name === "gateway") { for (const name of SERVICE_NAMES) expected.add(name); }
    assert.deepEqual([...service.peers].sort(), [...expected].sort(), `${service.name}'s peers`);
  }
});

Deno.test("a KV database is provisioned exactly for the services that open their own KV", async () => {
  for (const service of DEPLOYED_SERVICES) {
    const opens = /openServiceKv\(/.test(await entryText(service.name));
    assert.equal(service.kv, opens, `${service.name}: kv`);
    assert.equal(service.fixed.DATA_DIR === "deno-deploy", opens, `${service.name}: DATA_DIR`);
  }
});

Deno.test("the deployment order puts each service after the peers it calls and the gateway last", () => {
  const order = deployOrder().map((s) => s.name);
  assert.equal(order.length, DEPLOYED_SERVICES.length);
  assert.equal(order.at(-1), "gateway");
  for (const service of DEPLOYED_SERVICES) {
    for (const peer of service.peers) {
      assert.ok(
        order.indexOf(peer) < order.indexOf(service.name),
        `${peer} must be deployed before ${service.name}`,
      );
    }
  }
});

Deno.test("every secret listed is a variable some app is deployed with", () => {
  const named = new Set(DEPLOYED_SERVICES.flatMap((s) => [...s.required, ...s.optional]));
  for (const secret of SECRETS) assert.ok(named.has(secret), secret);
});
