import { z } from "zod";
import { LOG_LEVELS, type LogLevel } from "./log.ts";

/** Raised when an environment variable is malformed; `message` is the one line to print. */
export class ConfigError extends Error {}

export const SERVICE_NAMES = [
  "auth",
  "workspaces",
  "ideas",
  "actions",
  "prompts",
  "posts",
  "genai",
  "collab",
  "admin",
  "mcp",
  "web",
] as const;
export type ServiceName = typeof SERVICE_NAMES[number];

const port = z.coerce.number().int().min(0).max(65535);
const httpUrl = z.string().url().refine((v) => /^https?:\/\//.test(v), "must be an http(s) URL");
const emptyToUndefined = (v: unknown) => (v === "" ? undefined : v);

/** Settings every service reads. Service configs extend this with their own variables. */
export const baseEnvShape = {
  PORT: port.default(8000),
  HOST: z.preprocess(emptyToUndefined, z.string().min(1).default("0.0.0.0")),
  LOG_LEVEL: z.preprocess(emptyToUndefined, z.enum(LOG_LEVELS).default("info")),
  /** The hosted login's client: auth accepts it, the gateway checks it as the JWT audience. */
  OAUTH_CLIENT_ID: z.preprocess(
    emptyToUndefined,
    z.string().min(1).max(200).default("content-pipeline"),
  ),
  DATA_DIR: z.string().min(1).default("./data"),
  PUBLIC_URL: z.preprocess(emptyToUndefined, httpUrl.optional()),
  STAGE: z.string().default("prod"),
  INTERNAL_SECRET: z.preprocess(emptyToUndefined, z.string().min(16).optional()),
  OUTBOX_FILE: z.preprocess(emptyToUndefined, z.string().optional()),
  /** Set by Deno Deploy in every deployment's isolates */
  DENO_DEPLOYMENT_ID: z.string().optional(),
  AUTH_URL: z.preprocess(emptyToUndefined, httpUrl.optional()),
  WORKSPACES_URL: z.preprocess(emptyToUndefined, httpUrl.optional()),
  IDEAS_URL: z.preprocess(emptyToUndefined, httpUrl.optional()),
  ACTIONS_URL: z.preprocess(emptyToUndefined, httpUrl.optional()),
  PROMPTS_URL: z.preprocess(emptyToUndefined, httpUrl.optional()),
  POSTS_URL: z.preprocess(emptyToUndefined, httpUrl.optional()),
  GENAI_URL: z.preprocess(emptyToUndefined, httpUrl.optional()),
  COLLAB_URL: z.preprocess(emptyToUndefined, httpUrl.optional()),
  ADMIN_URL: z.preprocess(emptyToUndefined, httpUrl.optional()),
  MCP_URL: z.preprocess(emptyToUndefined, httpUrl.optional()),
  WEB_URL: z.preprocess(emptyToUndefined, httpUrl.optional()),
};

export const optionalUrl = z.preprocess(emptyToUndefined, httpUrl.optional());
export { emptyToUndefined, httpUrl, port };

export interface BaseConfig {
  port: number;
  /** The address the server listens on (`HOST`) */
  host: string;
  logLevel: LogLevel;
  oauthClientId: string;
  dataDir: string;
  publicUrl: string;
  stage: string;
  internalSecret: string;
  /** false: INTERNAL_SECRET was not set and `internalSecret` is a random one */
  internalSecretGiven: boolean;
  outboxFile: string;
  serviceUrls: Partial<Record<ServiceName, string>>;
  /** Running on Deno Deploy (`DENO_DEPLOYMENT_ID` is set) */
  onDenoDeploy: boolean;
}

/** Parses `env` against `shape`, throwing a ConfigError whose message names the bad variable. */
export function parseEnv<T extends z.ZodRawShape>(
  shape: T,
  env: Record<string, string | undefined>,
): z.infer<z.ZodObject<T>> {
  const result = z.object(shape).safeParse(env);
  if (!result.success) {
    const issue = result.error.issues[0];
    const name = String(issue?.path[0] ?? "environment");
    throw new ConfigError(`Invalid environment variable ${name}: ${issue?.message ?? "malformed"}`);
  }
  return result.data;
}

/**
 * The base settings with their derived defaults. In one process a random internal secret is
 * made when none is given; a service running alone must be given the shared one.
 */
export function parseBaseConfig(
  env: Record<string, string | undefined>,
  { requireSecret = false }: { requireSecret?: boolean } = {},
): BaseConfig {
  const raw = parseEnv(baseEnvShape, env);
  if (requireSecret && !raw.INTERNAL_SECRET) {
    throw new ConfigError(
      "Invalid environment variable INTERNAL_SECRET: required (16 characters or more) when a service runs alone",
    );
  }
  const serviceUrls: Partial<Record<ServiceName, string>> = {};
  for (const name of SERVICE_NAMES) {
    const url = raw[`${name.toUpperCase()}_URL` as keyof typeof raw] as string | undefined;
    if (url) serviceUrls[name] = url.replace(/\/+$/, "");
  }
  return {
    port: raw.PORT,
    host: raw.HOST,
    logLevel: raw.LOG_LEVEL,
    oauthClientId: raw.OAUTH_CLIENT_ID,
    dataDir: raw.DATA_DIR,
    publicUrl: (raw.PUBLIC_URL ?? `http://localhost:${raw.PORT}`).replace(/\/+$/, ""),
    stage: raw.STAGE,
    internalSecret: raw.INTERNAL_SECRET ?? crypto.randomUUID() + crypto.randomUUID(),
    internalSecretGiven: raw.INTERNAL_SECRET !== undefined,
    outboxFile: raw.OUTBOX_FILE ?? `${raw.DATA_DIR}/outbox.jsonl`,
    serviceUrls,
    onDenoDeploy: raw.DENO_DEPLOYMENT_ID !== undefined,
  };
}

/** Runs a config parser at start-up; a ConfigError stops the process with its one line. */
export function loadOrExit<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      Deno.exit(1);
    }
    throw err;
  }
}
