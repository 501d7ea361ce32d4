/**
 * A fake reCAPTCHA siteverify endpoint on loopback. It speaks Google's protocol (form-encoded
 * `secret` and `response`, JSON answer) and records every request. Token conventions:
 * `invalid` answers `success: false`; `score:<n>` answers that score; anything else scores 0.9.
 */
export interface RecaptchaRequest {
  secret: string | null;
  response: string | null;
}

export interface FakeRecaptcha {
  url: string;
  received: RecaptchaRequest[];
  close(): Promise<void>;
}

export function startFakeRecaptcha(): FakeRecaptcha {
  const received: RecaptchaRequest[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    if (req.method !== "POST") return new Response("method not allowed", { status: 405 });
    const form = new URLSearchParams(await req.text());
    const secret = form.get("secret");
    const response = form.get("response");
    received.push({ secret, response });
    if (!secret) {
      return Response.json({ success: false, "error-codes": ["missing-input-secret"] });
    }
    if (!response || response === "invalid") {
      return Response.json({ success: false, "error-codes": ["invalid-input-response"] });
    }
    const scored = /^score:([0-9.]+)$/.exec(response);
    return Response.json({
      success: true,
      score: scored ? Number(scored[1]) : 0.9,
      action: "signup",
      challenge_ts: new Date().toISOString(),
      hostname: "localhost",
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/recaptcha/api/siteverify`,
    received,
    close: () => server.shutdown(),
  };
}
