/**
 * The ideas board (`/workspaces/:id/ideas`), the app's landing screen: newest first, loaded a
 * page at a time as the person scrolls (or presses "Load more ideas"); filters (status, tags,
 * author) kept in the URL query so a filtered view is a deep link, and applied by the server; quick add
 * (Enter submits; the idea shows at once with "Titling…" until the AI title comes back);
 * edit, delete and "Write a post" on each idea. `n` or `/` focuses quick add.
 *
 * Kept light on purpose: this chunk imports nothing beyond the app's own core.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { Schemas } from "../state/api.ts";
import { EmptyState } from "../components/empty_state.tsx";
import { ErrorMessage } from "../components/error_message.tsx";
import { IdeaFilters, type IdeaFilterValues, parseTags } from "../components/idea_filters.tsx";
import { IdeaItem } from "../components/idea_item.tsx";
import { IdeaPendingItem, IdeaQuickAdd, type PendingIdea } from "../components/idea_quick_add.tsx";
import { Loading } from "../components/loading.tsx";
import { LoadMore } from "../components/load_more.tsx";
import { useResource } from "../components/use_resource.ts";
import { Link, navigate, url } from "../router.tsx";
import type { ScreenProps } from "../screen_props.ts";
import {
  dismissPendingIdea,
  forgetPendingIdeas,
  ideaBoard,
  type IdeaQuery,
  pendingIdeas,
  quickAddIdea,
} from "../state/ideas.ts";
import { loadMembers } from "../state/members.ts";
import { claims } from "../state/session.ts";

type Idea = Schemas["Idea"];

function filtersFromUrl(search: URLSearchParams): IdeaFilterValues {
  const status = search.get("status");
  return {
    status: status === "new" || status === "converted" ? status : "",
    tags: parseTags(search.get("tags") ?? "").join(","),
    author: search.get("author") ?? "",
  };
}

function matches(idea: Idea, f: IdeaFilterValues): boolean {
  if (f.status && idea.status !== f.status) return false;
  if (f.author && idea.created_by !== f.author) return false;
  const want = parseTags(f.tags);
  return want.every((t) => idea.tags.includes(t));
}

export default function IdeasScreen({ params }: ScreenProps) {
  const workspaceId = params.workspaceId;
  const base = `/workspaces/${encodeURIComponent(workspaceId)}`;
  const filters = filtersFromUrl(url.value.search);
  const filtered = Boolean(filters.status || filters.tags || filters.author);

  const query: IdeaQuery = { workspaceId, ...filters };
  useEffect(() => {
    void ideaBoard.load(query);
  }, [workspaceId, filters.status, filters.tags, filters.author]);
  const members = useResource(
    () => loadMembers(workspaceId),
    [workspaceId],
  );

  // The pages loaded for these filters, patched locally from each write's answer (no refetch
  // needed); null until the board shows them (the first render after the filters changed).
  const board = ideaBoard.state.value?.key === ideaBoard.keyOf(query)
    ? ideaBoard.state.value
    : null;
  const items = board && (board.loaded || board.items.length > 0) ? board.items : null;
  const patch = (fn: (list: Idea[]) => Idea[]) => ideaBoard.patch(fn);

  const pending = pendingIdeas.value.filter((p) => p.workspaceId === workspaceId);
  useEffect(() => forgetPendingIdeas, []);
  const [hiddenNotice, setHiddenNotice] = useState<Idea | null>(null);
  const quickAdd = useRef<HTMLTextAreaElement>(null);

  // "n" or "/" focuses quick add, unless the person is typing somewhere.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key !== "n" && e.key !== "/") return;
      const t = e.target as HTMLElement | null;
      if (
        t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName) ||
          t.closest("[role=dialog]"))
      ) return;
      e.preventDefault();
      quickAdd.current?.focus();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);

  const authorNames = new Map<string, string>(
    (members.data?.members ?? []).map((m) => [m.user_id, m.name || m.email]),
  );

  function setFilters(next: IdeaFilterValues) {
    const q = new URLSearchParams();
    if (next.status) q.set("status", next.status);
    const tags = parseTags(next.tags).join(",");
    if (tags) q.set("tags", tags);
    if (next.author) q.set("author", next.author);
    const query = q.toString();
    const to = `${base}/ideas${query ? `?${query}` : ""}`;
    if (to !== location.pathname + location.search) navigate(to, { replace: true });
  }

  async function submitIdea(entry: PendingIdea) {
    const idea = await quickAddIdea(workspaceId, entry);
    if (!idea) return;
    if (matches(idea, filtersFromUrl(new URLSearchParams(location.search)))) {
      patch((list) => [idea, ...list.filter((i) => i.idea_id !== idea.idea_id)]);
      setHiddenNotice(null);
    } else {
      setHiddenNotice(idea);
    }
  }

  const list = items ?? [];
  const total = list.length;
  const complete = board?.nextCursor === null;
  const me = claims.value?.sub;
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

  return (
    <section class="ideas-screen stack">
      <header class="ideas-header">
        <h1>Ideas</h1>
        <Link href={`${base}/capture`} class="button secondary">Quick capture</Link>
      </header>

      <IdeaQuickAdd
        inputRef={quickAdd}
        onSubmit={(entry) => void submitIdea(entry)}
      />

      <IdeaFilters
        values={filters}
        members={members.data?.members}
        me={me}
        onChange={setFilters}
      />
      <ErrorMessage error={members.error} onRetry={members.reload} />

      {hiddenNotice && (
        <p class="idea-notice" role="status">
          Added “{hiddenNotice.title}”. The current filters hide it.{" "}
          <button
            type="button"
            class="idea-link-button"
            onClick={() => {
              setHiddenNotice(null);
              setFilters({ status: "", tags: "", author: "" });
            }}
          >
            Clear filters
          </button>
        </p>
      )}

      {board?.error && items === null
        ? <ErrorMessage error={board.error} onRetry={() => void ideaBoard.load(query)} />
        : items === null
        ? <Loading label="Loading ideas" />
        : (
          <>
            <p class="ideas-count" role="status" aria-live="polite">
              {!complete
                ? `${plural(total, "idea", "ideas")}${
                  filtered ? " matching the filters" : ""
                } shown; more load as you scroll`
                : filtered
                ? `${total} ${total === 1 ? "idea matches" : "ideas match"} the filters`
                : plural(total, "idea", "ideas")}
            </p>
            {total === 0 && pending.length === 0 && complete
              ? (
                filtered
                  ? (
                    <EmptyState title="No idea matches these filters">
                      <p>Change or clear the filters to see more ideas.</p>
                      <button
                        type="button"
                        class="button secondary"
                        onClick={() => setFilters({ status: "", tags: "", author: "" })}
                      >
                        Clear filters
                      </button>
                    </EmptyState>
                  )
                  : (
                    <EmptyState title="No ideas yet">
                      <p>
                        Type a thought in the box above and press Enter: the AI gives it a title. Or
                        grab ideas from any web page with the{" "}
                        <Link href={`${base}/capture`}>quick-capture bookmarklet</Link>.
                      </p>
                    </EmptyState>
                  )
              )
              : (
                <ul class="idea-list" aria-label="Ideas">
                  {pending.map((entry) => (
                    <IdeaPendingItem
                      key={entry.key}
                      entry={entry}
                      onRetry={() => void submitIdea({ ...entry, error: undefined })}
                      onDismiss={() => dismissPendingIdea(entry.key)}
                    />
                  ))}
                  {list.map((idea) => (
                    <IdeaItem
                      key={idea.idea_id}
                      idea={idea}
                      workspaceId={workspaceId}
                      authorName={authorNames.get(idea.created_by) ??
                        (idea.created_by === me ? claims.value?.name : undefined)}
                      onChange={(next) =>
                        patch((l) => l.map((i) => i.idea_id === next.idea_id ? next : i))}
                      onDelete={(id) => {
                        patch((l) => l.filter((i) => i.idea_id !== id));
                        quickAdd.current?.focus();
                      }}
                      onTagClick={(tag) => {
                        const tags = parseTags(filters.tags);
                        if (!tags.includes(tag)) tags.push(tag);
                        setFilters({ ...filters, tags: tags.join(",") });
                      }}
                    />
                  ))}
                </ul>
              )}
            {board && <LoadMore list={board} onMore={() => void ideaBoard.more()} noun="ideas" />}
          </>
        )}
    </section>
  );
}
