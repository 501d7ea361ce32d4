/**
 * A small router on signals: the current URL is a signal, `navigate` pushes history, `<Link>`
 * is an `<a>` that navigates without a reload. Route table: `routes.ts`.
 */
import { signal } from "@preact/signals";
import type { AnchorHTMLAttributes, ComponentChildren } from "preact";

export interface Url {
  path: string;
  search: URLSearchParams;
}

function current(): Url {
  return { path: location.pathname, search: new URLSearchParams(location.search) };
}

export const url = signal<Url>(current());

addEventListener("popstate", () => {
  url.value = current();
});

/** Goes to an app path (with an optional `?query`); `replace` keeps the history entry. */
export function navigate(to: string, { replace = false }: { replace?: boolean } = {}) {
  if (replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  url.value = current();
  scrollTo(0, 0);
}

/** Matches `/workspaces/:id/posts/:postId` against a path; the params, or null. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split("/").filter(Boolean);
  const got = path.split("/").filter(Boolean);
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(":")) params[want[i].slice(1)] = decodeURIComponent(got[i]);
    else if (want[i] !== got[i]) return null;
  }
  return params;
}

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & {
  href: string;
  children?: ComponentChildren;
};

/** An in-app link: a real `<a href>` (middle-click, copy link work) that navigates in place. */
export function Link({ href, onClick, ...rest }: LinkProps) {
  const active = url.value.path === href;
  return (
    <a
      href={href}
      aria-current={active ? "page" : undefined}
      onClick={(e) => {
        onClick?.(e);
        if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
        e.preventDefault();
        navigate(href);
      }}
      {...rest}
    />
  );
}
