/**
 * `/reset?email=`: the emailed code and a new password (rules live as you type). Success
 * signs out every other session of the account; then sign in with the new password.
 */
import { useState } from "preact/hooks";
import { api, call } from "../api/client.ts";
import { AuthFrame, AuthNotice } from "../components/auth_frame.tsx";
import { PasswordField, passwordProblem } from "../components/auth_password_field.tsx";
import { ErrorMessage } from "../components/error_message.tsx";
import { Link, url } from "../router.tsx";
import type { ScreenProps } from "../routes.ts";
import { startSignIn } from "../state/session.ts";

export default function ResetScreen(_: ScreenProps) {
  const search = url.value.search;
  const [email, setEmail] = useState(search.get("email") ?? "");
  const [code, setCode] = useState("");
  const [password, setPassword] = useState("");
  const [passwordError, setPasswordError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState(false);

  if (done) {
    return (
      <AuthFrame title="Password changed">
        <AuthNotice>
          <p>Your new password is set, and every other session of your account was signed out.</p>
        </AuthNotice>
        <button type="button" class="button auth-submit" onClick={() => void startSignIn("/")}>
          Sign in
        </button>
      </AuthFrame>
    );
  }

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const problem = passwordProblem(password);
    setPasswordError(problem);
    if (problem) {
      document.getElementById("reset-password")?.focus();
      return;
    }
    setBusy(true);
    try {
      await call(api.POST("/api/auth/reset-password", {
        body: { email: email.trim(), code: code.trim(), password },
      }));
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
        <div class="field">
          <label for="reset-email">Email</label>
          <input
            id="reset-email"
            name="email"
            type="email"
            autoComplete="username"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="reset-code">Reset code</label>
          <input
            id="reset-code"
            name="code"
            class="code-input"
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="[0-9]{6}"
            maxLength={6}
            required
            autoFocus={!!search.get("email")}
            value={code}
            onInput={(e) => setCode(e.currentTarget.value.replace(/\D/g, ""))}
          />
        </div>
        <PasswordField
          id="reset-password"
          label="New password"
          value={password}
          onInput={(v) => {
            setPassword(v);
            if (passwordError) setPasswordError(passwordProblem(v));
          }}
          error={passwordError}
        />
        <ErrorMessage error={error} />
        <button type="submit" class="button auth-submit" disabled={busy}>
          {busy ? "Saving…" : "Set new password"}
        </button>
      </form>
    </AuthFrame>
  );
}
