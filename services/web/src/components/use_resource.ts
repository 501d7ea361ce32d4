import { useCallback, useEffect, useState } from "preact/hooks";

export interface Resource<T> {
  data?: T;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/**
 * Loads `fetcher()` when `deps` change; answers data, error, loading and reload. A late
 * answer for old deps is dropped.
 *
 *     const members = useResource(() => loadMembers(workspaceId), [workspaceId]);
 *     if (members.loading) return <Loading />;
 *     if (members.error) return <ErrorMessage error={members.error} onRetry={members.reload} />;
 */
export function useResource<T>(fetcher: () => Promise<T>, deps: unknown[]): Resource<T> {
  const [state, setState] = useState<{ data?: T; error: unknown; loading: boolean }>({
    error: null,
    loading: true,
  });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true, error: null }));
    fetcher().then(
      (data) => live && setState({ data, error: null, loading: false }),
      (error) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { ...state, reload };
}
