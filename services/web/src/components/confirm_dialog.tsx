/**
 * A confirmation for destructive actions (reject, disable, delete, restore...): a modal
 * `<dialog>` (focus kept inside, Escape cancels, focus returns to the control that opened it).
 * Cancel has the focus first, so Enter never destroys by accident.
 *
 *     const [dialog, ask] = useConfirm();
 *     if (await ask({ title: "Reject Ada?", body: "...", confirmLabel: "Reject" })) ...
 *     return <>{dialog}...</>;
 */
import type { ComponentChildren, VNode } from "preact";
import { useCallback, useEffect, useId, useRef, useState } from "preact/hooks";

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  /** What will happen, in a sentence or two. */
  children?: ComponentChildren;
  /** The verb of the action ("Delete workspace"); never "OK". */
  confirmLabel: string;
  /** Styles the confirm button as dangerous (default true). */
  danger?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}

export function ConfirmDialog(
  { open, title, children, confirmLabel, danger = true, onConfirm, onCancel }: ConfirmDialogProps,
) {
  const ref = useRef<HTMLDialogElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const opener = useRef<Element | null>(null);
  const id = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      opener.current = document.activeElement;
      dialog.showModal();
      cancelRef.current?.focus();
    } else if (!open && dialog.open) {
      dialog.close();
    }
  }, [open]);
  useEffect(() => {
    if (open) return;
    const back = opener.current;
    opener.current = null;
    if (back instanceof HTMLElement && back.isConnected) back.focus();
  }, [open]);
  return (
    <dialog
      ref={ref}
      class="confirm-dialog"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-body`}
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
      onClick={(e) => {
        // a click on the backdrop (the dialog element itself, outside its box) cancels
        const dialog = ref.current;
        if (dialog && e.target === dialog) {
          const box = dialog.getBoundingClientRect();
          const inside = e.clientX >= box.left && e.clientX <= box.right &&
            e.clientY >= box.top && e.clientY <= box.bottom;
          if (!inside) onCancel();
        }
      }}
    >
      <h2 id={`${id}-title`}>{title}</h2>
      <div id={`${id}-body`} class="confirm-dialog-body">{children}</div>
      <div class="confirm-dialog-actions">
        <button ref={cancelRef} type="button" class="button secondary" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" class={danger ? "button danger" : "button"} onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

export interface ConfirmRequest {
  title: string;
  body?: ComponentChildren;
  confirmLabel: string;
  danger?: boolean;
}

/** The dialog to render, and `ask(request)` answering true when the user confirmed. */
export function useConfirm(): [VNode, (request: ConfirmRequest) => Promise<boolean>] {
  const [pending, setPending] = useState<
    { request: ConfirmRequest; resolve: (ok: boolean) => void } | null
  >(null);
  const ask = useCallback(
    (request: ConfirmRequest) =>
      new Promise<boolean>((resolve) => setPending({ request, resolve })),
    [],
  );
  const finish = (ok: boolean) => {
    pending?.resolve(ok);
    setPending(null);
  };
  const dialog = (
    <ConfirmDialog
      open={pending !== null}
      title={pending?.request.title ?? ""}
      confirmLabel={pending?.request.confirmLabel ?? "Confirm"}
      danger={pending?.request.danger ?? true}
      onConfirm={() => finish(true)}
      onCancel={() => finish(false)}
    >
      {pending?.request.body}
    </ConfirmDialog>
  );
  return [dialog, ask];
}
