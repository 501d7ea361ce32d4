/**
 * A read-only value with a Copy button. Without clipboard access the value is selected so
 * Ctrl+C / ⌘C copies it, and the button says so.
 */
import { useEffect, useRef, useState } from "preact/hooks";

export function CaptureCopyField(
  { id, label, value, multiline = false, buttonLabel }: {
    id: string;
    label: string;
    value: string;
    multiline?: boolean;
    buttonLabel?: string;
  },
) {
  const [state, setState] = useState<"idle" | "copied" | "manual">("idle");
  const field = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  useEffect(() => {
    if (state === "idle") return;
    const t = setTimeout(() => setState("idle"), 2500);
    return () => clearTimeout(t);
  }, [state]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setState("copied");
    } catch {
      field.current?.focus();
      field.current?.select();
      setState("manual");
    }
  };
  return (
    <div class="capture-copy">
      <label for={id}>{label}</label>
      <div class="capture-copy-row">
        {multiline
          ? (
            <textarea
              id={id}
              ref={field}
              readOnly
              rows={3}
              spellcheck={false}
              value={value}
              onFocus={(e) => e.currentTarget.select()}
            />
          )
          : (
            <input
              id={id}
              ref={field}
              readOnly
              spellcheck={false}
              value={value}
              onFocus={(e) => e.currentTarget.select()}
            />
          )}
        <button type="button" class="button secondary" onClick={() => void copy()}>
          {buttonLabel ?? `Copy ${label.toLowerCase()}`}
        </button>
      </div>
      <p class="capture-copy-status" role="status">
        {state === "copied"
          ? "Copied"
          : state === "manual"
          ? "Selected: press Ctrl+C (⌘C) to copy"
          : ""}
      </p>
    </div>
  );
}
