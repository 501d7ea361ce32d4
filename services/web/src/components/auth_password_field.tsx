/**
 * A new-password field with the password rules shown live as you type: each
 * rule ticks when met. The rules are the input's description for screen readers; the texts
 * of `passwordProblem` are the server's own messages.
 */
import { useState } from "preact/hooks";

export const PASSWORD_RULES: { label: string; test: (pw: string) => boolean; message: string }[] = [
  {
    label: "At least 8 characters",
    test: (pw) => pw.length >= 8,
    message: "Password must be at least 8 characters long",
  },
  {
    label: "A lowercase letter",
    test: (pw) => /[a-z]/.test(pw),
    message: "Password must contain a lowercase letter",
  },
  {
    label: "An uppercase letter",
    test: (pw) => /[A-Z]/.test(pw),
    message: "Password must contain an uppercase letter",
  },
  { label: "A digit", test: (pw) => /[0-9]/.test(pw), message: "Password must contain a digit" },
  {
    label: "A symbol",
    test: (pw) => /[^A-Za-z0-9]/.test(pw),
    message: "Password must contain a symbol",
  },
];

/** The first rule the password breaks, as the server words it; null when it is fine. */
export function passwordProblem(password: string): string | null {
  return PASSWORD_RULES.find((r) => !r.test(password))?.message ?? null;
}

export function PasswordField(
  { id, label = "Password", value, onInput, error }: {
    id: string;
    label?: string;
    value: string;
    onInput: (value: string) => void;
    /** Shown under the field (a rule the submit found broken, or the server's answer). */
    error?: string | null;
  },
) {
  const [shown, setShown] = useState(false);
  // Same element either way, so the caret and focus stay when the password is shown.
  const inputProps = {
    id,
    name: "password",
    autoComplete: "new-password",
    required: true,
    maxLength: 256,
    value,
    "aria-describedby": `${id}-rules${error ? ` ${id}-error` : ""}`,
    "aria-invalid": error ? true : undefined,
    onInput: (e: Event) => onInput((e.currentTarget as HTMLInputElement).value),
  };
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <div class="password-input">
        {shown ? <input type="text" {...inputProps} /> : <input type="password" {...inputProps} />}
        <button
          type="button"
          class="button secondary password-toggle"
          aria-pressed={shown}
          aria-controls={id}
          onClick={() => setShown(!shown)}
        >
          {shown ? "Hide" : "Show"}
          <span class="visually-hidden">password</span>
        </button>
      </div>
      <ul id={`${id}-rules`} class="password-rules" aria-label="Password rules">
        {PASSWORD_RULES.map((rule) => {
          const met = rule.test(value);
          return (
            <li key={rule.label} class={met ? "met" : undefined}>
              <span class="rule-mark" aria-hidden="true">{met ? "✓" : "○"}</span>
              {rule.label}
              <span class="visually-hidden">{met ? " (done)" : " (not yet)"}</span>
            </li>
          );
        })}
      </ul>
      {error && <p id={`${id}-error`} class="field-error">{error}</p>}
    </div>
  );
}
