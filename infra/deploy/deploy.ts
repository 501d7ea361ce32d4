/**
 * `deno task deploy [--dry-run] [--only a,b] [--setup]`: deploys every service to Deno Deploy
 * as its own app, in order (a service after the peers it calls, the gateway last), with the
 * `deno deploy` CLI.
 *
 * For each app it writes a copy of the sources whose `deno.json` carries that app's `deploy`
 * section (org, app, entrypoint), loads the app's environment from a `.env` file kept outside
 * the upload (`deno deploy env load --replace`), then publishes to production. `--setup` also
 * creates the app and provisions and assigns its KV database first (the first deployment);
 * an app or database that already exists is left as it is. `--dry-run` prints the plan (the
 * commands, the variables by name, the order) and runs nothing. docs/deploy.md explains it.
 */
import {
  type AppName,
  DEPLOYED_SERVICES,
  type DeployedService,
  deployOrder,
  peerUrlVariable,
  SECRETS,
} from "./services.ts";

const REPO_ROOT = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");

/** What the script itself reads, besides each service's variables. */
export const DEPLOY_SETTINGS = {
  /** The Deno Deploy organization (its slug, as in console.deno.com/<org>) */
  org: "DEPLOY_ORG",
  /** App names are `<prefix>-<service>`; `cps` unless set */
  prefix: "DEPLOY_APP_PREFIX",
  /** The region `--setup` creates apps in: us, eu or global; `us` unless set */
  region: "DEPLOY_REGION",
  /** The deno binary that runs `deno deploy`; the one running this script unless set */
  deno: "DEPLOY_DENO",
} as const;

/** The exit code `deno deploy` gives when the app or database already exists (HTTP 409). */
const CLI_CONFLICT = 5;

/** Stands for the temporary directory in printed commands; a real run makes one. */
const WORK_PLACEHOLDER = "$WORK";

export interface Options {
  dryRun: boolean;
  setup: boolean;
  only: AppName[] | null;
}

export interface Step {
  /** Shown before the commands */
  note: string;
  /** Arguments after `deno` */
  args: string[];
  /** true: exit code 5 (already exists) is fine */
  existingOk?: boolean;
}

export interface AppPlan {
  service: DeployedService;
  app: string;
  url: string;
  /** Variables taken from the operator's environment (names; values never printed) */
  given: string[];
  /** Variables this plan sets itself: fixed ones and peers' URLs (not secret) */
  derived: Record<string, string>;
  /** The `deploy` section of the app's deno.json */
  deploySection: Record<string, unknown>;
  steps: Step[];
}

export interface Plan {
  org: string;
  prefix: string;
  apps: AppPlan[];
}

export class UsageError extends Error {}

export function parseArgs(args: string[]): Options {
  const options: Options = { dryRun: false, setup: false, only: null };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--dry-run") options.dryRun = true;
    else if (arg === "--setup") options.setup = true;
    else if (arg === "--only" || arg.startsWith("--only=")) {
      const value = arg === "--only" ? args[++i] : arg.slice("--only=".length);
      if (!value) throw new UsageError("--only needs a comma-separated list of services");
      const names = value.split(",").map((s) => s.trim()).filter(Boolean);
      const known = new Set<string>(DEPLOYED_SERVICES.map((s) => s.name));
      const unknown = names.filter((n) => !known.has(n));
      if (unknown.length > 0) {
        throw new UsageError(
          `Unknown service in --only: ${unknown.join(", ")} (known: ${[...known].join(", ")})`,
        );
      }
      options.only = names as AppName[];
    } else throw new UsageError(`Unknown argument ${arg}`);
  }
  return options;
}

/** An app's address on Deploy before any custom domain: `https://<app>.<org>.deno.net`. */
export function defaultAppUrl(app: string, org: string): string {
  return `https://${app}.${org}.deno.net`;
}

/**
 * The plan for `env`, or a UsageError naming every missing variable and the apps that need
 * it, before anything runs.
 */
export function buildPlan(
  env: Record<string, string | undefined>,
  options: Options,
  work = WORK_PLACEHOLDER,
): Plan {
  const order = deployOrder().filter((s) => !options.only || options.only.includes(s.name));
  const missing = new Map<string, AppName[]>();
  const need = (name: string, app: AppName | "deploy") => {
    if (env[name]) return;
    const apps = missing.get(name) ?? [];
    if (app !== "deploy") apps.push(app);
    missing.set(name, apps);
  };
  need(DEPLOY_SETTINGS.org, "deploy");
  for (const service of order) for (const name of service.required) need(name, service.name);
  if (missing.size > 0) {
    const lines = [...missing].map(([name, apps]) =>
      `  ${name}${apps.length > 0 ? ` (${describeApps(apps, order)})` : " (the deploy script)"}`
    );
    throw new UsageError(`Cannot deploy: missing environment variables:\n${lines.join("\n")}`);
  }
  const assets = env.ASSETS_URL;
  if (
    assets && !assets.startsWith("s3://") && order.some((s) => s.required.includes("ASSETS_URL"))
  ) {
    throw new UsageError(
      "Cannot deploy: ASSETS_URL must be s3://<bucket>?endpoint=<url>&region=<r> on Deno Deploy (isolates share no disk)",
    );
  }
  const org = env[DEPLOY_SETTINGS.org]!;
  const prefix = env[DEPLOY_SETTINGS.prefix] || "cps";
  const region = env[DEPLOY_SETTINGS.region] || "us";
  if (!/^[a-z0-9][a-z0-9-]*$/.test(prefix)) {
    throw new UsageError(`Invalid ${DEPLOY_SETTINGS.prefix}: lowercase letters, digits and -`);
  }
  const appName = (name: AppName) => `${prefix}-${name}`;
  const apps = order.map((service): AppPlan => {
    const app = appName(service.name);
    const derived: Record<string, string> = { ...service.fixed };
    for (const peer of service.peers) {
      const variable = peerUrlVariable(peer);
      if (!env[variable]) derived[variable] = defaultAppUrl(appName(peer), org);
    }
    const given = [
      ...service.required,
      ...service.optional.filter((name) => env[name]),
      ...service.peers.map(peerUrlVariable).filter((name) => env[name]),
    ];
    const dir = `${work}/apps/${service.name}`;
    const envFile = `${work}/env/${service.name}.env`;
    const scope = ["--org", org, "--app", app, "--non-interactive"];
    const steps: Step[] = [];
    if (options.setup) {
      steps.push({
        note: "create the app (its first build may fail until its environment is loaded)",
        args: [
          "deploy",
          "create",
          dir,
          ...["--org", org, "--app", app, "--source", "local"],
          ...["--runtime-mode", "dynamic", "--entrypoint", service.entrypoint],
          ...["--build-timeout", "10", "--build-memory-limit", "2048", "--region", region],
          "--no-wait",
          "--non-interactive",
        ],
        existingOk: true,
      });
      if (service.kv) {
        const database = `${app}-kv`;
        steps.push({
          note: "provision its KV database",
          args: ["deploy", "database", "provision", database, "--kind", "denokv", "--org", org],
          existingOk: true,
        });
        steps.push({
          note: "assign the database to the app",
          args: ["deploy", "database", "assign", database, ...scope],
          existingOk: true,
        });
      }
    }
    const nonSecrets = [...Object.keys(derived), ...given.filter((name) => !SECRETS.has(name))];
    steps.push({
      note: "load its environment (replacing earlier values)",
      args: [
        "deploy",
        "env",
        "load",
        envFile,
        "--replace",
        ...(nonSecrets.length > 0 ? ["--non-secrets", ...nonSecrets] : []),
        ...scope,
      ],
    });
    steps.push({
      note: "publish to production",
      args: ["deploy", dir, "--org", org, "--app", app, "--prod", "--non-interactive"],
    });
    return {
      service,
      app,
      url: defaultAppUrl(app, org),
      given,
      derived,
      deploySection: deploySection(service, org, app),
      steps,
    };
  });
  return { org, prefix, apps };
}

function describeApps(apps: AppName[], order: DeployedService[]): string {
  return apps.length === order.length && order.length > 1 ? "every app" : apps.join(", ");
}

/** The `deploy` section of an app's deno.json (docs.deno.com/deploy/reference/builds). */
export function deploySection(
  service: DeployedService,
  org: string,
  app: string,
): Record<string, unknown> {
  return {
    org,
    app,
    install: "deno install",
    ...(service.build ? { build: service.build } : {}),
    runtime: { type: "dynamic", entrypoint: service.entrypoint },
  };
}

/** One argument as a POSIX shell would need it. */
function shellQuote(arg: string): string {
  return /^[\w@%+=:,./$-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

export function formatPlan(plan: Plan, options: Options): string {
  const out: string[] = [];
  out.push(
    `Deploy plan${options.dryRun ? " (dry run: nothing is run)" : ""}: ${plan.apps.length} app${
      plan.apps.length === 1 ? "" : "s"
    } in org ${plan.org}, in this order: ${plan.apps.map((a) => a.service.name).join(", ")}`,
  );
  out.push(
    `${WORK_PLACEHOLDER} is a temporary directory: apps/<service> is the upload (the sources and a deno.json with the app's deploy section), env/<service>.env its environment (never uploaded, removed at the end).`,
  );
  plan.apps.forEach((app, i) => {
    const { service } = app;
    out.push("");
    out.push(
      `${i + 1}. ${service.name}: app ${app.app} (${app.url}), entrypoint ${service.entrypoint}, ${
        service.kv ? `KV database ${app.app}-kv` : "no KV database"
      }`,
    );
    out.push(`   env from your environment: ${app.given.join(" ")}`);
    const derived = Object.entries(app.derived).map(([k, v]) => `${k}=${v}`);
    if (derived.length > 0) out.push(`   env set here: ${derived.join(" ")}`);
    out.push(`   deploy section: ${JSON.stringify(app.deploySection)}`);
    for (const step of app.steps) {
      out.push(`   # ${step.note}${step.existingOk ? " (exists already: fine)" : ""}`);
      out.push(`   $ deno ${step.args.map(shellQuote).join(" ")}`);
    }
  });
  return out.join("\n");
}

/**
 * One line of a .env file that `deno deploy env load` (std dotenv) reads back as `value`:
 * single quotes keep everything but a single quote; double quotes take one when there is no
 * double quote, backslash or line break.
 */
export function dotenvLine(name: string, value: string): string {
  if (!value.includes("'")) return `${name}='${value}'`;
  if (!/["\\\r\n]/.test(value)) return `${name}="${value}"`;
  throw new UsageError(
    `Cannot write ${name} to a .env file: its value holds both quote kinds (or a quote and a line break); set it with deno deploy env add instead`,
  );
}

function envFileText(app: AppPlan, env: Record<string, string | undefined>): string {
  const lines = app.given.map((name) => dotenvLine(name, env[name]!));
  for (const [name, value] of Object.entries(app.derived)) lines.push(dotenvLine(name, value));
  return lines.join("\n") + "\n";
}

/** What goes into an app's upload besides its deno.json. */
const UPLOAD_ROOTS = ["deno.lock", "shared", "services", "infra"];

/** Left out of the upload: tests, local data, built or installed files, these tools. */
function uploaded(relative: string): boolean {
  return !(
    relative.endsWith("_test.ts") ||
    /(^|\/)(node_modules|data|test-results)(\/|$)/.test(relative) ||
    relative.startsWith("services/web/dist") ||
    /^infra\/[^/]+\//.test(relative)
  );
}

async function copyTree(from: string, to: string, relative: string): Promise<void> {
  const info = await Deno.stat(`${from}/${relative}`);
  if (info.isFile) {
    await Deno.copyFile(`${from}/${relative}`, `${to}/${relative}`);
    return;
  }
  await Deno.mkdir(`${to}/${relative}`, { recursive: true });
  for await (const entry of Deno.readDir(`${from}/${relative}`)) {
    const child = `${relative}/${entry.name}`;
    if (uploaded(child)) await copyTree(from, to, child);
  }
}

/** Writes an app's upload directory: the sources and its deno.json with the deploy section. */
async function writeUpload(app: AppPlan, dir: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  for (const root of UPLOAD_ROOTS) await copyTree(REPO_ROOT, dir, root);
  const config = JSON.parse(await Deno.readTextFile(`${REPO_ROOT}/deno.json`));
  config.deploy = app.deploySection;
  await Deno.writeTextFile(`${dir}/deno.json`, JSON.stringify(config, null, 2) + "\n");
}

async function run(plan: Plan, env: Record<string, string | undefined>): Promise<void> {
  const work = await Deno.makeTempDir({ prefix: "cps-deploy-" });
  const done: string[] = [];
  try {
    await Deno.mkdir(`${work}/env`, { mode: 0o700 });
    for (const app of plan.apps) {
      const dir = `${work}/apps/${app.service.name}`;
      await writeUpload(app, dir);
      await Deno.writeTextFile(`${work}/env/${app.service.name}.env`, envFileText(app, env), {
        mode: 0o600,
      });
      for (const step of app.steps) {
        const args = step.args.map((a) => a.replaceAll(WORK_PLACEHOLDER, work));
        console.log(
          `\n[${app.service.name}] ${step.note}\n$ deno ${args.map(shellQuote).join(" ")}`,
        );
        const { code } = await new Deno.Command(env[DEPLOY_SETTINGS.deno] || Deno.execPath(), {
          args,
          stdin: "null",
          stdout: "inherit",
          stderr: "inherit",
        }).output();
        if (code === 0 || (step.existingOk && code === CLI_CONFLICT)) continue;
        throw new Error(
          `deno ${step.args.slice(0, 3).join(" ")} failed (exit ${code}) for ${app.service.name}; ${
            done.length > 0 ? `deployed before it: ${done.join(", ")}` : "nothing was deployed"
          }`,
        );
      }
      done.push(app.service.name);
    }
    console.log(`\nDeployed ${done.join(", ")}. The gateway is at ${env.PUBLIC_URL}`);
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}

export async function main(args: string[]): Promise<number> {
  let options: Options;
  let plan: Plan;
  const env = Deno.env.toObject();
  try {
    options = parseArgs(args);
    plan = buildPlan(env, options);
    // Every value must fit a .env file before anything runs.
    for (const app of plan.apps) envFileText(app, env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(err.message);
    return 1;
  }
  console.log(formatPlan(plan, options));
  if (options.dryRun) return 0;
  try {
    await run(plan, env);
    return 0;
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    return 1;
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
