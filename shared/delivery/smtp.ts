import { newId } from "../ids.ts";

/**
 * A small ESMTP client (RFC 5321) over Deno's own sockets: `smtp://` connects in plain text and
 * upgrades with STARTTLS when the server offers it, `smtps://` uses implicit TLS. Credentials in
 * the URL are sent with AUTH PLAIN (or LOGIN when that is all the server offers).
 */

export interface SmtpTarget {
  secure: boolean;
  host: string;
  port: number;
  username?: string;
  password?: string;
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
  /** Longest wait for the connection and for each reply, in milliseconds. */
  timeoutMs?: number;
  /** The name given in EHLO. */
  clientName?: string;
  /** Extra trusted certificates (PEM), for servers with a private CA. */
  caCerts?: string[];
}

const DEFAULT_TIMEOUT_MS = 30_000;

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
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return {
    secure,
    host,
    port,
    username: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
  };
}

/** Splits `Name <address>` into its parts; a bare address has no name. */
export function parseMailbox(value: string): { name?: string; address: string } {
  const clean = stripBreaks(value).trim();
  const match = /^(.*?)\s*<([^<>]+)>$/.exec(clean);
  if (!match) return { address: clean };
  const name = match[1].trim().replace(/^"(.*)"$/, "$1").trim();
  return { name: name || undefined, address: match[2].trim() };
}

function stripBreaks(value: string): string {
  return value.replace(/[\r\n]+/g, " ");
}

const ASCII_PRINTABLE = /^[\x20-\x7e\t]*$/;

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/**
 * A header value as RFC 2047 encoded words when it is not plain ASCII (or too long for one
 * line), each word at most 75 characters and never splitting a character, folded with CRLF SP.
 */
export function encodeHeaderValue(value: string): string {
  const clean = stripBreaks(value);
  if (ASCII_PRINTABLE.test(clean) && clean.length <= 900) return clean;
  const encoder = new TextEncoder();
  const words: string[] = [];
  let chunk = "";
  let chunkBytes = 0;
  for (const char of clean) {
    const size = encoder.encode(char).length;
    if (chunkBytes + size > 45 && chunk) {
      words.push(`=?UTF-8?B?${base64(encoder.encode(chunk))}?=`);
      chunk = "";
      chunkBytes = 0;
    }
    chunk += char;
    chunkBytes += size;
  }
  if (chunk) words.push(`=?UTF-8?B?${base64(encoder.encode(chunk))}?=`);
  return words.join("\r\n ");
}

function formatMailbox(value: string): string {
  const { name, address } = parseMailbox(value);
  if (!name) return address;
  const display = ASCII_PRINTABLE.test(name)
    ? `"${name.replace(/["\\]/g, "\\$&")}"`
    : encodeHeaderValue(name);
  return `${display} <${address}>`;
}

/** An RFC 5322 date: `Tue, 01 Dec 2026 10:15:30 +0000`. */
function formatDate(date: Date): string {
  return date.toUTCString().replace(/GMT$/, "+0000");
}

/**
 * The message as sent after DATA, before dot-stuffing: headers, a blank line and the body, with
 * CRLF line endings. The body goes as 7bit when it is short-lined ASCII, as base64 otherwise.
 */
export function formatMessage(mail: Mail): string {
  const from = parseMailbox(mail.from);
  const domain = from.address.includes("@") ? from.address.split("@").pop()! : "localhost";
  const body = mail.text.replace(/\r\n|\r|\n/g, "\r\n");
  const lines = body.split("\r\n");
  const plain = lines.every((l) => l.length <= 998 && ASCII_PRINTABLE.test(l));
  const encodedBody = plain
    ? body
    : (base64(new TextEncoder().encode(body)).match(/.{1,76}/g) ?? []).join("\r\n");
  const headers = [
    `From: ${formatMailbox(mail.from)}`,
    `To: ${parseMailbox(mail.to).address}`,
    `Subject: ${encodeHeaderValue(mail.subject)}`,
    `Date: ${formatDate(mail.date ?? new Date())}`,
    `Message-ID: <${newId()}.${crypto.randomUUID().slice(0, 8)}@${domain}>`,
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=utf-8",
    `Content-Transfer-Encoding: ${plain ? "7bit" : "base64"}`,
  ];
  return headers.join("\r\n") + "\r\n\r\n" + encodedBody + "\r\n";
}

/** Dot-stuffing (RFC 5321 4.5.2) and the terminating `.` line. */
export function dotStuff(message: string): string {
  const stuffed = message.split("\r\n").map((l) => (l.startsWith(".") ? "." + l : l)).join(
    "\r\n",
  );
  return (stuffed.endsWith("\r\n") ? stuffed : stuffed + "\r\n") + ".\r\n";
}

interface Reply {
  code: number;
  lines: string[];
}

class TimeoutError extends Error {}

/** One SMTP session: line-buffered reads with a timeout, whole writes. */
class Session {
  private buffer = new Uint8Array(0);
  private readonly decoder = new TextDecoder();
  private readonly encoder = new TextEncoder();

  /** The step in progress, for errors that do not say it themselves (TLS, resets). */
  step = "greeting";

  constructor(public conn: Deno.Conn, private readonly timeoutMs: number) {}

  private async withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TimeoutError(`SMTP timed out ${what}`)), this.timeoutMs);
    });
    try {
      return await Promise.race([promise, timeout]);
    } catch (err) {
      if (err instanceof TimeoutError) this.close();
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  private async readLine(what: string): Promise<string> {
    while (true) {
      const nl = this.buffer.indexOf(10);
      if (nl >= 0) {
        const line = this.decoder.decode(this.buffer.subarray(0, nl)).replace(/\r$/, "");
        this.buffer = this.buffer.slice(nl + 1);
        return line;
      }
      if (this.buffer.length > 64 * 1024) throw new Error(`SMTP reply to ${what} is too long`);
      const chunk = new Uint8Array(4096);
      const n = await this.withTimeout(this.conn.read(chunk), `waiting for the reply to ${what}`);
      if (n === null) throw new Error(`SMTP server closed the connection before ${what} answered`);
      const merged = new Uint8Array(this.buffer.length + n);
      merged.set(this.buffer);
      merged.set(chunk.subarray(0, n), this.buffer.length);
      this.buffer = merged;
    }
  }

  /** Reads one reply, multi-line (`250-...`) until its last line (`250 ...`). */
  async reply(what: string): Promise<Reply> {
    const lines: string[] = [];
    while (true) {
      const line = await this.readLine(what);
      const match = /^(\d{3})([ -]?)(.*)$/.exec(line);
      if (!match) throw new Error(`SMTP ${what} got a malformed reply: ${line.slice(0, 200)}`);
      lines.push(match[3]);
      if (match[2] !== "-") return { code: Number(match[1]), lines };
    }
  }

  /** Completes a TLS handshake now, so a bad certificate fails the STARTTLS step. */
  async handshake(tls: Deno.TlsConn): Promise<void> {
    await this.withTimeout(tls.handshake(), "in the TLS handshake");
  }

  async write(text: string, what: string): Promise<void> {
    const bytes = this.encoder.encode(text);
    let written = 0;
    while (written < bytes.length) {
      written += await this.withTimeout(
        this.conn.write(bytes.subarray(written)),
        `sending ${what}`,
      );
    }
  }

  /** Sends `line` (unless undefined) and reads the reply; throws unless `accept(code)`. */
  async command(
    line: string | undefined,
    what: string,
    accept: (code: number) => boolean = (code) => code >= 200 && code < 400,
  ): Promise<Reply> {
    this.step = what;
    if (line !== undefined) await this.write(line + "\r\n", what);
    const reply = await this.reply(what);
    if (!accept(reply.code)) {
      throw new Error(`SMTP ${what} failed: ${reply.code} ${reply.lines.join(" ").slice(0, 500)}`);
    }
    return reply;
  }

  /** Whether unread bytes wait in the buffer (must be none before STARTTLS). */
  get pending(): boolean {
    return this.buffer.length > 0;
  }

  close() {
    try {
      this.conn.close();
    } catch { /* already closed */ }
  }
}

function defaultClientName(): string {
  try {
    const name = Deno.hostname();
    if (/^[A-Za-z0-9][A-Za-z0-9.-]*$/.test(name)) return name;
  } catch { /* no sys permission */ }
  return "localhost";
}

const is2xx = (code: number) => code >= 200 && code < 300;
const is3xx = (code: number) => code >= 300 && code < 400;

/** The EHLO keywords (upper-cased) with their parameters. */
function capabilities(reply: Reply): Map<string, string[]> {
  const caps = new Map<string, string[]>();
  for (const line of reply.lines.slice(1)) {
    const [keyword, ...params] = line.trim().split(/\s+/);
    if (keyword) caps.set(keyword.toUpperCase(), params.map((p) => p.toUpperCase()));
  }
  return caps;
}

async function connect(target: SmtpTarget, options: SmtpOptions, timeoutMs: number) {
  const opening = target.secure
    ? Deno.connectTls({ hostname: target.host, port: target.port, caCerts: options.caCerts })
    : Deno.connect({ hostname: target.host, port: target.port });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`SMTP timed out connecting to ${target.host}:${target.port}`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([opening, timeout]);
  } catch (err) {
    opening.then((c) => c.close(), () => {});
    const message = err instanceof Error ? err.message : String(err);
    if (message.startsWith("SMTP ")) throw err;
    throw new Error(`SMTP connection to ${target.host}:${target.port} failed: ${message}`, {
      cause: err,
    });
  } finally {
    clearTimeout(timer);
  }
}

async function ehlo(session: Session, name: string): Promise<Map<string, string[]>> {
  const reply = await session.command(`EHLO ${name}`, "EHLO", () => true);
  if (is2xx(reply.code)) return capabilities(reply);
  // A server without ESMTP: HELO, and no extensions.
  await session.command(`HELO ${name}`, "HELO", is2xx);
  return new Map();
}

/**
 * Sends one plain-text message through the server at `url`. Resolves once the server has
 * accepted it (250 after DATA); any other reply, a timeout or a dropped connection throws an
 * Error naming the command and the reply.
 */
export async function sendMail(url: string, mail: Mail, options: SmtpOptions = {}): Promise<void> {
  const target = parseSmtpUrl(url);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const name = options.clientName ?? defaultClientName();
  const from = parseMailbox(mail.from).address;
  const to = parseMailbox(mail.to).address;
  if (!from || /[\s<>]/.test(from)) throw new Error(`Cannot send mail: bad sender "${from}"`);
  if (!to || /[\s<>]/.test(to)) throw new Error(`Cannot send mail: bad recipient "${to}"`);

  const conn = await connect(target, options, timeoutMs);
  const session = new Session(conn, timeoutMs);
  try {
    await session.command(undefined, "greeting", is2xx);
    let caps = await ehlo(session, name);

    if (!target.secure && caps.has("STARTTLS")) {
      await session.command("STARTTLS", "STARTTLS", is2xx);
      if (session.pending) throw new Error("SMTP STARTTLS failed: data arrived before TLS");
      session.step = "STARTTLS (TLS handshake)";
      const tls = await Deno.startTls(session.conn as Deno.TcpConn, {
        hostname: target.host,
        caCerts: options.caCerts,
      });
      session.conn = tls;
      await session.handshake(tls);
      caps = await ehlo(session, name);
    }

    if (target.username !== undefined) {
      const methods = caps.get("AUTH") ?? [];
      const user = target.username;
      const pass = target.password ?? "";
      if (methods.includes("PLAIN") || !methods.includes("LOGIN")) {
        const token = base64(new TextEncoder().encode(`\0${user}\0${pass}`));
        await session.command(`AUTH PLAIN ${token}`, "AUTH PLAIN", is2xx);
      } else {
        await session.command("AUTH LOGIN", "AUTH LOGIN", is3xx);
        await session.command(base64(new TextEncoder().encode(user)), "AUTH LOGIN username", is3xx);
        await session.command(base64(new TextEncoder().encode(pass)), "AUTH LOGIN password", is2xx);
      }
    }

    await session.command(`MAIL FROM:<${from}>`, "MAIL FROM", is2xx);
    await session.command(`RCPT TO:<${to}>`, "RCPT TO", is2xx);
    await session.command("DATA", "DATA", is3xx);
    await session.write(dotStuff(formatMessage(mail)), "the message");
    await session.command(undefined, "DATA (end of message)", is2xx);
    try {
      await session.command("QUIT", "QUIT", () => true);
    } catch { /* the message is accepted; a rude goodbye does not matter */ }
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (message.startsWith("SMTP ")) throw err;
    throw new Error(`SMTP ${session.step} failed: ${message}`, { cause: err });
  } finally {
    session.close();
  }
}
