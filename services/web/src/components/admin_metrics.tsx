/** The admin screen's figures: the platform counters as a calm grid. */
import type { Schemas } from "../state/api.ts";
import { loadMetrics } from "../state/admin.ts";
import { ErrorMessage } from "./error_message.tsx";
import { Loading } from "./loading.tsx";
import { useResource } from "./use_resource.ts";

const FIGURES: { key: keyof Schemas["AdminMetrics"]; label: string }[] = [
  { key: "total_users", label: "Users" },
  { key: "pending_users", label: "Waiting for approval" },
  { key: "total_workspaces", label: "Workspaces" },
  { key: "total_posts", label: "Posts" },
  { key: "total_ideas", label: "Ideas" },
  { key: "posts_published_last_30_days", label: "Published, last 30 days" },
  { key: "active_users_last_7_days", label: "Active users, last 7 days" },
];

export function AdminMetrics() {
  const metrics = useResource(loadMetrics, []);
  if (metrics.loading && !metrics.data) return <Loading label="Loading metrics" />;
  if (metrics.error) return <ErrorMessage error={metrics.error} onRetry={metrics.reload} />;
  const data = metrics.data!;
  return (
    <div class="stack">
      <dl class="admin-metrics">
        {FIGURES.map((f) => (
          <div key={f.key} class="admin-metric">
            <dt>{f.label}</dt>
            <dd>{data[f.key].toLocaleString()}</dd>
          </div>
        ))}
      </dl>
      <div>
        <button
          type="button"
          class="button secondary"
          disabled={metrics.loading}
          onClick={metrics.reload}
        >
          {metrics.loading ? "Refreshing…" : "Refresh"}
        </button>
      </div>
    </div>
  );
}
