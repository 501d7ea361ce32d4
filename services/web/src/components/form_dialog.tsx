/**
 * The save logic the create/edit dialog forms share (examples, prompts, actions): busy and
 * error state around one save, the server's 400 put at the field it names, and the row with
 * the rest of the error, Cancel and the submit button.
 */
import { useState } from "preact/hooks";
import { ErrorMessage } from "./error_message.tsx";
import { fieldErrors } from "./workspace_form.tsx";

/**
 * `onSubmit` runs `save` once (the form is busy meanwhile), then `onDone` with what it answered;
 * a failure is kept: a 400 naming one of `fields` in `byField`, anything else in `rest`.
 */
export function useSaveForm<T>(
  fields: readonly string[],
  save: () => Promise<T>,
  onDone: (saved: T) => void,
) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const { byField, rest } = fieldErrors(error, fields);
  const onSubmit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onDone(await save());
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { busy, byField, rest, onSubmit, clearError: () => setError(null) };
}

/** The form's remaining error, then Cancel and the submit button ("Saving…" while busy). */
export function FormDialogButtons(
  { error, busy, label, onCancel }: {
    error: unknown;
    busy: boolean;
    label: string;
    onCancel: () => void;
  },
) {
  return (
    <>
      <ErrorMessage error={error} />
      <div class="button-row">
        <button type="button" class="button secondary" onClick={onCancel}>Cancel</button>
        <button type="submit" class="button" disabled={busy}>
          {busy ? "Saving…" : label}
        </button>
      </div>
    </>
  );
}
