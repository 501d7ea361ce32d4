/**
 * A modal dialog on the native `<dialog>` (focus moves in and is trapped, Escape closes, focus
 * goes back to the opener), and a confirm dialog built on it. A destructive confirm can ask for
 * a typed word (the workspace's name) before its button is enabled.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { ErrorMessage } from "./error_message.tsx";

let counter = 0;

export function WorkspaceDialog(
  { title, open, onClose, children, wide }: {
    title: string;
    open: boolean;
    onClose: () => void;
    children: ComponentChildren;
    wide?: boolean;
  },
) {
  const ref = useRef<HTMLDialogElement>(null);
  const [titleId] = useState(() => `dialog-title-${++counter}`);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      class={wide ? "workspace-dialog wa-wide" : "workspace-dialog"}
      aria-labelledby={titleId}
      onClose={() => open && onClose()}
      onClick={(e) => {
        // a click on the backdrop (the dialog element itself, outside its content) closes it
        if (e.target === ref.current) onClose();
      }}
    >
      {open && (
        <div class="workspace-dialog-body">
          <div class="workspace-dialog-head">
            <h2 id={titleId}>{title}</h2>
            <button
              type="button"
              class="icon-button"
              aria-label="Close"
              onClick={onClose}
            >
              <span aria-hidden="true">×</span>
            </button>
          </div>
          {children}
        </div>
      )}
    </dialog>
  );
}

/**
 * Asks before a destructive step. `confirmWord`: the text the user must type to enable the
 * button. `onConfirm` may throw; its error is shown in the dialog, which stays open.
 */
export function ConfirmDialog(
  { open, title, children, confirmLabel, confirmWord, onConfirm, onClose, danger = true }: {
    open: boolean;
    title: string;
    children?: ComponentChildren;
    confirmLabel: string;
    confirmWord?: string;
    onConfirm: () => Promise<void> | void;
    onClose: () => void;
    danger?: boolean;
  },
) {
  const [typed, setTyped] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (open) {
      setTyped("");
      setError(null);
      setBusy(false);
    }
  }, [open]);
  const ready = !confirmWord || typed.trim() === confirmWord.trim();
  return (
    <WorkspaceDialog title={title} open={open} onClose={onClose}>
      <form
        class="stack"
        onSubmit={async (e) => {
          e.preventDefault();
          if (!ready) return;
          setBusy(true);
          setError(null);
          try {
            await onConfirm();
            onClose();
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        {children}
        {confirmWord && (
          <div class="field">
            <label for="confirm-word">
              Type <strong>{confirmWord}</strong> to confirm
            </label>
            <input
              id="confirm-word"
              autoComplete="off"
              value={typed}
              onInput={(e) => setTyped(e.currentTarget.value)}
            />
          </div>
        )}
        <ErrorMessage error={error} />
        <div class="button-row">
          <button type="button" class="button secondary" onClick={onClose}>Cancel</button>
          <button
            type="submit"
            class={danger ? "button danger" : "button"}
            disabled={!ready || busy}
            autoFocus={!confirmWord}
          >
            {busy ? "Working…" : confirmLabel}
          </button>
        </div>
      </form>
    </WorkspaceDialog>
  );
}
