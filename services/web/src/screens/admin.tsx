/**
 * `/admin?tab=...` (admins only): pending users, all users, workspaces, metrics and backups.
 * Each section is a deep link; a non-admin sees "Admin access required".
 */
import { AdminBackups } from "../components/admin_backups.tsx";
import { AdminMetrics } from "../components/admin_metrics.tsx";
import { AllUsers, PendingUsers } from "../components/admin_users.tsx";
import { AdminWorkspaces } from "../components/admin_workspaces.tsx";
import { Link, url } from "../router.tsx";
import type { ScreenProps } from "../screen_props.ts";
import { isAdmin } from "../state/session.ts";

const TABS = [
  { id: "pending", label: "Pending users", render: () => <PendingUsers /> },
  { id: "users", label: "All users", render: () => <AllUsers /> },
  { id: "workspaces", label: "Workspaces", render: () => <AdminWorkspaces /> },
  { id: "metrics", label: "Metrics", render: () => <AdminMetrics /> },
  { id: "backups", label: "Backups", render: () => <AdminBackups /> },
] as const;

export default function AdminScreen(_: ScreenProps) {
  if (!isAdmin.value) {
    return (
      <section class="card narrow stack">
        <h1>Admin access required</h1>
        <p>This page is for platform admins. Ask an admin if you need something changed here.</p>
        <p>
          <Link href="/">Back to your workspaces</Link>
        </p>
      </section>
    );
  }
  const wanted = url.value.search.get("tab");
  const tab = TABS.find((t) => t.id === wanted) ?? TABS[0];
  return (
    <div class="admin stack">
      <h1>Admin</h1>
      <nav class="admin-tabs" aria-label="Admin sections">
        {TABS.map((t) => (
          <Link
            key={t.id}
            href={`/admin?tab=${t.id}`}
            class="admin-tab"
            aria-current={t.id === tab.id ? "page" : undefined}
          >
            {t.label}
          </Link>
        ))}
      </nav>
      <section aria-labelledby="admin-section-title" class="admin-section">
        {/* the tabs show where you are; the heading is for screen-reader navigation */}
        <h2 id="admin-section-title" class="visually-hidden">{tab.label}</h2>
        {/* keyed: a new tab starts fresh (its own loading and state) */}
        <div key={tab.id}>{tab.render()}</div>
      </section>
    </div>
  );
}
