/**
 * `deno task deploy` run as a subprocess, offline: the dry run's order and commands, the
 * refusal naming missing variables, and a real run against a stand-in `deno` binary
 * (DEPLOY_DENO) that records what it was asked and what it was handed.
 */
import assert from "node:assert/strict";
import { DEPLOYED_SERVICES, deployOrder } from "./services.ts";
import { dotenvLine, UsageError } from "./deploy.ts";

const SCRIPT = new URL("./deploy.ts", import.meta.url).pathname;
const SECRET = "s3cr3t-0123456789abcdef-internal";

/** Everything a full deployment needs; values are recognisable so leaks can be searched. */
const FULL_ENV: Record<string, string> = {
  DEPLOY_ORG: "acme",
  INTERNAL_SECRET: SECRET,
  PUBLIC_URL: "https://cps.example.com",
  ASSETS_URL: "s3://cps-assets?endpoint=https://s3.example.com&region=eu-west-1",
  AWS_ACCESS_KEY_ID: "AKIA-leak-check",
  AWS_SECRET_ACCESS_KEY: "aws-secret-leak-check",
  LINKEDIN_TOKEN_KEY: btoa("k".repeat(32)),
};

async function runDeploy(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string; tmp: string }> {
  const tmp = await Deno.makeTempDir({ prefix: "deploy-test-" });
  const keep = ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME"];
  const base = Object.fromEntries(
    keep.flatMap((k) => Deno.env.get(k) ? [[k, Deno.env.get(k)!]] : []),
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", SCRIPT, ...args],
    clearEnv: true,
    env: { ...base, TMPDIR: tmp, ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr), tmp };
}

async function entries(dir: string): Promise<string[]> {
  const names = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

Deno.test("deploy --dry-run prints every app in call order, gateway last, with its commands, and runs nothing", async () => {
  const { code, stdout, stderr, tmp } = await runDeploy(["--dry-run"], FULL_ENV);
  assert.equal(code, 0, stderr);
  const listed = [...stdout.matchAll(/^(\d+)\. (\w+): app /gm)].map((m) => m[2]);
  const expected = deployOrder().map((s) => s.name);
  assert.deepEqual(listed, expected);
  assert.equal(listed.at(-1), "gateway");
  assert.equal(listed.length, DEPLOYED_SERVICES.length);
  assert.ok(listed.indexOf("auth") < listed.indexOf("posts"));
  assert.ok(listed.indexOf("posts") < listed.indexOf("genai"));
  for (const name of listed) {
    assert.ok(
      stdout.includes(
        `$ deno deploy $WORK/apps/${name} --org acme --app cps-${name} --prod --non-interactive`,
      ),
      `publish command of ${name}`,
    );
    assert.match(
      stdout,
      new RegExp(
        `\\$ deno deploy env load \\$WORK/env/${name}\\.env --replace .*--org acme --app cps-${name} --non-interactive`,
      ),
    );
  }
  // Names, never values, of what the operator gave.
  assert.match(stdout, /env from your environment: INTERNAL_SECRET PUBLIC_URL LINKEDIN_TOKEN_KEY/);
  for (const value of [SECRET, FULL_ENV.AWS_SECRET_ACCESS_KEY, FULL_ENV.LINKEDIN_TOKEN_KEY]) {
    assert.ok(!stdout.includes(value), "a secret value was printed");
  }
  // Peers' addresses are derived from the app names.
  assert.match(stdout, /WORKSPACES_URL=https:\/\/cps-workspaces\.acme\.deno\.net/);
  assert.match(stdout, /"runtime":\{"type":"dynamic","entrypoint":"services\/web\/main\.ts"\}/);
  assert.ok(!stdout.includes("database provision"), "no setup without --setup");
  assert.deepEqual(await entries(tmp), [], "a dry run writes nothing");
  await Deno.remove(tmp, { recursive: true });
});

Deno.test("deploy --dry-run --setup --only creates the named apps and a KV database only where one is used", async () => {
  const { code, stdout, stderr } = await runDeploy(
    ["--dry-run", "--setup", "--only", "gateway,posts,auth"],
    { ...FULL_ENV, DEPLOY_APP_PREFIX: "team", DEPLOY_REGION: "eu" },
  );
  assert.equal(code, 0, stderr);
  const listed = [...stdout.matchAll(/^(\d+)\. (\w+): app /gm)].map((m) => m[2]);
  assert.deepEqual(listed, ["auth", "posts", "gateway"]);
  assert.ok(stdout.includes(
    "$ deno deploy create $WORK/apps/auth --org acme --app team-auth --source local --runtime-mode dynamic --entrypoint services/auth/main.ts --build-timeout 10 --build-memory-limit 2048 --region eu --no-wait --non-interactive",
  ));
  assert.ok(stdout.includes(
    "$ deno deploy database provision team-posts-kv --kind denokv --org acme",
  ));
  assert.ok(stdout.includes(
    "$ deno deploy database assign team-auth-kv --org acme --app team-auth --non-interactive",
  ));
  assert.ok(!stdout.includes("team-gateway-kv"), "the gateway keeps no KV");
  assert.ok(!stdout.includes("cps-"), "every app carries the prefix");
});

Deno.test("deploy refuses to start when variables are missing, naming each and the apps that need it", async () => {
  const env = { ...FULL_ENV };
  delete env.INTERNAL_SECRET;
  delete env.LINKEDIN_TOKEN_KEY;
  delete env.DEPLOY_ORG;
  const { code, stdout, stderr } = await runDeploy(["--dry-run"], env);
  assert.equal(code, 1);
  assert.equal(stdout, "");
  assert.match(stderr, /^Cannot deploy: missing environment variables:/);
  assert.match(stderr, /DEPLOY_ORG \(the deploy script\)/);
  assert.match(stderr, /INTERNAL_SECRET \(every app\)/);
  assert.match(stderr, /LINKEDIN_TOKEN_KEY \(posts\)/);
  assert.ok(!stderr.includes("PUBLIC_URL"), "only what is missing is named");

  const only = await runDeploy(["--dry-run", "--only", "web"], {
    DEPLOY_ORG: "acme",
    PUBLIC_URL: "https://cps.example.com",
  });
  assert.equal(only.code, 1);
  assert.match(only.stderr, /INTERNAL_SECRET \(web\)/);
  assert.ok(!only.stderr.includes("LINKEDIN_TOKEN_KEY"), "--only checks only its apps");
});

Deno.test("deploy refuses a file: asset store and an unknown service", async () => {
  const file = await runDeploy(["--dry-run"], { ...FULL_ENV, ASSETS_URL: "file:./data/assets" });
  assert.equal(file.code, 1);
  assert.match(file.stderr, /ASSETS_URL must be s3:\/\//);
  const unknown = await runDeploy(["--dry-run", "--only", "auth,nope"], FULL_ENV);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /Unknown service in --only: nope/);
});

/** A stand-in for `deno` that logs its arguments and keeps what it was handed. */
async function fakeDeno(dir: string): Promise<string> {
  const path = `${dir}/fake-deno.sh`;
  await Deno.writeTextFile(
    path,
    `#!/bin/sh
echo "$*" >> "${dir}/calls.log"
if [ "$2" = env ] && [ "$3" = load ]; then cp "$4" "${dir}/$(basename "$4")"; fi
if [ "$1" = deploy ] && [ -d "$2" ]; then
  name=$(basename "$2")
  cp "$2/deno.json" "${dir}/$name.deno.json"
  (cd "$2" && find . -type f | sort) > "${dir}/$name.files"
  case "$*" in *"--app cps-$FAIL_APP "*) exit 3;; esac
fi
exit 0
`,
  );
  await Deno.chmod(path, 0o755);
  return path;
}

Deno.test("deploy runs deno deploy per app: environment file, upload with its deploy section, then publish", async () => {
  const dir = await Deno.makeTempDir({ prefix: "deploy-fake-" });
  const env = {
    ...FULL_ENV,
    DEPLOY_DENO: await fakeDeno(dir),
    JWT_PRIVATE_JWK: '{"kty":"OKP","crv":"Ed25519","d":"x","x":"y"}',
    MAIL_FROM: "Team's Pipeline <no-reply@example.com>",
  };
  const { code, stderr, tmp } = await runDeploy(["--only", "web,auth"], env);
  assert.equal(code, 0, stderr);
  const calls = (await Deno.readTextFile(`${dir}/calls.log`)).trim().split("\n");
  assert.equal(calls.length, 4);
  assert.match(calls[0], /^deploy env load \S+\/env\/auth\.env --replace /);
  assert.match(
    calls[1],
    /^deploy \S+\/apps\/auth --org acme --app cps-auth --prod --non-interactive$/,
  );
  assert.match(calls[3], /^deploy \S+\/apps\/web --org acme --app cps-web --prod/);

  const envFile = await Deno.readTextFile(`${dir}/auth.env`);
  assert.ok(envFile.includes(`INTERNAL_SECRET='${SECRET}'`));
  assert.ok(envFile.includes(`JWT_PRIVATE_JWK='{"kty":"OKP","crv":"Ed25519","d":"x","x":"y"}'`));
  assert.ok(envFile.includes(`MAIL_FROM="Team's Pipeline <no-reply@example.com>"`));
  assert.ok(envFile.includes("DATA_DIR='deno-deploy'"));
  assert.ok(!envFile.includes("_URL='https://cps-"), "auth calls no peer: it is given no address");
  assert.ok(!envFile.includes("AWS_"), "auth is given only its own variables");

  const config = JSON.parse(await Deno.readTextFile(`${dir}/web.deno.json`));
  assert.deepEqual(config.deploy, {
    org: "acme",
    app: "cps-web",
    install: "deno install",
    build: "deno task web:build",
    runtime: { type: "dynamic", entrypoint: "services/web/main.ts" },
  });
  assert.ok(config.imports.hono, "the app's deno.json keeps the project's imports");
  const files = (await Deno.readTextFile(`${dir}/auth.files`)).split("\n");
  assert.ok(files.includes("./services/auth/main.ts"));
  assert.ok(files.includes("./shared/runtime/standalone.ts"));
  assert.ok(files.includes("./deno.lock"));
  assert.ok(!files.some((f) => f.endsWith("_test.ts") || f.includes("/dist/")), "no tests");
  assert.ok(!files.some((f) => f.endsWith(".env")), "the environment is never uploaded");
  assert.deepEqual(await entries(tmp), [], "the temporary directory is removed");
  await Deno.remove(dir, { recursive: true });
  await Deno.remove(tmp, { recursive: true });
});

Deno.test("deploy stops at the first failing app and says what was deployed before it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "deploy-fake-" });
  const { code, stderr, tmp } = await runDeploy(["--only", "auth,posts,gateway"], {
    ...FULL_ENV,
    DEPLOY_DENO: await fakeDeno(dir),
    FAIL_APP: "posts",
  });
  assert.equal(code, 1);
  assert.match(stderr, /deno deploy .* failed \(exit 3\) for posts; deployed before it: auth/);
  const calls = await Deno.readTextFile(`${dir}/calls.log`);
  assert.ok(!calls.includes("cps-gateway"), "nothing after the failure runs");
  assert.deepEqual(await entries(tmp), []);
  await Deno.remove(dir, { recursive: true });
  await Deno.remove(tmp, { recursive: true });
});

Deno.test("a value that no .env quoting can carry is refused, naming the variable", () => {
  assert.equal(dotenvLine("A", `{"k":"v"}`), `A='{"k":"v"}'`);
  assert.equal(dotenvLine("B", "it's"), `B="it's"`);
  assert.throws(
    () => dotenvLine("C", `it's "x"`),
    (err: Error) => err instanceof UsageError && /Cannot write C to a \.env file/.test(err.message),
  );
});
