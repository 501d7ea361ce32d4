/**
 * What each app of a Deno Deploy deployment is: one app per service (and one for the gateway),
 * its entrypoint, the peers it calls, whether it has a KV database of its own, and the
 * environment it needs. `deploy.ts` turns this into `deno deploy` commands; `services_test.ts`
 * checks it against the code (every service has an entry, every variable named here is read by
 * that service's config parser, every client a service builds has its `<PEER>_URL`), so it
 * cannot drift from what the services read.
 */
import { SERVICE_NAMES, type ServiceName } from "../../shared/config.ts";

/** An app of the deployment: every service, and the gateway in front of them. */
export type AppName = ServiceName | "gateway";

export interface DeployedService {
  name: AppName;
  /** The module Deploy runs (`deploy.runtime.entrypoint`), relative to the repository root */
  entrypoint: string;
  /** The services this one calls: each gets `<PEER>_URL` */
  peers: readonly ServiceName[];
  /** true: a Deno KV database of its own is provisioned and assigned (DATA_DIR=deno-deploy) */
  kv: boolean;
  /** Variables the operator must give (from the environment `deno task deploy` runs in) */
  required: readonly string[];
  /** Variables passed on when the operator has set them; the service's default otherwise */
  optional: readonly string[];
  /** Variables with a value fixed by the deployment itself */
  fixed: Readonly<Record<string, string>>;
  /** `deploy.build`: a command Deploy's builder runs before the app starts */
  build?: string;
}

/** Every service that keeps a keyspace (admin exports and imports them all), admin aside. */
const KEYSPACE_SERVICES: readonly ServiceName[] = SERVICE_NAMES.filter((name) =>
  !["admin", "mcp", "web"].includes(name)
);

/** Every app reads these; PUBLIC_URL is the gateway's public address (token issuer, links). */
const COMMON_REQUIRED = ["INTERNAL_SECRET", "PUBLIC_URL"] as const;
const COMMON_OPTIONAL = ["LOG_LEVEL"] as const;

/** Email and DM delivery (shared/delivery/config.ts): auth, posts and actions send. */
const DELIVERY = ["SMTP_URL", "MAIL_FROM", "SLACK_BOT_TOKEN", "SLACK_API_URL"] as const;

/** The AI backend (shared/ai/config.ts): genai, and ideas for titles. */
const AI_BACKEND = [
  "OPENAI_BASE_URL",
  "OPENAI_API_KEY",
  "OPENAI_MODEL",
  "AI_TIMEOUT_MS",
  "AI_RETRY_BACKOFF_MS",
] as const;

/** The S3 asset store (shared/assets/config.ts): isolates share no disk, so `file:` is out. */
const S3_REQUIRED = ["ASSETS_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"] as const;
const S3_OPTIONAL = ["AWS_SESSION_TOKEN"] as const;

/** The KV database Deploy attached to the app (shared/kv/kv.ts). */
const OWN_KV = { DATA_DIR: "deno-deploy" } as const;

/**
 * Where the outbox (a copy of every email and DM, one JSON line each) is appended. On Deploy
 * it is a scratch file of one isolate, gone with it: the deliveries that count are SMTP and
 * Slack. /tmp is writable on every Linux sandbox.
 */
const OUTBOX = { OUTBOX_FILE: "/tmp/outbox.jsonl" } as const;

function service(
  name: AppName,
  spec: Omit<DeployedService, "name" | "entrypoint" | "required" | "optional" | "fixed"> & {
    required?: readonly string[];
    optional?: readonly string[];
    fixed?: Readonly<Record<string, string>>;
  },
): DeployedService {
  return {
    name,
    entrypoint: `services/${name}/main.ts`,
    ...spec,
    required: [...COMMON_REQUIRED, ...spec.required ?? []],
    optional: [...COMMON_OPTIONAL, ...spec.optional ?? []],
    fixed: { ...(spec.kv ? OWN_KV : {}), ...spec.fixed },
  };
}

/** The deployment, one entry per app. */
export const DEPLOYED_SERVICES: readonly DeployedService[] = [
  service("gateway", {
    // It routes every public request to its owner and asks each service for its health.
    peers: SERVICE_NAMES,
    kv: false,
    // With an s3:// store the gateway serves the single-use attachment upload URLs and streams
    // their bytes into the bucket (the bucket serves its own presigned download URLs).
    required: S3_REQUIRED,
    optional: ["OAUTH_CLIENT_ID", "TRUSTED_PROXIES", ...S3_OPTIONAL],
  }),
  service("auth", {
    peers: [],
    kv: true,
    optional: [
      "OAUTH_CLIENT_ID",
      "OAUTH_REDIRECT_URIS",
      "STAGE",
      "JWT_PRIVATE_JWK",
      "ADMIN_EMAIL",
      "ADMIN_PASSWORD",
      "ADMIN_NAME",
      "RECAPTCHA_SECRET",
      "RECAPTCHA_VERIFY_URL",
      "GOOGLE_CLIENT_ID",
      "GOOGLE_CLIENT_SECRET",
      "GOOGLE_ISSUER",
      ...DELIVERY,
    ],
    fixed: OUTBOX,
  }),
  service("workspaces", { peers: ["auth"], kv: true }),
  service("ideas", {
    peers: ["auth", "workspaces"],
    kv: true,
    // Titles come from the AI backend in process (shared/ai), under ideas' own deadline.
    optional: ["CAPTURES_PER_MINUTE", ...AI_BACKEND],
  }),
  service("actions", {
    peers: ["auth", "workspaces"],
    kv: true,
    required: S3_REQUIRED,
    optional: [
      ...S3_OPTIONAL,
      "ATTACHMENT_URL_TTL_SECONDS",
      "ATTACHMENT_CLEANUP_MARGIN_SECONDS",
      ...DELIVERY,
    ],
    fixed: OUTBOX,
  }),
  service("prompts", { peers: ["workspaces"], kv: true }),
  service("posts", {
    peers: ["auth", "workspaces", "ideas", "collab"],
    kv: true,
    // Without it posts keeps its key in a file under DATA_DIR: each isolate would make its own
    // and could not open the tokens another sealed.
    // Post media live in the shared asset store (S3 when deployed apart).
    required: ["LINKEDIN_TOKEN_KEY", ...S3_REQUIRED],
    optional: [
      ...S3_OPTIONAL,
      "ATTACHMENT_URL_TTL_SECONDS",
      "ATTACHMENT_CLEANUP_MARGIN_SECONDS",
      "LINKEDIN_ORGANIZATIONS",
      "LINKEDIN_UPLOAD_TIMEOUT_MS",
      "LINKEDIN_CLIENT_ID",
      "LINKEDIN_CLIENT_SECRET",
      "LINKEDIN_AUTH_URL",
      "LINKEDIN_API_URL",
      "LINKEDIN_VERSION",
      "LINKEDIN_TIMEOUT_MS",
      "LINKEDIN_EXPIRY_CHECK_MS",
      "POSTS_LIVE_TEXT_CHECK_MS",
      ...DELIVERY,
    ],
    fixed: OUTBOX,
  }),
  service("genai", {
    peers: ["workspaces", "prompts", "ideas", "posts"],
    kv: true,
    optional: [
      ...AI_BACKEND,
      "AI_CALLS_PER_MINUTE",
      "PROOFREAD_CHECKER_PRELOAD",
      "PROOFREAD_CHECKER_IDLE_SECONDS",
    ],
  }),
  service("collab", {
    peers: ["auth", "workspaces"],
    kv: true,
    optional: [
      "COLLAB_COMPACT_AFTER",
      "COLLAB_IDLE_TIMEOUT_MS",
      "COLLAB_MEMBERSHIP_CHECK_MS",
      "COLLAB_ROOM_GRACE_MS",
      "COLLAB_MAX_CONNECTIONS_PER_USER",
      "COLLAB_MAX_TEXT_CHARS",
      "COLLAB_FOLLOW_POLL_MS",
    ],
  }),
  service("admin", {
    // Its own clients, and every keyspace for backups and restores.
    peers: KEYSPACE_SERVICES,
    kv: true,
    required: S3_REQUIRED,
    optional: [...S3_OPTIONAL, "RESTORE_MAX_BYTES"],
  }),
  service("mcp", { peers: ["workspaces", "ideas", "posts", "genai"], kv: false }),
  service("web", {
    peers: [],
    kv: false,
    // ASSETS_URL: with S3, the page lets pictures come from the bucket's origin.
    optional: ["OAUTH_CLIENT_ID", "RECAPTCHA_SITE_KEY", "ASSETS_URL"],
    // The bundle is not in the repository: Deploy's builder makes it.
    build: "deno task web:build",
  }),
];

/**
 * Variables a service's parser reads that a Deploy app is not given, and why. The
 * drift test accepts these without a deployment entry.
 */
export const NOT_DEPLOYED: Readonly<Record<string, string>> = {
  PORT: "Deploy routes traffic to the server the app starts",
  HOST: "Deploy routes traffic to the server the app starts",
  ASSETS_SIGNING_KEY: "Deploy signs the gateway's upload URLs with INTERNAL_SECRET",
  WEB_DIST_DIR: "the builder writes the bundle where the web service looks by default",
};

/** The `<NAME>_URL` variable that tells a service where `name` is. */
export function peerUrlVariable(name: ServiceName): string {
  return `${name.toUpperCase()}_URL`;
}

/**
 * The deployment order: a service after the peers it calls (the calls run one way, so this is
 * a plain topological order), ties in SERVICE_NAMES order, and the gateway last, once
 * everything it routes to is up.
 */
export function deployOrder(
  services: readonly DeployedService[] = DEPLOYED_SERVICES,
): DeployedService[] {
  const byName = new Map(services.map((s) => [s.name, s]));
  const pending = [...SERVICE_NAMES].filter((n) => byName.has(n));
  const done = new Set<AppName>();
  const order: DeployedService[] = [];
  while (pending.length > 0) {
    const index = pending.findIndex((name) =>
      byName.get(name)!.peers.every((peer) => done.has(peer) || !byName.has(peer))
    );
    if (index < 0) {
      throw new Error(`Cannot order the deployment: a call cycle among ${pending.join(", ")}`);
    }
    const [name] = pending.splice(index, 1);
    done.add(name);
    order.push(byName.get(name)!);
  }
  const gateway = byName.get("gateway");
  if (gateway) order.push(gateway);
  return order;
}

/**
 * Variables that hold a secret. `deno deploy env load` marks a variable secret by its name
 * (KEY, SECRET, TOKEN, PASSWORD, PRIVATE...); every other one is loaded as plain text, so the
 * console shows it. SMTP_URL carries credentials but no such word: docs/deploy.md says to mark
 * it secret in the console.
 */
export const SECRETS: ReadonlySet<string> = new Set([
  "INTERNAL_SECRET",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "LINKEDIN_TOKEN_KEY",
  "LINKEDIN_CLIENT_SECRET",
  "JWT_PRIVATE_JWK",
  "ADMIN_PASSWORD",
  "RECAPTCHA_SECRET",
  "GOOGLE_CLIENT_SECRET",
  "SMTP_URL",
  "SLACK_BOT_TOKEN",
  "OPENAI_API_KEY",
]);
