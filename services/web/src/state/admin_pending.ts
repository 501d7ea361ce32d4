/**
 * How many accounts await approval: the Admin link's badge. Apart from the admin store so the
 * top bar does not load the admin screen's code.
 */
import { signal } from "@preact/signals";
import { call, client, type Schemas } from "./api.ts";

/** Null until read. */
export const pendingAccounts = signal<number | null>(null);

/** Counts the pending accounts of an answer of the users list filtered to pending ones. */
export function countPending(users: Schemas["AdminUser"][]) {
  pendingAccounts.value = users.filter((u) => u.status === "pending").length;
}

/** Re-reads the number of accounts awaiting approval. */
export async function loadPendingAccounts(): Promise<void> {
  const data = await call(
    client().GET("/api/admin/users", { params: { query: { status: "pending" } } }),
  );
  countPending(data.users);
}
