/**
 * Form pieces shared by the workspace, prompt, example and action screens: the server's 400
 * message put at the field it names, and a labelled field that shows it.
 */
import type { ComponentChildren } from "preact";
import { ApiError } from "../state/api.ts";

/**
 * Splits an API error by field: a 400 whose message starts with one of `fields` (the service
 * writes `name is required`, `publishing_slots.0: must be ...`) goes to that field; anything
 * else stays `rest`, to be shown beside the form's button.
 */
export function fieldErrors(
  error: unknown,
  fields: readonly string[],
): { byField: Record<string, string>; rest: unknown } {
  if (!(error instanceof ApiError) || error.status !== 400) return { byField: {}, rest: error };
  const message = error.message;
  // longest first, so `default_prompt_id` wins over a shorter name it starts with
  const sorted = [...fields].sort((a, b) => b.length - a.length);
  for (const field of sorted) {
    if (message === field || new RegExp(`^${field}(\\b|[.:\\s])`).test(message)) {
      return { byField: { [field]: message }, rest: null };
    }
  }
  return { byField: {}, rest: error };
}

/** A labelled control with its hint and its error (announced, and tied by aria-describedby). */
export function Field(
  { id, label, error, hint, children }: {
    id: string;
    label: string;
    error?: string;
    hint?: ComponentChildren;
    children: ComponentChildren;
  },
) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {hint && <p class="field-hint" id={`${id}-hint`}>{hint}</p>}
      {children}
      {error && (
        <p class="field-error" id={`${id}-error`} role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** The aria attributes a control inside `<Field>` carries. */
export function describedBy(id: string, error?: string, hint?: boolean) {
  const ids = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return {
    "aria-invalid": error ? true : undefined,
    "aria-describedby": ids || undefined,
  } as const;
}

/** A short, local date-time for lists ("12 Mar 2026, 14:05"). */
export function formatWhen(iso: string | null | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(undefined, {
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
  });
}
