/**
 * The frame of the signed-out account screens (sign up, confirm, forgot, reset, setup): the
 * product name, one calm card with the screen's heading, and links to the other screens.
 */
import type { ComponentChildren } from "preact";

export function AuthFrame(
  { title, intro, children, footer }: {
    title: string;
    intro?: ComponentChildren;
    children: ComponentChildren;
    footer?: ComponentChildren;
  },
) {
  return (
    <div class="auth-frame">
      <p class="auth-brand">Content Pipeline</p>
      <section class="card auth-card">
        <h1>{title}</h1>
        {intro && <div class="auth-intro">{intro}</div>}
        {children}
      </section>
      {footer && <div class="auth-footer">{footer}</div>}
    </div>
  );
}

/** A success (or neutral) note that screen readers announce. */
export function AuthNotice({ children }: { children: ComponentChildren }) {
  return <div class="auth-notice" role="status">{children}</div>;
}
