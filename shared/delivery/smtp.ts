import nodemailerModule from "nodemailer";

/**
 * Email over SMTP with nodemailer. `smtp://` connects in plain text and upgrades with STARTTLS;
 * with credentials in the URL STARTTLS is required, so a server (or a man in the middle) that
 * does not offer it never sees the password: the send fails before AUTH. Only an explicit
 * `?insecure_auth=true` allows AUTH over a cleartext connection. `smtps://` uses implicit TLS.
 */

export interface SmtpTarget {
  secure: boolean;
  host: string;
  port: number;
  username?: string;
  password?: string;
  /** `?insecure_auth=true`: credentials may go over a connection without TLS. */
  insecureAuth: boolean;
}

export interface Mail {
  /** `Name <address>` or a bare address (MAIL_FROM). */
  from: string;
  to: string;
  subject: string;
  text: string;
  date?: Date;
}

export interface SmtpOptions {
  /** Longest wait for the connection, the greeting and each reply, in milliseconds. */
  timeoutMs?: number;
  /** Longest wait for the TCP (or TLS) connection alone; `timeoutMs` when not given. */
  connectTimeoutMs?: number;
  /** The name given in EHLO. */
  clientName?: string;
  /** Extra trusted certificates (PEM), for servers with a private CA. */
  caCerts?: string[];
}

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The part of nodemailer used here. Typed by hand: `@types/nodemailer` pulls in a newer
 * `@types/node` whose globals (Uint8Array, CryptoKey) break type checks elsewhere in the project.
 */
interface Transporter {
  sendMail(message: {
    from: string | { name: string; address: string };
    to: string;
    subject: string;
    text: string;
    date?: Date;
  }): Promise<unknown>;
  close(): void;
}
const nodemailer = nodemailerModule as unknown as {
  createTransport(options: ReturnType<typeof transportOptions>): Transporter;
};

/** The one query parameter SMTP_URL takes. */
export const INSECURE_AUTH_PARAM = "insecure_auth";

/** Parses an SMTP_URL; throws an Error saying what is wrong. */
export function parseSmtpUrl(value: string): SmtpTarget {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error("must be a URL like smtp://user:pass@host:port or smtps://...");
  }
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:") {
    throw new Error("must start with smtp:// or smtps://");
  }
  if (!url.hostname) throw new Error("has no host");
  const secure = url.protocol === "smtps:";
  const port = url.port ? Number(url.port) : secure ? 465 : 587;
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error("has an invalid port");
  let insecureAuth = false;
  for (const [name, param] of url.searchParams) {
    if (name !== INSECURE_AUTH_PARAM) {
      throw new Error(`has an unknown parameter "${name}" (only ${INSECURE_AUTH_PARAM} is known)`);
    }
    if (param !== "true" && param !== "false") {
      throw new Error(`${INSECURE_AUTH_PARAM} must be true or false`);
    }
    insecureAuth = param === "true";
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return {
    secure,
    host,
    port,
    username: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    insecureAuth,
  };
}

/** Splits `Name <address>` into its parts; a bare address has no name. */
export function parseMailbox(value: string): { name?: string; address: string } {
  const clean = value.replace(/[\r\n]+/g, " ").trim();
  const match = /^(.*?)\s*<([^<>]+)>$/.exec(clean);
  if (!match) return { address: clean };
  const name = match[1].trim().replace(/^"(.*)"$/, "$1").trim();
  return { name: name || undefined, address: match[2].trim() };
}

function defaultClientName(): string {
  try {
    const name = Deno.hostname();
    if (/^[A-Za-z0-9][A-Za-z0-9.-]*$/.test(name)) return name;
  } catch { /* no sys permission */ }
  return "localhost";
}

/** The nodemailer transport settings for `target` (exported for tests). */
export function transportOptions(target: SmtpTarget, options: SmtpOptions = {}) {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const hasAuth = target.username !== undefined;
  return {
    host: target.host,
    port: target.port,
    secure: target.secure,
    // Credentials only ever travel encrypted, unless the URL says otherwise.
    requireTLS: !target.secure && hasAuth && !target.insecureAuth,
    auth: hasAuth ? { user: target.username!, pass: target.password ?? "" } : undefined,
    name: options.clientName ?? defaultClientName(),
    connectionTimeout: options.connectTimeoutMs ?? timeoutMs,
    greetingTimeout: timeoutMs,
    // The idle timer runs from the connect too: a second longer, so that the step timers above
    // speak first (a silent server is a greeting that never came, not a vague "Timeout").
    socketTimeout: timeoutMs + 1_000,
    tls: {
      servername: target.host,
      ...(options.caCerts ? { ca: options.caCerts } : {}),
    },
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}

interface NodemailerError {
  message?: string;
  code?: string;
  command?: string;
  response?: string;
}

/** nodemailer's error as one line naming the step: `SMTP RCPT TO failed: 451 ...`. */
function smtpError(err: unknown, target: SmtpTarget): Error {
  const e = (err ?? {}) as NodemailerError;
  const message = String(e.message ?? err);
  const detail = (e.response ?? message).replace(/\s+/g, " ").slice(0, 500);
  let step = e.command && e.command !== "API" ? e.command : undefined;
  if (e.code === "ETLS" || (!step && /STARTTLS/i.test(message))) step = "STARTTLS";
  if (e.code === "ETIMEDOUT" && /greeting/i.test(message)) step = "greeting";
  if (/certificate|\btls\b|\bssl\b/i.test(message) && (!step || step === "CONN")) {
    step = target.secure ? "TLS handshake" : "STARTTLS (TLS handshake)";
  }
  if (step === "CONN") {
    return new Error(`SMTP connection to ${target.host}:${target.port} failed: ${detail}`, {
      cause: err,
    });
  }
  if (e.code === "ETIMEDOUT") {
    return new Error(`SMTP ${step ?? "session"} failed: timed out (${detail})`, { cause: err });
  }
  return new Error(`SMTP ${step ?? "session"} failed: ${detail}`, { cause: err });
}

/**
 * Sends one plain-text message through the server at `url`. Resolves once the server has
 * accepted it; a refusal, a timeout, a dropped connection or a missing STARTTLS (with
 * credentials) throws an Error naming the step and the reply.
 */
export async function sendMail(url: string, mail: Mail, options: SmtpOptions = {}): Promise<void> {
  const target = parseSmtpUrl(url);
  const from = parseMailbox(mail.from);
  const to = parseMailbox(mail.to).address;
  if (!from.address || /[\s<>]/.test(from.address)) {
    throw new Error(`Cannot send mail: bad sender "${from.address}"`);
  }
  if (!to || /[\s<>]/.test(to)) throw new Error(`Cannot send mail: bad recipient "${to}"`);

  const transport = nodemailer.createTransport(transportOptions(target, options));
  try {
    await transport.sendMail({
      from: from.name ? { name: from.name, address: from.address } : from.address,
      to,
      subject: mail.subject.replace(/[\r\n]+/g, " "),
      text: mail.text,
      date: mail.date,
    });
  } catch (err) {
    throw smtpError(err, target);
  } finally {
    transport.close();
  }
}
