/**
 * The top bar's Notifications button: the unread count (kept fresh by the store's watch, so it
 * moves without a reload), opening the list: newest first, unread ones marked, "Mark all read";
 * choosing one marks it read and opens its deep link. Escape or a click outside closes the list
 * and the focus goes back to the button.
 */
import type { ComponentType } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { loadNotifications, unreadCount, watchNotifications } from "../state/notifications.ts";
import { ErrorMessage } from "./error_message.tsx";
import { Loading } from "./loading.tsx";

/** Matches the list's id (notifications_list.tsx), which is loaded on first opening. */
const PANEL_ID = "notifications-panel";

type ListComponent = ComponentType<{ onClose: () => void }>;
let listModule: Promise<ListComponent> | null = null;

/** The list's code, fetched once, the first time the list is opened. */
function loadList(): Promise<ListComponent> {
  listModule ??= import("./notifications_list.tsx").then((m) => m.default);
  listModule.catch(() => listModule = null);
  return listModule;
}

export function NotificationsButton() {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => watchNotifications(), []);
  useEffect(() => {
    if (!open) return;
    void loadNotifications().catch(() => {});
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      setOpen(false);
      button.current?.focus();
    };
    const onClick = (e: MouseEvent) => {
      if (!root.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("click", onClick);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("click", onClick);
    };
  }, [open]);
  const count = unreadCount.value;
  return (
    <div class="notifications" ref={root}>
      <button
        ref={button}
        type="button"
        class="notifications-button"
        aria-expanded={open}
        aria-controls={PANEL_ID}
        onClick={() => setOpen(!open)}
        // About to be opened: fetch the list's code now.
        onPointerEnter={() => void loadList().catch(() => {})}
        onFocus={() => void loadList().catch(() => {})}
      >
        <BellIcon />
        <span class="notifications-word">Notifications</span>
        {count > 0 && (
          <span class="notifications-count">
            {count > 99 ? "99+" : count}
            <span class="visually-hidden">unread</span>
          </span>
        )}
      </button>
      {open && <LazyList onClose={() => setOpen(false)} />}
    </div>
  );
}

function BellIcon() {
  return (
    <svg
      class="notifications-icon"
      viewBox="0 0 24 24"
      width="20"
      height="20"
      aria-hidden="true"
      focusable="false"
    >
      <path
        fill="currentColor"
        d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22Zm7-5.5-1.5-1.8V10a5.5 5.5 0 0 0-4.25-5.36V4a1.25 1.25 0 0 0-2.5 0v.64A5.5 5.5 0 0 0 6.5 10v4.7L5 16.5V18h14v-1.5Z"
      />
    </svg>
  );
}

function LazyList({ onClose }: { onClose: () => void }) {
  const [List, setList] = useState<ListComponent | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    loadList().then((c) => live && setList(() => c), (err) => live && setError(err));
    return () => {
      live = false;
    };
  }, []);
  if (List) return <List onClose={onClose} />;
  return (
    <section id={PANEL_ID} class="notifications-panel" aria-label="Notifications">
      {error ? <ErrorMessage error={error} /> : <Loading label="Loading notifications" />}
    </section>
  );
}
