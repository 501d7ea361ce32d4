/**
 * Quick add on the ideas board: one free-text box, Enter adds (Shift+Enter for a new line).
 * The idea shows at once as a pending card ("Titling…") until the server answers with the
 * AI's title.
 */
import type { Ref } from "preact";
import { useState } from "preact/hooks";
import { ErrorMessage } from "./error_message.tsx";

import type { PendingIdea } from "../state/ideas.ts";

export type { PendingIdea };

let counter = 0;

export function IdeaQuickAdd(
  { inputRef, onSubmit }: {
    inputRef: Ref<HTMLTextAreaElement>;
    onSubmit: (e: PendingIdea) => void;
  },
) {
  const [text, setText] = useState("");
  const submit = () => {
    const value = text.trim();
    if (!value) return;
    onSubmit({ key: `pending-${++counter}`, text: value });
    setText("");
  };
  return (
    <form
      class="idea-quick-add"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <label for="idea-quick-add" class="visually-hidden">New idea</label>
      <textarea
        id="idea-quick-add"
        ref={inputRef}
        rows={1}
        maxLength={20000}
        placeholder="Jot down an idea and press Enter — the AI titles it"
        aria-describedby="idea-quick-add-hint"
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            submit();
          } else if (e.key === "Escape") {
            e.currentTarget.blur();
          }
        }}
      />
      <button type="submit" class="button" disabled={!text.trim()}>Add idea</button>
      <p id="idea-quick-add-hint" class="idea-hint">
        <kbd>Enter</kbd> adds · <kbd>Shift</kbd>+<kbd>Enter</kbd> new line · <kbd>N</kbd> or{" "}
        <kbd>/</kbd> jumps here
      </p>
    </form>
  );
}

/** A just-added idea waiting for its title (or showing why it failed). */
export function IdeaPendingItem(
  { entry, onRetry, onDismiss }: {
    entry: PendingIdea;
    onRetry: () => void;
    onDismiss: () => void;
  },
) {
  return (
    <li class="idea-card idea-pending" aria-busy={!entry.error}>
      <h2 class="idea-title">
        {entry.error ? "Not added" : (
          <span class="idea-titling">
            <span class="spinner" aria-hidden="true" />Titling…
          </span>
        )}
      </h2>
      <p class="idea-description">{entry.text}</p>
      {entry.error !== undefined && (
        <>
          <ErrorMessage error={entry.error} />
          <div class="idea-actions">
            <button type="button" class="button secondary" onClick={onRetry}>Try again</button>
            <button type="button" class="button secondary" onClick={onDismiss}>Discard</button>
          </div>
        </>
      )}
    </li>
  );
}
