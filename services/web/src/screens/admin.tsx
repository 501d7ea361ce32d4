import type { ScreenProps } from "../routes.ts";

/** Pending users, all users, workspaces, metrics and backups. (placeholder: the screen's helper fills it in) */
export default function AdminScreen(_: ScreenProps) {
  return (
    <section class="stack">
      <h1>Admin</h1>
      <p>Pending users, all users, workspaces, metrics and backups.</p>
    </section>
  );
}
