// deno-lint-ignore no-import-prefix -- test-only: kept out of deno.json so `deno task start` does not install it
import { SMTPServer, type SMTPServerError } from "npm:smtp-server@3.21.6";

/**
 * A loopback SMTP server (the `smtp-server` package: real SMTP on the wire) that keeps every
 * message it accepts, so a test can assert on the envelope, the headers and the body.
 */

export interface ReceivedMail {
  /** Envelope sender and recipients (MAIL FROM, RCPT TO). */
  from: string;
  to: string[];
  /** The message exactly as received after DATA (dot-stuffing already undone). */
  raw: string;
  /** Header values by lower-case name, folded lines joined. */
  headers: Map<string, string>;
  /** The body decoded from its Content-Transfer-Encoding. */
  body: string;
  /** The authenticated user, if the client authenticated. */
  user?: string;
  authMethod?: string;
  /** Whether the session was encrypted (STARTTLS or implicit TLS). */
  secure: boolean;
}

export interface FakeSmtpOptions {
  /** Require AUTH with these credentials (AUTH is not offered without them). */
  auth?: { username: string; password: string };
  /** The mechanisms to offer, `PLAIN` and `LOGIN` by default. */
  authMethods?: string[];
  /** A certificate to offer STARTTLS with (or implicit TLS with `implicitTls`). */
  tls?: { key: string; cert: string };
  implicitTls?: boolean;
  /** Answer this many RCPT TO commands with 451 before accepting. */
  failRcpt?: number;
}

export interface FakeSmtp {
  port: number;
  received: ReceivedMail[];
  /** Every AUTH attempt, successful or not. */
  authAttempts: { method: string; username: string; password: string; ok: boolean }[];
  /** Errors the server reported (failed TLS handshakes, dropped connections). */
  errors: Error[];
  /** Remaining RCPT TO commands to refuse with 451; tests may change it. */
  failRcpt: number;
  /** `smtp://` (or `smtps://` with implicit TLS) URL of this server, with credentials if given. */
  url(credentials?: { username: string; password: string }): string;
  close(): Promise<void>;
}

/** Splits a raw message into unfolded headers and a decoded body. */
export function parseRawMail(raw: string): { headers: Map<string, string>; body: string } {
  const split = raw.indexOf("\r\n\r\n");
  const head = split >= 0 ? raw.slice(0, split) : raw;
  const rawBody = split >= 0 ? raw.slice(split + 4) : "";
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r\n[ \t]/g, " ").split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  let body = rawBody;
  const encoding = headers.get("content-transfer-encoding")?.toLowerCase();
  if (encoding === "base64") {
    const bin = atob(rawBody.replace(/\s+/g, ""));
    body = new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
  } else if (encoding === "quoted-printable") {
    body = decodeQuotedPrintable(rawBody.replace(/=\r\n/g, ""));
  }
  return { headers, body: body.replace(/\r\n$/, "") };
}

/** `=XX` escapes as UTF-8 bytes (quoted-printable, soft line breaks already removed). */
function decodeQuotedPrintable(text: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "=" && /^[0-9A-F]{2}$/i.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...new TextEncoder().encode(text[i]));
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** Decodes RFC 2047 `=?UTF-8?B?...?=` and `=?UTF-8?Q?...?=` words in a header value. */
export function decodeHeader(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, "?==?")
    .replace(/=\?utf-8\?([bq])\?([^?]*)\?=/gi, (_, kind: string, text: string) => {
      if (kind.toLowerCase() === "q") return decodeQuotedPrintable(text.replaceAll("_", " "));
      const bin = atob(text);
      return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
    });
}

export async function startFakeSmtp(options: FakeSmtpOptions = {}): Promise<FakeSmtp> {
  const received: ReceivedMail[] = [];
  const authAttempts: FakeSmtp["authAttempts"] = [];
  const disabledCommands: string[] = [];
  if (!options.tls) disabledCommands.push("STARTTLS");
  if (!options.auth) disabledCommands.push("AUTH");

  const fake = { failRcpt: options.failRcpt ?? 0 } as FakeSmtp;

  const server = new SMTPServer({
    secure: Boolean(options.implicitTls),
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : {}),
    hideSTARTTLS: !options.tls,
    disabledCommands,
    authMethods: options.authMethods ?? ["PLAIN", "LOGIN"],
    authOptional: !options.auth,
    allowInsecureAuth: true,
    logger: false,
    closeTimeout: 200,
    onAuth(auth, _session, callback) {
      const ok = options.auth !== undefined && auth.username === options.auth.username &&
        auth.password === options.auth.password;
      authAttempts.push({
        method: auth.method,
        username: auth.username ?? "",
        password: auth.password ?? "",
        ok,
      });
      if (!ok) return callback(new Error("Invalid username or password"));
      callback(null, { user: auth.username });
    },
    onRcptTo(_address, _session, callback) {
      if (fake.failRcpt > 0) {
        fake.failRcpt--;
        const err: SMTPServerError = new Error("Mailbox busy, try again later");
        err.responseCode = 451;
        return callback(err);
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Uint8Array[] = [];
      stream.on("data", (chunk: Uint8Array) => chunks.push(chunk));
      stream.on("end", () => {
        const size = chunks.reduce((n, c) => n + c.length, 0);
        const all = new Uint8Array(size);
        let at = 0;
        for (const c of chunks) {
          all.set(c, at);
          at += c.length;
        }
        const raw = new TextDecoder().decode(all);
        const mailFrom = session.envelope.mailFrom;
        received.push({
          from: mailFrom ? mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          ...parseRawMail(raw),
          user: typeof session.user === "string" ? session.user : undefined,
          authMethod: authAttempts.findLast((a) => a.ok)?.method,
          secure: Boolean(session.secure),
        });
        callback();
      });
    },
  });

  const errors: Error[] = [];
  // A client that drops the connection or rejects the certificate is an event, not a crash.
  server.on("error", (err: Error) => errors.push(err));

  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.server.address();
  const port = typeof address === "object" && address ? address.port : 0;

  fake.port = port;
  fake.received = received;
  fake.authAttempts = authAttempts;
  fake.errors = errors;
  fake.url = (credentials) => {
    const scheme = options.implicitTls ? "smtps" : "smtp";
    const auth = credentials
      ? `${encodeURIComponent(credentials.username)}:${encodeURIComponent(credentials.password)}@`
      : "";
    return `${scheme}://${auth}${options.tls ? "localhost" : "127.0.0.1"}:${port}`;
  };
  fake.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return fake;
}

/**
 * A throwaway CA and a `localhost` / `127.0.0.1` server certificate it signed, made with the
 * `openssl` command; null when openssl is not installed (a TLS test then says it is skipped, see
 * `tlsTestName`).
 */
export async function createTestCertificate(): Promise<
  { key: string; cert: string; ca: string } | null
> {
  const dir = await Deno.makeTempDir({ prefix: "cps-tls-" });
  const run = async (...args: string[]) => {
    const out = await new Deno.Command("openssl", {
      args,
      cwd: dir,
      stdout: "null",
      stderr: "piped",
    })
      .output();
    if (!out.success) {
      throw new Error(`openssl ${args[0]} failed: ${new TextDecoder().decode(out.stderr)}`);
    }
  };
  try {
    await Deno.writeTextFile(
      `${dir}/leaf.ext`,
      "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\n" +
        "extendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n",
    );
    await run("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "ca.key");
    await run(
      "req",
      "-x509",
      "-new",
      "-key",
      "ca.key",
      "-sha256",
      "-days",
      "2",
      "-subj",
      "/CN=Test CA",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign",
      "-out",
      "ca.pem",
    );
    await run(
      "genpkey",
      "-algorithm",
      "EC",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-out",
      "leaf.key",
    );
    await run("req", "-new", "-key", "leaf.key", "-subj", "/CN=localhost", "-out", "leaf.csr");
    await run(
      "x509",
      "-req",
      "-in",
      "leaf.csr",
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-days",
      "2",
      "-sha256",
      "-extfile",
      "leaf.ext",
      "-out",
      "leaf.pem",
    );
    return {
      key: await Deno.readTextFile(`${dir}/leaf.key`),
      cert: await Deno.readTextFile(`${dir}/leaf.pem`),
      ca: await Deno.readTextFile(`${dir}/ca.pem`),
    };
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** A TLS test's name, saying it is skipped when no certificate could be made (no openssl). */
export function tlsTestName(name: string, cert: unknown): string {
  return cert ? name : `${name} (skipped: the openssl command is not installed)`;
}
