import type { ComponentChildren } from "preact";

/** What an empty list shows: what it is and what to do next (`children`: the action). */
export function EmptyState(
  { title, children }: { title: string; children?: ComponentChildren },
) {
  return (
    <section class="empty-state">
      <h2>{title}</h2>
      {children}
    </section>
  );
}
