/**
 * `/confirm?email=`: the 6-digit code from the confirmation email. "Send a new code" asks
 * for another (its 429 is said plainly). Once confirmed, sign in; a new account then waits
 * for an admin's approval (the app shows that state).
 */
import { useState } from "preact/hooks";
import { ApiError } from "../state/api.ts";
import { confirmEmail, resendConfirmation } from "../state/accounts.ts";
import { AuthFrame, AuthNotice } from "../components/auth_frame.tsx";
import { CodeField, EmailField, SignInButton, SubmitRow } from "../components/auth_fields.tsx";
import { ErrorMessage } from "../components/error_message.tsx";
import { Link, url } from "../router.tsx";
import type { ScreenProps } from "../screen_props.ts";

export default function ConfirmScreen(_: ScreenProps) {
  const search = url.value.search;
  const [email, setEmail] = useState(search.get("email") ?? "");
  const [code, setCode] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState(false);
  const [resend, setResend] = useState<{ busy: boolean; error: unknown; sent: string | null }>(
    { busy: false, error: null, sent: null },
  );

  if (done) {
    return (
      <AuthFrame title="Email confirmed">
        <AuthNotice>
          <p>Your email {email.trim()} is confirmed. Sign in to continue.</p>
        </AuthNotice>
        <p class="auth-muted">
          A new account waits for an admin's approval; you will see when it is approved.
        </p>
        <SignInButton />
      </AuthFrame>
    );
  }

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await confirmEmail(email.trim(), code.trim());
      setDone(true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const sendAgain = async () => {
    if (!email.trim()) {
      setResend({ busy: false, error: new Error("Enter your email first"), sent: null });
      return;
    }
    setResend({ busy: true, error: null, sent: null });
    try {
      await resendConfirmation(email.trim());
      setResend({ busy: false, error: null, sent: email.trim() });
    } catch (err) {
      setResend({ busy: false, error: err, sent: null });
    }
  };

  return (
    <AuthFrame
      title="Confirm your email"
      intro={search.get("sent")
        ? (
          <AuthNotice>
            <p>
              We emailed a 6-digit code to{" "}
              <strong class="auth-email">{search.get("email")}</strong>. Enter it below.
            </p>
          </AuthNotice>
        )
        : <p>Enter the 6-digit code from the email we sent you.</p>}
      footer={
        <p>
          Wrong address? <Link href="/signup">Sign up again</Link>
        </p>
      }
    >
      <form onSubmit={submit}>
        <EmailField id="confirm-email" value={email} onInput={setEmail} />
        <CodeField
          id="confirm-code"
          label="Confirmation code"
          hint="6 digits, valid for a limited time."
          autoFocus={!!search.get("email")}
          value={code}
          onInput={setCode}
        />
        <p class="auth-muted auth-outbox-note">
          If email is not set up on this server, an administrator can find your code in the server's
          outbox file.
        </p>
        <SubmitRow error={error} busy={busy} label="Confirm email" busyLabel="Confirming…" />
      </form>
      <div class="auth-resend">
        <p class="auth-muted">
          No email?{" "}
          <button
            type="button"
            class="link-button"
            disabled={resend.busy}
            onClick={() => void sendAgain()}
          >
            {resend.busy ? "Sending…" : "Send a new code"}
          </button>
        </p>
        {resend.sent && (
          <AuthNotice>
            <p>A new code is on its way to {resend.sent}. The old one no longer works.</p>
          </AuthNotice>
        )}
        {resend.error !== null && (
          <>
            <ErrorMessage error={resend.error} />
            {resend.error instanceof ApiError && resend.error.status === 429 && (
              <p class="auth-muted">
                Codes are limited to a few per email every 15 minutes. Use the newest code you
                received, or wait 15 minutes, then ask again.
              </p>
            )}
          </>
        )}
      </div>
    </AuthFrame>
  );
}
