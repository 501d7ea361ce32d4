/**
 * "Waiting for approval": what a signed-in user whose token says `custom:approved` "false"
 * sees instead of the app. Approval needs a new token, so it asks for one
 * every 5 s through the refresh cookie; once the claims say approved, the app renders the
 * screen of the URL on its own (the claims are a signal).
 */
import { useEffect, useState } from "preact/hooks";
import { claims, refreshSession, signedOut, signOut } from "../state/session.ts";

export const APPROVAL_POLL_MS = 5_000;

export function WaitingForApproval() {
  const [checking, setChecking] = useState(false);
  const [checkedAt, setCheckedAt] = useState<Date | null>(null);
  const check = async () => {
    setChecking(true);
    try {
      // A disabled or rejected account cannot refresh: its session is over.
      if (!(await refreshSession())) signedOut("expired");
      else setCheckedAt(new Date());
    } finally {
      setChecking(false);
    }
  };
  useEffect(() => {
    const timer = setInterval(() => void check(), APPROVAL_POLL_MS);
    return () => clearInterval(timer);
  }, []);
  const who = claims.value;
  return (
    <section class="card narrow stack auth-waiting" aria-labelledby="waiting-title">
      <h1 id="waiting-title">Waiting for approval</h1>
      <p>
        Thanks{who?.name ? `, ${who.name}` : ""}: your email is confirmed. An admin approves every
        new account before it can use Content Pipeline.
      </p>
      <p>
        This page checks every few seconds and takes you into the app as soon as you are approved.
        You can close it and sign in later, too.
      </p>
      <p class="auth-waiting-status">
        <span class="spinner" aria-hidden="true" />
        {checkedAt
          ? `Still waiting · last checked ${checkedAt.toLocaleTimeString()}`
          : "Still waiting"}
      </p>
      <div class="auth-actions">
        <button type="button" class="button" disabled={checking} onClick={() => void check()}>
          {checking ? "Checking…" : "Check now"}
        </button>
        <button type="button" class="button secondary" onClick={() => void signOut()}>
          Sign out
        </button>
      </div>
      {who?.email && <p class="auth-muted">Signed in as {who.email}</p>}
    </section>
  );
}
