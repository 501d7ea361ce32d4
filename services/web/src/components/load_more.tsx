/**
 * The end of a board loaded page by page: a sentinel that asks for the next page as it comes
 * near the viewport (IntersectionObserver), and a visible "Load more" button that does the same
 * from the keyboard, for assistive technology, and where the observer is missing. Once every
 * page has come it says so; a failed page shows its error with Retry.
 */
import { useEffect, useRef } from "preact/hooks";
import type { PagedList } from "../state/paged.ts";
import { ErrorMessage } from "./error_message.tsx";

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
  const inView = useRef(false);
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
      inView.current = entries.some((e) => e.isIntersecting);
      if (inView.current && ready()) latest.current.onMore();
    }, { rootMargin: "0px 0px 600px 0px" });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  // A page that left the sentinel in view (a short page, a tall screen) asks for the next one.
  useEffect(() => {
    if (inView.current && ready()) onMore();
  }, [list.items.length, list.loading, hasMore]);

  // The button pressed for the last page goes away: the note that replaces it takes the focus.
  const hadFocus = useRef(false);
  useEffect(() => {
    if (!hasMore && hadFocus.current) end.current?.focus();
    if (!list.loading) hadFocus.current = false;
  }, [hasMore, list.loading]);

  if (!list.loaded && !list.error) return null;
  return (
    <div class="load-more">
      <div ref={sentinel} class="load-more-sentinel" aria-hidden="true" />
      <ErrorMessage error={list.error} onRetry={onMore} />
      {hasMore && !list.error && (
        <button
          ref={button}
          type="button"
          class="button secondary load-more-button"
          aria-disabled={list.loading}
          onClick={() => {
            hadFocus.current = document.activeElement === button.current;
            if (!list.loading) onMore();
          }}
        >
          {list.loading ? `Loading more ${noun}…` : `Load more ${noun}`}
        </button>
      )}
      {!hasMore && list.loaded && list.items.length > 0 && (
        <p class="load-more-end" ref={end} tabIndex={-1}>
          {`All ${list.items.length} ${noun} shown`}
        </p>
      )}
    </div>
  );
}
