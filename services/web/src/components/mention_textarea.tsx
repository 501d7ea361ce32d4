/**
 * A comment or reply box where `@` opens a picker of the workspace's members, filtered as you
 * type. The box stays a multi-line textbox (ARIA's combobox is single-line only, and ARIA in HTML
 * allows no other role on a textarea) with list autocomplete: it has a listbox popup
 * (`aria-haspopup`, `aria-controls`), the active member is its `aria-activedescendant`, and a
 * status line says how many members the picker lists. Arrow keys move, Enter or Tab puts
 * `@Name ` in, Escape closes the picker and leaves the text as it is; a click picks too. The
 * parent sends `mentionedIds(text, members)` with the comment.
 */
import type { Ref } from "preact";
import { useEffect, useId, useMemo, useRef, useState } from "preact/hooks";
import { memberDirectory } from "../state/members.ts";
import {
  displayName,
  insertMention,
  type Mentionable,
  mentionAt,
  splitMentions,
  suggest,
} from "./mentions.ts";

export { type Mentionable, mentionedIds } from "./mentions.ts";

/** The workspace's members to mention (empty until read, and when the read fails). */
export function useMentionable(workspaceId: string): Mentionable[] {
  const [list, setList] = useState<Mentionable[]>([]);
  useEffect(() => {
    let live = true;
    memberDirectory(workspaceId).then((members) => live && setList(members), () => {});
    return () => {
      live = false;
    };
  }, [workspaceId]);
  return list;
}

export interface MentionTextareaProps {
  id: string;
  value: string;
  onInput: (value: string) => void;
  members: Mentionable[];
  inputRef?: Ref<HTMLTextAreaElement>;
  rows?: number;
  maxLength?: number;
  placeholder?: string;
  /** Keys the picker does not take (Ctrl+Enter to send, Escape when the picker is closed). */
  onKeyDown?: (e: KeyboardEvent & { currentTarget: HTMLTextAreaElement }) => void;
}

export function MentionTextarea(
  { id, value, onInput, members, inputRef, rows = 2, maxLength, placeholder, onKeyDown }:
    MentionTextareaProps,
) {
  const listId = `${id}-mentions`;
  const hintId = useId();
  const own = useRef<HTMLTextAreaElement | null>(null);
  const [caret, setCaret] = useState<number | null>(null);
  const [active, setActive] = useState(0);
  /** The `@` whose picker was closed with Escape (it stays closed until another `@`). */
  const [dismissed, setDismissed] = useState<number | null>(null);
  const pendingCaret = useRef<number | null>(null);

  const mention = caret === null ? null : mentionAt(value, caret);
  const options = useMemo(
    () => (mention ? suggest(members, mention.query) : []),
    [members, mention?.query, mention?.at],
  );
  const open = mention !== null && mention.at !== dismissed && options.length > 0;
  const current = open ? Math.min(active, options.length - 1) : -1;

  useEffect(() => setActive(0), [mention?.at, mention?.query]);
  useEffect(() => {
    if (!mention) setDismissed(null);
  }, [mention === null]);
  useEffect(() => {
    // After a pick, the caret goes right after the inserted name.
    const at = pendingCaret.current;
    if (at === null || !own.current) return;
    pendingCaret.current = null;
    own.current.setSelectionRange(at, at);
    setCaret(at);
  }, [value]);

  const track = (el: HTMLTextAreaElement) => {
    setCaret(el.selectionStart === el.selectionEnd ? el.selectionStart : null);
  };

  const pick = (member: Mentionable) => {
    if (!mention) return;
    const next = insertMention(value, mention, member);
    pendingCaret.current = next.caret;
    onInput(next.text);
    own.current?.focus();
  };

  const setRefs = (el: HTMLTextAreaElement | null) => {
    own.current = el;
    if (typeof inputRef === "function") inputRef(el);
    else if (inputRef) inputRef.current = el;
  };

  return (
    <div class="mention-box">
      <textarea
        id={id}
        ref={setRefs}
        aria-haspopup="listbox"
        aria-autocomplete="list"
        aria-controls={listId}
        aria-activedescendant={current >= 0 ? `${listId}-${current}` : undefined}
        aria-describedby={hintId}
        rows={rows}
        maxLength={maxLength}
        placeholder={placeholder}
        value={value}
        onInput={(e) => {
          onInput(e.currentTarget.value);
          track(e.currentTarget);
        }}
        onClick={(e) => track(e.currentTarget)}
        onKeyUp={(e) => {
          // Keys that move the caret without typing (Up and Down move the picker's choice
          // while it is open).
          const moves = ["ArrowLeft", "ArrowRight", "Home", "End", "PageUp", "PageDown"];
          if (!open) moves.push("ArrowUp", "ArrowDown");
          if (moves.includes(e.key)) track(e.currentTarget);
        }}
        onBlur={() => setCaret(null)}
        onFocus={(e) => track(e.currentTarget)}
        onKeyDown={(e) => {
          if (open && !e.ctrlKey && !e.metaKey && !e.altKey) {
            if (e.key === "ArrowDown" || e.key === "ArrowUp") {
              e.preventDefault();
              const step = e.key === "ArrowDown" ? 1 : -1;
              setActive((current + step + options.length) % options.length);
              return;
            }
            if ((e.key === "Enter" && !e.shiftKey) || e.key === "Tab") {
              e.preventDefault();
              pick(options[current]);
              return;
            }
            if (e.key === "Escape") {
              e.preventDefault();
              e.stopPropagation();
              setDismissed(mention!.at);
              return;
            }
          }
          onKeyDown?.(e);
        }}
      />
      <span id={hintId} class="visually-hidden">Type @ to mention a member.</span>
      <ul
        id={listId}
        role="listbox"
        aria-label="Members to mention"
        class="mention-list"
        hidden={!open}
      >
        {open && options.map((m, i) => (
          <li
            key={m.user_id}
            id={`${listId}-${i}`}
            role="option"
            aria-selected={i === current}
            class={i === current ? "mention-option is-active" : "mention-option"}
            // Keeps the focus (and the caret) in the box while clicking.
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => pick(m)}
          >
            <span class="mention-name">{displayName(m)}</span>
            {m.name.trim() && <span class="mention-email">{m.email}</span>}
          </li>
        ))}
      </ul>
      <span class="visually-hidden" role="status">
        {open ? `${options.length} ${options.length === 1 ? "member" : "members"} to mention` : ""}
      </span>
    </div>
  );
}

/** A comment's text with its mentions of members set apart. */
export function MentionText({ text, members }: { text: string; members: Mentionable[] }) {
  return (
    <>
      {splitMentions(text, members).map((part, i) =>
        typeof part === "string" ? part : <span key={i} class="mention">{part.mention}</span>
      )}
    </>
  );
}
