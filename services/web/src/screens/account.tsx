/**
 * `/account`: personal settings. The name and time zone (every IANA zone; the browser's until
 * one is saved), and a password change: the current password and a new one with the rules
 * ticking as it is typed. A changed password signs out every other session; this tab takes the
 * new session the server answers with and stays signed in.
 */
import { useState } from "preact/hooks";
import type { ScreenProps } from "../screen_props.ts";
import { ApiError } from "../state/api.ts";
import { changePassword, loadMe, type Me, updateProfile } from "../state/profile.ts";
import { useResource } from "../components/use_resource.ts";
import { Loading } from "../components/loading.tsx";
import { ErrorMessage } from "../components/error_message.tsx";
import { describedBy, Field, fieldErrors } from "../components/workspace_form.tsx";
import { PasswordField, useNewPassword } from "../components/auth_fields.tsx";
import { browserTimeZone, timeZoneOptions } from "../components/time_zones.ts";

export default function AccountScreen(_: ScreenProps) {
  const me = useResource(loadMe, []);
  return (
    <div class="account stack">
      <h1>Personal settings</h1>
      {me.loading && !me.data && <Loading label="Loading your settings" />}
      {me.error ? <ErrorMessage error={me.error} onRetry={me.reload} /> : null}
      {me.data && (
        <>
          <Profile me={me.data} />
          <Password />
        </>
      )}
    </div>
  );
}

function Profile({ me }: { me: Me }) {
  const [name, setName] = useState(me.name);
  const [zone, setZone] = useState(me.timezone ?? browserTimeZone());
  const [savedZone, setSavedZone] = useState(me.timezone);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const { byField, rest } = fieldErrors(error, ["name", "timezone"]);
  const changed = () => setSaved(false);
  return (
    <section class="card settings-section" aria-labelledby="profile-heading">
      <h2 id="profile-heading">Profile</h2>
      <p class="field-hint account-intro">
        Signed in as <strong>{me.email}</strong>
      </p>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          setSaved(false);
          try {
            const next = await updateProfile({ name: name.trim(), timezone: zone });
            setName(next.name);
            setSavedZone(next.timezone);
            setSaved(true);
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <Field id="account-name" label="Name" error={byField.name}>
          <input
            id="account-name"
            value={name}
            required
            maxLength={100}
            autoComplete="name"
            onInput={(e) => {
              setName(e.currentTarget.value);
              changed();
            }}
            {...describedBy("account-name", byField.name)}
          />
        </Field>
        <Field
          id="account-timezone"
          label="Time zone"
          error={byField.timezone}
          hint={savedZone
            ? "Saved with your account: it follows you to any browser."
            : "Not saved yet: this is your browser's zone."}
        >
          <select
            id="account-timezone"
            value={zone}
            onChange={(e) => {
              setZone(e.currentTarget.value);
              changed();
            }}
            {...describedBy("account-timezone", byField.timezone, true)}
          >
            {timeZoneOptions(zone).map((z) => <option key={z} value={z}>{z}</option>)}
          </select>
        </Field>
        <ErrorMessage error={rest} />
        <div class="button-row wa-start">
          <button type="submit" class="button" disabled={busy}>
            {busy ? "Saving…" : "Save profile"}
          </button>
          <span class="saved-note" role="status">{saved ? "Saved" : ""}</span>
        </div>
      </form>
    </section>
  );
}

function Password() {
  const [current, setCurrent] = useState("");
  const next = useNewPassword("account-new-password");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState(false);
  const wrongCurrent = error instanceof ApiError && error.status === 403;
  const policy = error instanceof ApiError && error.status === 400 ? error.message : null;
  return (
    <section class="card settings-section" aria-labelledby="password-heading">
      <h2 id="password-heading">Password</h2>
      <p class="field-hint account-intro">
        Changing it signs you out on every other device and browser; you stay signed in here.
      </p>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setError(null);
          setDone(false);
          if (!next.valid()) return;
          setBusy(true);
          try {
            await changePassword(current, next.password);
            setCurrent("");
            next.field.onInput("");
            setDone(true);
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <div class="field">
          <label for="account-current-password">Current password</label>
          <input
            id="account-current-password"
            type="password"
            autoComplete="current-password"
            required
            maxLength={200}
            value={current}
            onInput={(e) => {
              setCurrent(e.currentTarget.value);
              setDone(false);
            }}
            aria-invalid={wrongCurrent ? true : undefined}
            aria-describedby={wrongCurrent ? "account-current-password-error" : undefined}
          />
          {wrongCurrent && (
            <p class="field-error" id="account-current-password-error" role="alert">
              {(error as ApiError).message}
            </p>
          )}
        </div>
        <PasswordField
          {...next.field}
          label="New password"
          error={next.field.error ?? policy}
        />
        {!wrongCurrent && !policy && <ErrorMessage error={error} />}
        <div class="button-row wa-start">
          <button type="submit" class="button" disabled={busy}>
            {busy ? "Changing…" : "Change password"}
          </button>
          <span class="saved-note" role="status">
            {done ? "Password changed. Other sessions are signed out." : ""}
          </span>
        </div>
      </form>
    </section>
  );
}
