/**
 * The end of a board loaded page by page: a sentinel that asks for the next page as it comes
 * near the viewport (IntersectionObserver), and a visible "Load more" button that does the same
 * from the keyboard, for assistive technology, and where the observer is missing. Once the
 * last of several pages has come it says so; a failed later page shows its error with Retry.
 */
import { useEffect, useRef } from "preact/hooks";
import type { PagedList } from "../state/paged.ts";
import { ErrorMessage } from "./error_message.tsx";

/** How far below the viewport the next page starts loading. */
const AHEAD_PX = 600;

export function LoadMore(
  { list, onMore, noun }: {
    list: PagedList<unknown>;
    onMore: () => void;
    /** what the board lists, plural: "ideas" */
    noun: string;
  },
) {
  const sentinel = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const end = useRef<HTMLParagraphElement>(null);
  const hasMore = list.loaded && list.nextCursor !== null;
  const latest = useRef({ hasMore, list, onMore });
  latest.current = { hasMore, list, onMore };
  const ready = () => {
    const { hasMore, list } = latest.current;
    return hasMore && !list.loading && !list.error;
  };

  useEffect(() => {
    const el = sentinel.current;
    if (!el || typeof IntersectionObserver === "undefined") return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting) && ready()) latest.current.onMore();
    }, { rootMargin: `0px 0px ${AHEAD_PX}px 0px` });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  // A page that left the sentinel near the viewport (a short page, a tall screen) asks for the
  // next one: the observer only speaks when that changes. Measured now, after the page's items
  // are laid out (an observer's last word may be from before they were).
  useEffect(() => {
    const el = sentinel.current;
    if (!el || typeof IntersectionObserver === "undefined" || !ready()) return;
    if (el.getBoundingClientRect().top <= globalThis.innerHeight + AHEAD_PX) onMore();
  }, [list.items.length, list.loading, hasMore]);

  // The button pressed for the last page goes away: the note that replaces it takes the focus.
  // `pressed` is how many pages there were when the focused button was pressed.
  const pressed = useRef<number | null>(null);
  useEffect(() => {
    if (pressed.current === null || list.pages <= pressed.current) return;
    if (!hasMore) end.current?.focus();
    pressed.current = null;
  }, [list.pages, hasMore]);

  // The sentinel is there from the start, so the observer always has it to watch. A first page
  // that failed is the screen's to show (once, with its own Retry); here only a later page's.
  const shown = list.loaded;
  return (
    <div class="load-more">
      <div ref={sentinel} class="load-more-sentinel" aria-hidden="true" />
      <span class="visually-hidden" role="status">
        {list.loading && list.loaded ? `Loading more ${noun}…` : ""}
      </span>
      {shown && (list.error || hasMore || list.pages > 1) && (
        <div class="load-more-body">
          <ErrorMessage error={list.error} onRetry={onMore} />
          {hasMore && !list.error && (
            <button
              ref={button}
              type="button"
              class="button secondary load-more-button"
              aria-disabled={list.loading}
              onClick={() => {
                if (list.loading) return;
                pressed.current = document.activeElement === button.current ? list.pages : null;
                onMore();
              }}
            >
              {list.loading && <span class="spinner" aria-hidden="true" />}
              {`Load more ${noun}`}
            </button>
          )}
          {!hasMore && list.pages > 1 && (
            <p class="load-more-end" ref={end} tabIndex={-1}>
              {`All ${list.items.length} ${noun} shown`}
            </p>
          )}
        </div>
      )}
    </div>
  );
}
