/**
 * The fields and rows the account screens (setup, signup, confirm, forgot, reset) share: name,
 * email and 6-digit code inputs, the new-password state with its submit-time rule check, the
 * error + submit row, and the ways back to the hosted sign-in.
 */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { startSignIn } from "../state/session.ts";
import { PasswordField, passwordProblem } from "./auth_password_field.tsx";
import { ErrorMessage } from "./error_message.tsx";

export { PasswordField, passwordProblem };

interface InputProps {
  id: string;
  value: string;
  onInput: (value: string) => void;
}

export function NameField({ id, value, onInput }: InputProps) {
  return (
    <div class="field">
      <label for={id}>Name</label>
      <input
        id={id}
        name="name"
        autoComplete="name"
        required
        maxLength={200}
        value={value}
        onInput={(e) => onInput(e.currentTarget.value)}
      />
    </div>
  );
}

export function EmailField(
  { id, value, onInput, autoComplete = "email" }: InputProps & { autoComplete?: string },
) {
  return (
    <div class="field">
      <label for={id}>Email</label>
      <input
        id={id}
        name="email"
        type="email"
        autoComplete={autoComplete}
        required
        value={value}
        onInput={(e) => onInput(e.currentTarget.value)}
      />
    </div>
  );
}

/** A 6-digit emailed code: digits only, with an optional hint as its description. */
export function CodeField(
  { id, label, value, onInput, autoFocus, hint }: InputProps & {
    label: string;
    autoFocus: boolean;
    hint?: string;
  },
) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        name="code"
        class="code-input"
        inputMode="numeric"
        autoComplete="one-time-code"
        pattern="[0-9]{6}"
        maxLength={6}
        required
        value={value}
        aria-describedby={hint ? `${id}-hint` : undefined}
        autoFocus={autoFocus}
        onInput={(e) => onInput(e.currentTarget.value.replace(/\D/g, ""))}
      />
      {hint && <p id={`${id}-hint`} class="auth-muted">{hint}</p>}
    </div>
  );
}

/**
 * A new password's state for a `PasswordField` with input `id`. `valid()` is the check before
 * submitting: it shows the first broken rule and focuses the field when there is one. Once a
 * rule was shown, it is re-checked as the person types.
 */
export function useNewPassword(id: string) {
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  return {
    password,
    valid(): boolean {
      const problem = passwordProblem(password);
      setError(problem);
      if (problem) document.getElementById(id)?.focus();
      return !problem;
    },
    field: {
      id,
      value: password,
      error,
      onInput: (v: string) => {
        setPassword(v);
        if (error) setError(passwordProblem(v));
      },
    },
  };
}

/** The form's error (role="alert"), any note about it, and the submit button. */
export function SubmitRow(
  { error, busy, label, busyLabel, children }: {
    error: unknown;
    busy: boolean;
    label: string;
    busyLabel: string;
    children?: ComponentChildren;
  },
) {
  return (
    <>
      <ErrorMessage error={error} />
      {children}
      <button type="submit" class="button auth-submit" disabled={busy}>
        {busy ? busyLabel : label}
      </button>
    </>
  );
}

/** The big "Sign in" button of a finished step: off to the hosted login. */
export function SignInButton() {
  return (
    <button type="button" class="button auth-submit" onClick={() => void startSignIn("/")}>
      Sign in
    </button>
  );
}

/** A "Sign in" link for a footer: off to the hosted login. */
export function SignInLink() {
  return (
    <a
      href="/"
      onClick={(e) => {
        e.preventDefault();
        void startSignIn("/");
      }}
    >
      Sign in
    </a>
  );
}
