/**
 * A board's list loaded a page at a time: the first page when the workspace or the filters
 * change, the next one when the screen asks (`more`, as the person scrolls), with the items
 * patched locally from each write's answer. One state signal per board; only the latest load
 * lands in it (filters changed meanwhile drop the older answer).
 */
import { type Signal, signal } from "@preact/signals";

/** The items a board shows and how far it has come. */
export interface PagedList<T> {
  /** the workspace and filters these pages are of */
  key: string;
  items: T[];
  /** the cursor of the next page; null once the last page came */
  nextCursor: string | null;
  /** a page is on its way (the first one when `items` is empty and `loaded` false) */
  loading: boolean;
  /** the first page has come */
  loaded: boolean;
  /** how many pages have come */
  pages: number;
  /** why the last page failed; a retry (`more`, or `load` again) clears it */
  error: unknown;
}

/** One page as the API answers it. */
export interface Page<T> {
  items: T[];
  next_cursor?: string | null;
}

/** How many items a board asks for at a time. */
export const BOARD_PAGE = 50;

export interface PagedBoard<T, Q> {
  state: Signal<PagedList<T> | null>;
  /** The name of `query`'s pages: `state`'s `key` when it shows them. */
  keyOf(query: Q): string;
  /** Starts over with the first page of `query` (a new workspace, new filters, a reload). */
  load(query: Q): Promise<void>;
  /** Loads the next page of what is shown, unless one is on its way or none is left. */
  more(): Promise<void>;
  /** Changes the loaded items in place (a write's answer), without asking the server. */
  patch(change: (items: T[]) => T[]): void;
}

/**
 * A paged board over `fetchPage` (one API call: the page of `query` after `cursor`). `keyOf`
 * names a query (workspace and filters) and `idOf` an item, so a page never adds an item the
 * board already shows.
 */
export function pagedBoard<T, Q>(
  fetchPage: (query: Q, cursor: string | undefined) => Promise<Page<T>>,
  keyOf: (query: Q) => string,
  idOf: (item: T) => string,
): PagedBoard<T, Q> {
  const state = signal<PagedList<T> | null>(null);
  let query: Q | null = null;
  let generation = 0;

  async function fetchInto(cursor: string | undefined, gen: number): Promise<void> {
    try {
      const page = await fetchPage(query as Q, cursor);
      if (gen !== generation || !state.peek()) return;
      const current = state.peek()!;
      const seen = new Set(current.items.map(idOf));
      state.value = {
        ...current,
        items: [...current.items, ...page.items.filter((i) => !seen.has(idOf(i)))],
        nextCursor: page.next_cursor ?? null,
        loading: false,
        loaded: true,
        pages: current.pages + 1,
        error: null,
      };
    } catch (error) {
      if (gen !== generation || !state.peek()) return;
      state.value = { ...state.peek()!, loading: false, error };
    }
  }

  return {
    state,
    keyOf,
    load(next: Q) {
      query = next;
      const gen = ++generation;
      state.value = {
        key: keyOf(next),
        items: [],
        nextCursor: null,
        loading: true,
        loaded: false,
        pages: 0,
        error: null,
      };
      return fetchInto(undefined, gen);
    },
    more() {
      const current = state.peek();
      if (!current || current.loading || query === null) return Promise.resolve();
      // after a failed first page, "more" is the retry of that page
      if (current.loaded && current.nextCursor === null) return Promise.resolve();
      state.value = { ...current, loading: true, error: null };
      return fetchInto(current.loaded ? current.nextCursor! : undefined, generation);
    },
    patch(change) {
      const current = state.peek();
      if (current) state.value = { ...current, items: change(current.items) };
    },
  };
}
