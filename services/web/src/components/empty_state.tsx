import type { ComponentChildren } from "preact";

/**
 * What an empty list shows: what it is and what to do next (`children`: the action). `level` 1
 * when the empty state is the whole screen (so the page still has its one main heading).
 */
export function EmptyState(
  { title, children, level = 2 }: { title: string; children?: ComponentChildren; level?: 1 | 2 },
) {
  const Heading = level === 1 ? "h1" : "h2";
  return (
    <section class="empty-state">
      <Heading>{title}</Heading>
      {children}
    </section>
  );
}
