/**
 * `/forgot`: asks for a password reset code by email, then goes on to `/reset` with the
 * address filled in. The answer is the same whether or not the account exists.
 */
import { useState } from "preact/hooks";
import { ApiError } from "../state/api.ts";
import { forgotPassword } from "../state/accounts.ts";
import { AuthFrame } from "../components/auth_frame.tsx";
import { EmailField, SignInLink, SubmitRow } from "../components/auth_fields.tsx";
import { Link, navigate, url } from "../router.tsx";
import type { ScreenProps } from "../screen_props.ts";

export default function ForgotScreen(_: ScreenProps) {
  const [email, setEmail] = useState(url.value.search.get("email") ?? "");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await forgotPassword(email.trim());
      navigate(`/reset?email=${encodeURIComponent(email.trim())}&sent=1`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthFrame
      title="Reset your password"
      intro={
        <p>Enter your account's email. We will email you a 6-digit code to set a new password.</p>
      }
      footer={
        <p>
          Remembered it? <SignInLink />
        </p>
      }
    >
      <form onSubmit={submit}>
        <EmailField id="forgot-email" value={email} onInput={setEmail} />
        <SubmitRow error={error} busy={busy} label="Email me a code" busyLabel="Sending…">
          {error instanceof ApiError && error.status === 429 && (
            <p class="auth-muted">
              Too many codes were asked for. Wait 15 minutes, then try again.
            </p>
          )}
        </SubmitRow>
      </form>
      <p class="auth-muted">
        Have a code already? <Link href="/reset">Enter it</Link>
      </p>
    </AuthFrame>
  );
}
