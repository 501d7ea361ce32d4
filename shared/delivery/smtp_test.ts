import assert from "node:assert/strict";
import {
  createTestCertificate,
  decodeHeader,
  startFakeSmtp,
  tlsTestName,
} from "../../tests/fakes/smtp.ts";
import { parseSmtpUrl, sendMail } from "./smtp.ts";

const opts = { sanitizeOps: false, sanitizeResources: false } as const;
const FROM = "Content Pipeline <no-reply@pipeline.test>";

/** The error `fn` rejects with; fails the test when it resolves. */
async function rejection(fn: () => Promise<unknown>): Promise<Error> {
  try {
    await fn();
  } catch (err) {
    assert.ok(err instanceof Error);
    return err;
  }
  throw new assert.AssertionError({ message: "expected a rejection" });
}

Deno.test("sendMail hands the envelope, headers and body to a real SMTP server", opts, async () => {
  const smtp = await startFakeSmtp();
  try {
    await sendMail(smtp.url(), {
      from: FROM,
      to: "alice@example.test",
      subject: "Confirm your email address",
      text: "Hello Alice,\n\nYour code is 123456.",
    });
    assert.deepEqual(smtp.received.length, 1);
    const mail = smtp.received[0];
    assert.deepEqual(mail.from, "no-reply@pipeline.test");
    assert.deepEqual(mail.to, ["alice@example.test"]);
    assert.match(mail.headers.get("from")!, /^"?Content Pipeline"? <no-reply@pipeline\.test>$/);
    assert.deepEqual(mail.headers.get("to"), "alice@example.test");
    assert.deepEqual(mail.headers.get("subject"), "Confirm your email address");
    assert.deepEqual(mail.headers.get("mime-version"), "1.0");
    assert.match(mail.headers.get("content-type")!, /^text\/plain; charset=utf-8$/i);
    assert.deepEqual(mail.headers.get("content-transfer-encoding"), "7bit");
    assert.match(mail.headers.get("message-id")!, /^<[^<>@\s]+@pipeline\.test>$/);
    const date = new Date(mail.headers.get("date")!);
    assert.ok(Math.abs(date.getTime() - Date.now()) < 60_000, "Date header is now");
    assert.match(mail.headers.get("date")!, /^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} \+0000$/);
    assert.deepEqual(mail.body.replace(/\r\n$/, ""), "Hello Alice,\r\n\r\nYour code is 123456.");
    assert.ok(!/[^\r]\n/.test(mail.raw), "every line ends with CRLF");
    assert.deepEqual(smtp.authAttempts.length, 0);
  } finally {
    await smtp.close();
  }
});

Deno.test(
  "sendMail dot-stuffs lines that start with a dot so they arrive intact",
  opts,
  async () => {
    const smtp = await startFakeSmtp();
    try {
      const text = "first\n.hidden line\n.\n..two dots\nlast";
      await sendMail(smtp.url(), { from: FROM, to: "bob@example.test", subject: "Dots", text });
      assert.deepEqual(smtp.received.length, 1);
      assert.deepEqual(smtp.received[0].body.replaceAll("\r\n", "\n"), text);
    } finally {
      await smtp.close();
    }
  },
);

Deno.test(
  "sendMail authenticates with AUTH PLAIN when the URL carries credentials (explicit opt-in)",
  opts,
  async () => {
    const auth = { username: "mailer@pipeline.test", password: "s3cret:/@pass" };
    const smtp = await startFakeSmtp({ auth });
    try {
      await sendMail(smtp.url(auth) + "?insecure_auth=true", {
        from: FROM,
        to: "c@example.test",
        subject: "Hi",
        text: "x",
      });
      assert.deepEqual(smtp.authAttempts, [{ method: "PLAIN", ...auth, ok: true }]);
      assert.deepEqual(smtp.received[0].user, auth.username);
    } finally {
      await smtp.close();
    }
  },
);

Deno.test("sendMail falls back to AUTH LOGIN when the server offers only LOGIN", opts, async () => {
  const auth = { username: "mailer", password: "pw" };
  const smtp = await startFakeSmtp({ auth, authMethods: ["LOGIN"] });
  try {
    await sendMail(smtp.url(auth) + "?insecure_auth=true", {
      from: FROM,
      to: "c@example.test",
      subject: "Hi",
      text: "x",
    });
    assert.deepEqual(smtp.authAttempts.map((a) => [a.method, a.ok]), [["LOGIN", true]]);
    assert.deepEqual(smtp.received.length, 1);
  } finally {
    await smtp.close();
  }
});

Deno.test("sendMail throws naming AUTH when the credentials are refused", opts, async () => {
  const smtp = await startFakeSmtp({ auth: { username: "mailer", password: "right" } });
  try {
    const err = await rejection(() =>
      sendMail(smtp.url({ username: "mailer", password: "wrong" }) + "?insecure_auth=true", {
        from: FROM,
        to: "c@example.test",
        subject: "Hi",
        text: "x",
      })
    );
    assert.match(err.message, /^SMTP AUTH PLAIN failed: 535 /);
    assert.deepEqual(smtp.received.length, 0);
  } finally {
    await smtp.close();
  }
});

Deno.test(
  "sendMail throws naming RCPT TO and the reply when the server answers 451",
  opts,
  async () => {
    const smtp = await startFakeSmtp({ failRcpt: 1 });
    try {
      const err = await rejection(() =>
        sendMail(smtp.url(), { from: FROM, to: "d@example.test", subject: "Hi", text: "x" })
      );
      assert.match(err.message, /^SMTP RCPT TO failed: 451 .*try again later/i);
      assert.deepEqual(smtp.received.length, 0);
      await sendMail(smtp.url(), { from: FROM, to: "d@example.test", subject: "Hi", text: "x" });
      assert.deepEqual(smtp.received.length, 1);
    } finally {
      await smtp.close();
    }
  },
);

Deno.test(
  "sendMail encodes a non-ASCII subject (RFC 2047) and body (7-bit clean)",
  opts,
  async () => {
    const smtp = await startFakeSmtp();
    try {
      const subject = "Neue Aktion für dich: Überprüfung des Entwurfs 🚀 ".repeat(3).trim();
      const text = "Grüße aus Zürich\n.Punkt am Anfang\nEnde";
      await sendMail(smtp.url(), {
        from: "Zoë Team <z@pipeline.test>",
        to: "e@example.test",
        subject,
        text,
      });
      const mail = smtp.received[0];
      const rawSubject = mail.raw.match(/^Subject: (.*(?:\r\n .*)*)/m)![1];
      assert.match(rawSubject, /^=\?UTF-8\?[BQ]\?/i);
      for (const line of rawSubject.split("\r\n")) assert.ok(line.trim().length <= 75, line);
      assert.ok(
        Array.from(mail.raw).every((c) => c.charCodeAt(0) < 128),
        "the raw message is ASCII",
      );
      assert.deepEqual(decodeHeader(mail.headers.get("subject")!), subject);
      assert.deepEqual(decodeHeader(mail.headers.get("from")!), "Zoë Team <z@pipeline.test>");
      assert.match(mail.headers.get("content-transfer-encoding")!, /^(base64|quoted-printable)$/);
      assert.deepEqual(mail.body.replaceAll("\r\n", "\n"), text);
    } finally {
      await smtp.close();
    }
  },
);

Deno.test("sendMail times out on a server that never greets", opts, async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  (async () => {
    for await (const conn of listener) held.push(conn);
  })().catch(() => {});
  try {
    const started = Date.now();
    const err = await rejection(() =>
      sendMail(`smtp://127.0.0.1:${listener.addr.port}`, {
        from: FROM,
        to: "f@example.test",
        subject: "Hi",
        text: "x",
        // A generous connect timeout: under load the connect itself may lag, and this test is
        // about the greeting's.
      }, { timeoutMs: 1_000, connectTimeoutMs: 60_000 })
    );
    assert.match(err.message, /^SMTP greeting failed: timed out/);
    assert.ok(Date.now() - started < 30_000);
  } finally {
    listener.close();
    for (const c of held) c.close();
  }
});

const cert = await createTestCertificate();
if (!cert) console.warn("openssl is not installed: the SMTP TLS tests are skipped");

Deno.test({
  name: tlsTestName(
    "sendMail upgrades a plain connection with STARTTLS when the server offers it",
    cert,
  ),
  ignore: !cert,
  ...opts,
  fn: async () => {
    const auth = { username: "mailer", password: "pw" };
    const smtp = await startFakeSmtp({ auth, tls: { key: cert!.key, cert: cert!.cert } });
    try {
      await sendMail(smtp.url(auth), {
        from: FROM,
        to: "g@example.test",
        subject: "TLS",
        text: "x",
      }, {
        caCerts: [cert!.ca],
      });
      assert.deepEqual(smtp.received.length, 1);
      assert.deepEqual(smtp.received[0].secure, true);
      assert.deepEqual(smtp.received[0].user, "mailer");
    } finally {
      await smtp.close();
    }
  },
});

Deno.test({
  name: tlsTestName("sendMail speaks implicit TLS for smtps:// URLs", cert),
  ignore: !cert,
  ...opts,
  fn: async () => {
    const smtp = await startFakeSmtp({
      tls: { key: cert!.key, cert: cert!.cert },
      implicitTls: true,
    });
    try {
      assert.match(smtp.url(), /^smtps:\/\//);
      await sendMail(smtp.url(), { from: FROM, to: "h@example.test", subject: "TLS", text: "x" }, {
        caCerts: [cert!.ca],
      });
      assert.deepEqual(smtp.received.length, 1);
      assert.deepEqual(smtp.received[0].secure, true);
    } finally {
      await smtp.close();
    }
  },
});

Deno.test({
  name: tlsTestName("sendMail refuses a STARTTLS certificate it cannot verify", cert),
  ignore: !cert,
  ...opts,
  fn: async () => {
    const smtp = await startFakeSmtp({ tls: { key: cert!.key, cert: cert!.cert } });
    try {
      const err = await rejection(() =>
        sendMail(smtp.url(), { from: FROM, to: "i@example.test", subject: "TLS", text: "x" }, {
          timeoutMs: 5_000,
        })
      );
      assert.match(err.message, /^SMTP STARTTLS.* failed: .*certificate/i);
      assert.deepEqual(smtp.received.length, 0);
    } finally {
      await smtp.close();
    }
  },
});

Deno.test("sendMail names the connection when nothing listens on the port", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  const err = await rejection(() =>
    sendMail(`smtp://127.0.0.1:${port}`, {
      from: FROM,
      to: "j@example.test",
      subject: "s",
      text: "t",
    })
  );
  assert.match(err.message, new RegExp(`^SMTP connection to 127\\.0\\.0\\.1:${port} failed: `));
});

Deno.test("parseSmtpUrl reads scheme, host, port and credentials", () => {
  assert.deepEqual(parseSmtpUrl("smtp://u%40x:p%3Aw@mail.example.com:2525"), {
    secure: false,
    host: "mail.example.com",
    port: 2525,
    username: "u@x",
    password: "p:w",
    insecureAuth: false,
  });
  assert.deepEqual(parseSmtpUrl("smtps://mail.example.com"), {
    secure: true,
    host: "mail.example.com",
    port: 465,
    username: undefined,
    password: undefined,
    insecureAuth: false,
  });
  assert.equal(
    parseSmtpUrl("smtp://u:p@mail.example.com:25?insecure_auth=true").insecureAuth,
    true,
  );
  assert.throws(() => parseSmtpUrl("smtp://h?insecure_auth=yes"), /insecure_auth must be true/);
  assert.throws(() => parseSmtpUrl("smtp://h?insecure=true"), /unknown parameter "insecure"/);
  assert.deepEqual(parseSmtpUrl("smtp://mail.example.com").port, 587);
  assert.throws(() => parseSmtpUrl("http://mail.example.com"), /smtp:\/\//);
  assert.throws(() => parseSmtpUrl("not a url"), /must be a URL/);
});

Deno.test(
  "credentials are never sent over cleartext when STARTTLS is not offered",
  opts,
  async () => {
    // A server that offers AUTH but no STARTTLS: what a downgrading man in the middle shows.
    const auth = { username: "mailer", password: "do-not-leak" };
    const smtp = await startFakeSmtp({ auth });
    try {
      const err = await rejection(() =>
        sendMail(smtp.url(auth), { from: FROM, to: "k@example.test", subject: "Hi", text: "x" }, {
          timeoutMs: 5_000,
        })
      );
      assert.match(err.message, /^SMTP .*STARTTLS/i);
      assert.deepEqual(smtp.authAttempts, [], "no AUTH command reached the server");
      assert.deepEqual(smtp.received.length, 0);
    } finally {
      await smtp.close();
    }
  },
);

Deno.test(
  "with ?insecure_auth=true the URL opts in to AUTH without STARTTLS",
  opts,
  async () => {
    const auth = { username: "mailer", password: "pw" };
    const smtp = await startFakeSmtp({ auth });
    try {
      await sendMail(`${smtp.url(auth)}?insecure_auth=true`, {
        from: FROM,
        to: "l@example.test",
        subject: "Hi",
        text: "x",
      });
      assert.deepEqual(smtp.authAttempts.map((a) => [a.username, a.ok]), [["mailer", true]]);
      assert.deepEqual(smtp.received.length, 1);
      assert.deepEqual(smtp.received[0].secure, false);
    } finally {
      await smtp.close();
    }
  },
);

Deno.test(
  "without credentials, a server without STARTTLS still gets the mail",
  opts,
  async () => {
    const smtp = await startFakeSmtp();
    try {
      await sendMail(smtp.url(), { from: FROM, to: "m@example.test", subject: "Hi", text: "x" });
      assert.deepEqual(smtp.received.length, 1);
      assert.deepEqual(smtp.authAttempts, []);
    } finally {
      await smtp.close();
    }
  },
);
