/**
 * `/signup`: name, email and password (the rules tick as you type). With a reCAPTCHA site
 * key in the page, Google's reCAPTCHA v3 scores the signup; without one a placeholder token
 * is sent (the server only scores tokens when RECAPTCHA_SECRET is set). Then `/confirm`.
 */
import { useEffect, useState } from "preact/hooks";
import { api, call } from "../api/client.ts";
import { AuthFrame } from "../components/auth_frame.tsx";
import { PasswordField, passwordProblem } from "../components/auth_password_field.tsx";
import { ErrorMessage } from "../components/error_message.tsx";
import { Link, navigate } from "../router.tsx";
import type { ScreenProps } from "../routes.ts";
import { startSignIn } from "../state/session.ts";

/** What the app sends when no site key is configured. */
export const NO_RECAPTCHA_TOKEN = "recaptcha-not-configured";

interface Grecaptcha {
  ready(fn: () => void): void;
  execute(siteKey: string, options: { action: string }): Promise<string>;
}

function siteKey(): string | null {
  return document.querySelector<HTMLMetaElement>('meta[name="cp-recaptcha-site-key"]')?.content ||
    null;
}

let scriptLoading: Promise<Grecaptcha> | null = null;

/** Loads Google's reCAPTCHA v3 script once (the CSP allows it only when a key is set). */
function loadRecaptcha(key: string): Promise<Grecaptcha> {
  scriptLoading ??= new Promise<Grecaptcha>((resolve, reject) => {
    const script = document.createElement("script");
    script.src = `https://www.google.com/recaptcha/api.js?render=${encodeURIComponent(key)}`;
    script.async = true;
    script.onload = () => {
      const g = (globalThis as unknown as { grecaptcha?: Grecaptcha }).grecaptcha;
      if (g) g.ready(() => resolve(g));
      else reject(new Error("reCAPTCHA did not load"));
    };
    script.onerror = () => {
      scriptLoading = null;
      reject(new Error("reCAPTCHA could not be loaded. Check your connection and try again"));
    };
    document.head.appendChild(script);
  });
  return scriptLoading;
}

async function recaptchaToken(): Promise<string> {
  const key = siteKey();
  if (!key) return NO_RECAPTCHA_TOKEN;
  const g = await loadRecaptcha(key);
  return await g.execute(key, { action: "signup" });
}

export default function SignupScreen(_: ScreenProps) {
  const [name, setName] = useState("");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [passwordError, setPasswordError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const key = siteKey();
  useEffect(() => {
    // warm the script up while the person types
    if (key) loadRecaptcha(key).catch(() => {});
  }, [key]);

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const problem = passwordProblem(password);
    setPasswordError(problem);
    if (problem) {
      document.getElementById("signup-password")?.focus();
      return;
    }
    setBusy(true);
    try {
      const recaptcha_token = await recaptchaToken();
      await call(api.POST("/api/auth/signup", {
        body: { email: email.trim(), name: name.trim(), password, recaptcha_token },
      }));
      navigate(`/confirm?email=${encodeURIComponent(email.trim())}&sent=1`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthFrame
      title="Create your account"
      intro={<p>An admin approves new accounts before they can use the app.</p>}
      footer={
        <p>
          Already have an account?{" "}
          <a
            href="/"
            onClick={(e) => {
              e.preventDefault();
              void startSignIn("/");
            }}
          >
            Sign in
          </a>
        </p>
      }
    >
      <form onSubmit={submit}>
        <div class="field">
          <label for="signup-name">Name</label>
          <input
            id="signup-name"
            name="name"
            autoComplete="name"
            required
            maxLength={200}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="signup-email">Email</label>
          <input
            id="signup-email"
            name="email"
            type="email"
            autoComplete="email"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </div>
        <PasswordField
          id="signup-password"
          value={password}
          onInput={(v) => {
            setPassword(v);
            if (passwordError) setPasswordError(passwordProblem(v));
          }}
          error={passwordError}
        />
        <ErrorMessage error={error} />
        <button type="submit" class="button auth-submit" disabled={busy}>
          {busy ? "Creating account…" : "Create account"}
        </button>
        {key && (
          <p class="auth-muted auth-recaptcha">
            This form is protected by reCAPTCHA; Google's{" "}
            <a href="https://policies.google.com/privacy" rel="noreferrer">Privacy Policy</a> and
            {" "}
            <a href="https://policies.google.com/terms" rel="noreferrer">Terms of Service</a> apply.
          </p>
        )}
      </form>
      <p class="auth-muted">
        Got a code already? <Link href="/confirm">Confirm your email</Link>
      </p>
    </AuthFrame>
  );
}
