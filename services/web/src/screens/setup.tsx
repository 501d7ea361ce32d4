/**
 * `/setup?token=`: first run. With no admin yet, the one-time link from the
 * start-up log opens this form; it creates the first admin, who then signs in through the
 * hosted login like everyone else. Once an admin exists the page says so (410).
 */
import { useState } from "preact/hooks";
import { ApiError } from "../state/api.ts";
import { finishSetup, loadSetup } from "../state/accounts.ts";
import { AuthFrame, AuthNotice } from "../components/auth_frame.tsx";
import {
  EmailField,
  NameField,
  PasswordField,
  SignInButton,
  SubmitRow,
  useNewPassword,
} from "../components/auth_fields.tsx";
import { ErrorMessage } from "../components/error_message.tsx";
import { Loading } from "../components/loading.tsx";
import { useResource } from "../components/use_resource.ts";
import { url } from "../router.tsx";
import type { ScreenProps } from "../screen_props.ts";
import { startSignIn } from "../state/session.ts";

function SetupDone() {
  return (
    <AuthFrame title="Setup is already done — sign in">
      <p>An admin account exists, so this setup link no longer works.</p>
      <SignInButton />
    </AuthFrame>
  );
}

export default function SetupScreen(_: ScreenProps) {
  const token = url.value.search.get("token") ?? "";
  const status = useResource(loadSetup, []);
  const [name, setName] = useState("");
  const [email, setEmail] = useState("");
  const newPassword = useNewPassword("setup-password");
  const password = newPassword.password;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [finished, setFinished] = useState(false);

  if (status.loading && !status.data) {
    return (
      <AuthFrame title="Set up Content Pipeline">
        <Loading label="Checking setup" />
      </AuthFrame>
    );
  }
  if (status.error) {
    return (
      <AuthFrame title="Set up Content Pipeline">
        <ErrorMessage error={status.error} onRetry={status.reload} />
      </AuthFrame>
    );
  }
  if (
    !finished &&
    (status.data?.needed === false || (error instanceof ApiError && error.status === 410))
  ) {
    return <SetupDone />;
  }
  if (finished) {
    return (
      <AuthFrame title="Admin account created">
        <AuthNotice>
          <p>Taking you to sign in…</p>
        </AuthNotice>
      </AuthFrame>
    );
  }
  if (!token) {
    return (
      <AuthFrame title="Set up Content Pipeline">
        <p>
          Open the one-time setup link that the service printed in its start-up log (it looks like
          {" "}
          <code>/setup?token=…</code>). Restarting the service prints a new one.
        </p>
      </AuthFrame>
    );
  }

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    if (!newPassword.valid()) return;
    setBusy(true);
    try {
      await finishSetup({ token, email: email.trim(), name: name.trim(), password });
      setFinished(true);
      await startSignIn("/");
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  return (
    <AuthFrame
      title="Set up Content Pipeline"
      intro={
        <p>
          Create the first admin account. The admin approves new accounts and looks after workspaces
          and backups.
        </p>
      }
    >
      <form onSubmit={submit}>
        <NameField id="setup-name" value={name} onInput={setName} />
        <EmailField id="setup-email" value={email} onInput={setEmail} />
        <PasswordField {...newPassword.field} />
        <SubmitRow
          error={error}
          busy={busy}
          label="Create admin account"
          busyLabel="Creating admin…"
        >
          {error instanceof ApiError && error.status === 401 && (
            <p class="auth-muted">
              Restart the service to get a new setup link in its log.
            </p>
          )}
        </SubmitRow>
      </form>
    </AuthFrame>
  );
}
