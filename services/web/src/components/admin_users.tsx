/**
 * The admin screen's people: pending sign-ups (approve or reject) and every account (platform
 * role, enable or disable). Rejecting and disabling ask first; errors show on the row.
 */
import { useEffect, useState } from "preact/hooks";
import type { Schemas } from "../state/api.ts";
import {
  approveUser,
  loadUsers,
  pendingAccounts,
  rejectUser,
  setUserEnabled,
  setUserRole,
} from "../state/admin.ts";
import { navigate, url } from "../router.tsx";
import { claims } from "../state/session.ts";
import { formatDateTime } from "./admin_format.ts";
import { useConfirm } from "./confirm_dialog.tsx";
import { EmptyState } from "./empty_state.tsx";
import { ErrorMessage } from "./error_message.tsx";
import { Loading } from "./loading.tsx";
import { useResource } from "./use_resource.ts";

type AdminUser = Schemas["AdminUser"];

/** Runs one row's action: busy while it runs, its error kept for the row. */
function useRowAction() {
  const [busy, setBusy] = useState<string | null>(null);
  const [errors, setErrors] = useState<Record<string, unknown>>({});
  const run = async (id: string, action: () => Promise<unknown>) => {
    setBusy(id);
    setErrors((e) => ({ ...e, [id]: null }));
    try {
      await action();
      return true;
    } catch (err) {
      setErrors((e) => ({ ...e, [id]: err }));
      return false;
    } finally {
      setBusy(null);
    }
  };
  return { busy, errors, run };
}

function displayName(u: AdminUser): string {
  return u.name || u.email;
}

export function PendingUsers() {
  const users = useResource(
    () => loadUsers("pending"),
    [],
  );
  const rows = useRowAction();
  const [dialog, ask] = useConfirm();
  const [done, setDone] = useState<string | null>(null);
  // More accounts await approval than are listed (the top bar's count moved): read it again.
  const waiting = pendingAccounts.value;
  const shown = users.data?.users.filter((u) => u.status === "pending").length;
  useEffect(() => {
    if (waiting !== null && shown !== undefined && waiting > shown) users.reload();
  }, [waiting]);

  if (users.loading && !users.data) return <Loading label="Loading pending users" />;
  if (users.error) return <ErrorMessage error={users.error} onRetry={users.reload} />;
  const list = (users.data?.users ?? []).filter((u) => u.status === "pending");

  const approve = async (u: AdminUser) => {
    const ok = await rows.run(
      u.user_id,
      () => approveUser(u.user_id),
    );
    if (ok) {
      setDone(`${displayName(u)} is approved and was told so.`);
      users.reload();
    }
  };
  const reject = async (u: AdminUser) => {
    const sure = await ask({
      title: `Reject ${displayName(u)}?`,
      body: (
        <p>
          {u.email}{" "}
          will not be able to sign in. They are not notified. You can enable the account again under
          All users.
        </p>
      ),
      confirmLabel: "Reject",
    });
    if (!sure) return;
    const ok = await rows.run(
      u.user_id,
      () => rejectUser(u.user_id),
    );
    if (ok) {
      setDone(`${displayName(u)} was rejected.`);
      users.reload();
    }
  };

  return (
    <div class="stack">
      {dialog}
      <p class="admin-status" role="status">{done}</p>
      {list.length === 0
        ? (
          <EmptyState title="No one is waiting for approval">
            <p>
              People who sign up at <a href="/signup">/signup</a>{" "}
              appear here. Approve them to let them in.
            </p>
          </EmptyState>
        )
        : (
          <ul class="admin-list" aria-label="Pending users">
            {list.map((u) => (
              <li key={u.user_id} class="admin-row">
                <div class="admin-row-main">
                  <span class="admin-row-title">{displayName(u)}</span>
                  <span class="admin-row-meta">
                    {u.email} · signed up {formatDateTime(u.created_at)}
                  </span>
                </div>
                <div class="admin-row-actions">
                  <button
                    type="button"
                    class="button"
                    disabled={rows.busy === u.user_id}
                    onClick={() => void approve(u)}
                  >
                    Approve<span class="visually-hidden">{` ${displayName(u)}`}</span>
                  </button>
                  <button
                    type="button"
                    class="button secondary danger"
                    disabled={rows.busy === u.user_id}
                    onClick={() => void reject(u)}
                  >
                    Reject<span class="visually-hidden">{` ${displayName(u)}`}</span>
                  </button>
                </div>
                <ErrorMessage error={rows.errors[u.user_id]} />
              </li>
            ))}
          </ul>
        )}
    </div>
  );
}

const STATUS_LABEL: Record<AdminUser["status"], string> = {
  approved: "Approved",
  pending: "Pending",
  rejected: "Rejected",
};

export function AllUsers() {
  const users = useResource(() => loadUsers(), []);
  const rows = useRowAction();
  const [dialog, ask] = useConfirm();
  // kept in the URL (`?tab=users&q=`): a reload, a shared link or Back shows the same list
  const filter = url.value.search.get("q") ?? "";
  const setFilter = (q: string) =>
    navigate(`/admin?tab=users${q ? `&q=${encodeURIComponent(q)}` : ""}`, { replace: true });
  const [done, setDone] = useState<string | null>(null);
  const me = claims.value?.sub;

  if (users.loading && !users.data) return <Loading label="Loading users" />;
  if (users.error) return <ErrorMessage error={users.error} onRetry={users.reload} />;
  const all = users.data?.users ?? [];
  const needle = filter.trim().toLowerCase();
  const list = needle
    ? all.filter((u) => `${u.name} ${u.email}`.toLowerCase().includes(needle))
    : all;

  const setRole = async (u: AdminUser, role: "admin" | "member") => {
    const ok = await rows.run(u.user_id, () => setUserRole(u.user_id, role));
    if (ok) {
      setDone(`${displayName(u)} is now ${role === "admin" ? "an admin" : "a member"}.`);
      users.reload();
    }
  };
  const setEnabled = async (u: AdminUser, enabled: boolean) => {
    if (!enabled) {
      const sure = await ask({
        title: `Disable ${displayName(u)}?`,
        body: (
          <p>
            {u.email}{" "}
            is signed out everywhere within seconds and cannot sign in until the account is enabled
            again. Their work stays.
          </p>
        ),
        confirmLabel: "Disable",
      });
      if (!sure) return;
    }
    const ok = await rows.run(u.user_id, () => setUserEnabled(u.user_id, enabled));
    if (ok) {
      setDone(`${displayName(u)} is ${enabled ? "enabled" : "disabled"}.`);
      users.reload();
    }
  };

  return (
    <div class="stack">
      {dialog}
      <div class="field admin-filter">
        <label for="admin-user-filter">Filter users</label>
        <input
          id="admin-user-filter"
          type="search"
          placeholder="Name or email"
          value={filter}
          onInput={(e) => setFilter(e.currentTarget.value)}
        />
      </div>
      <p class="admin-status" role="status">{done}</p>
      {all.length === 0
        ? (
          <EmptyState title="No accounts yet">
            <p>
              Share <a href="/signup">/signup</a> with your team; accounts appear here.
            </p>
          </EmptyState>
        )
        : list.length === 0
        ? <p class="admin-muted">No user matches “{filter}”.</p>
        : (
          <ul class="admin-list" aria-label="All users">
            {list.map((u) => {
              const self = u.user_id === me;
              const name = displayName(u);
              return (
                <li key={u.user_id} class={u.enabled ? "admin-row" : "admin-row muted"}>
                  <div class="admin-row-main">
                    <span class="admin-row-title">
                      {name}
                      {self && <span class="badge">You</span>}
                    </span>
                    <span class="admin-row-meta">
                      {u.email} · joined {formatDateTime(u.created_at)}
                    </span>
                    <span class="admin-row-badges">
                      <span class={`badge status-${u.status}`}>{STATUS_LABEL[u.status]}</span>
                      {!u.enabled && <span class="badge status-rejected">Disabled</span>}
                    </span>
                  </div>
                  <div class="admin-row-actions">
                    <label class="admin-role">
                      <span class="visually-hidden">Role of {name}</span>
                      <select
                        value={u.role}
                        disabled={self || rows.busy === u.user_id}
                        title={self ? "You cannot change your own role" : undefined}
                        onChange={(e) =>
                          void setRole(u, e.currentTarget.value as "admin" | "member")}
                      >
                        <option value="member">Member</option>
                        <option value="admin">Admin</option>
                      </select>
                    </label>
                    {u.enabled
                      ? (
                        <button
                          type="button"
                          class="button secondary danger"
                          disabled={self || rows.busy === u.user_id}
                          title={self ? "You cannot disable yourself" : undefined}
                          onClick={() => void setEnabled(u, false)}
                        >
                          Disable<span class="visually-hidden">{` ${name}`}</span>
                        </button>
                      )
                      : (
                        <button
                          type="button"
                          class="button secondary"
                          disabled={rows.busy === u.user_id}
                          onClick={() => void setEnabled(u, true)}
                        >
                          Enable<span class="visually-hidden">{` ${name}`}</span>
                        </button>
                      )}
                  </div>
                  <ErrorMessage error={rows.errors[u.user_id]} />
                </li>
              );
            })}
          </ul>
        )}
    </div>
  );
}
