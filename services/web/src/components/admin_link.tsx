/**
 * The top bar's Admin link, with a badge of the accounts awaiting approval: read when the bar
 * appears, again when an "awaits approval" notification arrives, and after each approval or
 * rejection.
 */
import { useEffect } from "preact/hooks";
import { Link } from "../router.tsx";
import { loadPendingAccounts, pendingAccounts } from "../state/admin_pending.ts";
import { onNewNotifications } from "../state/notifications.ts";

export function AdminLink() {
  useEffect(() => {
    void loadPendingAccounts().catch(() => {});
    return onNewNotifications((arrived) => {
      if (arrived.some((n) => n.template === "account_pending")) {
        void loadPendingAccounts().catch(() => {});
      }
    });
  }, []);
  const count = pendingAccounts.value ?? 0;
  return (
    <Link href="/admin">
      Admin
      {count > 0 && (
        <span class="nav-badge">
          {count}
          <span class="visually-hidden">
            {count === 1 ? "account awaits approval" : "accounts await approval"}
          </span>
        </span>
      )}
    </Link>
  );
}
