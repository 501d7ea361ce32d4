/**
 * `/signup`: name, email and password (the rules tick as you type). With a reCAPTCHA site
 * key in the page, Google's reCAPTCHA v3 scores the signup; without one a placeholder token
 * is sent (the server only scores tokens when RECAPTCHA_SECRET is set). Then `/confirm`.
 */
import { useEffect, useState } from "preact/hooks";
import { signUp } from "../state/accounts.ts";
import { AuthFrame } from "../components/auth_frame.tsx";
import {
  EmailField,
  NameField,
  PasswordField,
  SignInLink,
  SubmitRow,
  useNewPassword,
} from "../components/auth_fields.tsx";
import { Link, navigate } from "../router.tsx";
import type { ScreenProps } from "../screen_props.ts";

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
  const newPassword = useNewPassword("signup-password");
  const password = newPassword.password;
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
    if (!newPassword.valid()) return;
    setBusy(true);
    try {
      const recaptcha_token = await recaptchaToken();
      await signUp({ email: email.trim(), name: name.trim(), password, recaptcha_token });
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
          Already have an account? <SignInLink />
        </p>
      }
    >
      <form onSubmit={submit}>
        <NameField id="signup-name" value={name} onInput={setName} />
        <EmailField id="signup-email" value={email} onInput={setEmail} />
        <PasswordField {...newPassword.field} />
        <SubmitRow error={error} busy={busy} label="Create account" busyLabel="Creating account…" />
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
