/**
 * `/reset?email=`: the emailed code and a new password (rules live as you type). Success
 * signs out every other session of the account; then sign in with the new password.
 */
import { useState } from "preact/hooks";
import { resetPassword } from "../state/accounts.ts";
import { AuthFrame, AuthNotice } from "../components/auth_frame.tsx";
import {
  CodeField,
  EmailField,
  PasswordField,
  SignInButton,
  SubmitRow,
  useNewPassword,
} from "../components/auth_fields.tsx";
import { Link, url } from "../router.tsx";
import type { ScreenProps } from "../screen_props.ts";

export default function ResetScreen(_: ScreenProps) {
  const search = url.value.search;
  const [email, setEmail] = useState(search.get("email") ?? "");
  const [code, setCode] = useState("");
  const newPassword = useNewPassword("reset-password");
  const password = newPassword.password;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState(false);

  if (done) {
    return (
      <AuthFrame title="Password changed">
        <AuthNotice>
          <p>Your new password is set, and every other session of your account was signed out.</p>
        </AuthNotice>
        <SignInButton />
      </AuthFrame>
    );
  }

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    if (!newPassword.valid()) return;
    setBusy(true);
    try {
      await resetPassword(email.trim(), code.trim(), password);
      setDone(true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthFrame
      title="Set a new password"
      intro={search.get("sent")
        ? (
          <AuthNotice>
            <p>
              If an account exists for{" "}
              <strong class="auth-email">{search.get("email")}</strong>, we emailed it a 6-digit
              code. It is valid for 30 minutes.
            </p>
          </AuthNotice>
        )
        : <p>Enter the 6-digit code from the password reset email and choose a new password.</p>}
      footer={
        <p>
          No code?{" "}
          <Link href={`/forgot${email ? `?email=${encodeURIComponent(email)}` : ""}`}>
            Ask for a new one
          </Link>
        </p>
      }
    >
      <form onSubmit={submit}>
        <EmailField id="reset-email" autoComplete="username" value={email} onInput={setEmail} />
        <CodeField
          id="reset-code"
          label="Reset code"
          autoFocus={!!search.get("email")}
          value={code}
          onInput={setCode}
        />
        <PasswordField {...newPassword.field} label="New password" />
        <SubmitRow error={error} busy={busy} label="Set new password" busyLabel="Saving…" />
      </form>
    </AuthFrame>
  );
}
