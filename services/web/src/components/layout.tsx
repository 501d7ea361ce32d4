import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { Link, navigate, url } from "../router.tsx";
import { claims, isAdmin, signOut } from "../state/session.ts";
import { workspaces } from "../state/workspaces.ts";

/** The workspace of the current URL (`/workspaces/:id/...`), if any. */
export function currentWorkspaceId(): string | null {
  const m = /^\/workspaces\/([^/]+)/.exec(url.value.path);
  return m ? decodeURIComponent(m[1]) : null;
}

/** The app frame: top bar (switcher, nav, user menu) and the main area. */
export function Layout({ children }: { children: ComponentChildren }) {
  return (
    <div class="app-frame">
      <a class="skip-link" href="#main">Skip to content</a>
      <TopBar />
      <main id="main" class="main" tabIndex={-1}>{children}</main>
    </div>
  );
}

function TopBar() {
  const workspaceId = currentWorkspaceId() ?? workspaces.value?.[0]?.workspace_id ?? null;
  const base = workspaceId ? `/workspaces/${encodeURIComponent(workspaceId)}` : null;
  return (
    <header class="top-bar">
      <Link href="/" class="brand">Content Pipeline</Link>
      <WorkspaceSwitcher />
      <nav class="main-nav" aria-label="Main">
        {base && (
          <>
            <Link href={`${base}/ideas`}>Ideas</Link>
            <Link href={`${base}/posts`}>Posts</Link>
            <Link href={`${base}/actions`}>Actions</Link>
            <Link href={`${base}/settings`}>Settings</Link>
          </>
        )}
        {isAdmin.value && <Link href="/admin">Admin</Link>}
      </nav>
      <UserMenu />
    </header>
  );
}

function WorkspaceSwitcher() {
  const list = workspaces.value;
  const current = currentWorkspaceId();
  if (!list || list.length === 0) return null;
  return (
    <label class="workspace-switcher">
      <span class="visually-hidden">Workspace</span>
      <select
        value={current ?? ""}
        onChange={(e) => {
          const id = (e.currentTarget as HTMLSelectElement).value;
          if (!id) return;
          const section = /^\/workspaces\/[^/]+\/(\w+)/.exec(url.value.path)?.[1] ?? "ideas";
          const keep = ["ideas", "posts", "actions", "settings"].includes(section)
            ? section
            : "ideas";
          navigate(`/workspaces/${encodeURIComponent(id)}/${keep}`);
        }}
      >
        {!current && <option value="">Choose a workspace</option>}
        {list.map((w) => <option key={w.workspace_id} value={w.workspace_id}>{w.name}</option>)}
      </select>
    </label>
  );
}

/** The user's name opening a menu with Sign out; Escape and a click outside close it. */
function UserMenu() {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const close = (e: Event) => {
      if (
        e instanceof KeyboardEvent ? e.key === "Escape" : !ref.current?.contains(e.target as Node)
      ) {
        setOpen(false);
      }
    };
    document.addEventListener("keydown", close);
    document.addEventListener("click", close);
    return () => {
      document.removeEventListener("keydown", close);
      document.removeEventListener("click", close);
    };
  }, [open]);
  const who = claims.value;
  return (
    <div class="user-menu" ref={ref}>
      <button
        type="button"
        class="user-button"
        aria-haspopup="true"
        aria-expanded={open}
        aria-controls="user-menu-panel"
        onClick={() => setOpen(!open)}
      >
        <span class="avatar" aria-hidden="true">{initials(who?.name ?? who?.email ?? "?")}</span>
        <span class="user-name">{who?.name ?? "Account"}</span>
      </button>
      {open && (
        <div id="user-menu-panel" class="menu-panel">
          <p class="menu-email">{who?.email}</p>
          <button type="button" class="menu-item" onClick={() => void signOut()}>Sign out</button>
        </div>
      )}
    </div>
  );
}

function initials(name: string): string {
  return name.split(/\s+/).filter(Boolean).slice(0, 2).map((p) => p[0]!.toUpperCase()).join("");
}
