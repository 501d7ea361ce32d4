import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { Link, navigate, url } from "../router.tsx";
import { claims, isAdmin, isApproved, signOut } from "../state/session.ts";
import { preferredWorkspace, rememberWorkspace, workspaces } from "../state/workspaces.ts";
import { CreateWorkspaceDialog } from "./workspace_create.tsx";
import { NotificationsButton } from "./notifications_button.tsx";
import { AdminLink } from "./admin_link.tsx";

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

/**
 * The top bar: brand, workspace switcher, the workspace's sections and the user menu. Below
 * 768 px the switcher and sections fold into a Menu button (closed again by a navigation, by
 * Escape, or by the button).
 */
function TopBar() {
  const workspaceId = currentWorkspaceId() ?? preferredWorkspace()?.workspace_id ?? null;
  const base = workspaceId ? `/workspaces/${encodeURIComponent(workspaceId)}` : null;
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const path = url.value.path;
  useEffect(() => setOpen(false), [path]);
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      setOpen(false);
      toggle.current?.focus();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [open]);
  return (
    <header class={base ? "top-bar has-sections" : "top-bar"}>
      <Link href="/" class="brand">Content Pipeline</Link>
      <button
        ref={toggle}
        type="button"
        class="nav-toggle"
        aria-expanded={open}
        aria-controls="top-bar-menu"
        onClick={() => setOpen(!open)}
      >
        <span class="nav-toggle-icon" aria-hidden="true" />
        Menu
      </button>
      <div id="top-bar-menu" class={open ? "top-bar-menu is-open" : "top-bar-menu"}>
        <WorkspaceSwitcher />
        <nav class="main-nav" aria-label="Main">
          {base && (
            <>
              <Link href={`${base}/ideas`}>Ideas</Link>
              <Link href={`${base}/posts`}>Posts</Link>
              <Link href={`${base}/calendar`}>Calendar</Link>
              <Link href={`${base}/actions`}>Actions</Link>
              <Link href={`${base}/prompts`}>Prompts</Link>
              <Link href={`${base}/examples`}>Examples</Link>
              <Link href={`${base}/settings`}>Settings</Link>
            </>
          )}
          {isAdmin.value && <AdminLink />}
        </nav>
      </div>
      {/* the bell and the account stay together at the row's end, whichever row that is */}
      <div class="top-bar-end">
        {isApproved.value && <NotificationsButton />}
        <UserMenu />
      </div>
    </header>
  );
}

/** The sections a workspace switch keeps (a post's page falls back to the posts list). */
const SECTIONS = [
  "ideas",
  "posts",
  "calendar",
  "actions",
  "prompts",
  "examples",
  "settings",
  "capture",
];

/**
 * The workspace select (switching keeps the section) and "New workspace" (a dialog). The
 * workspace of the URL is remembered, so `/` opens it next time.
 */
function WorkspaceSwitcher() {
  const list = workspaces.value;
  const current = currentWorkspaceId();
  const [creating, setCreating] = useState(false);
  const known = !!current && !!list?.some((w) => w.workspace_id === current);
  useEffect(() => {
    if (current && known) rememberWorkspace(current);
  }, [current, known]);
  if (!list) return null;
  return (
    <div class="workspace-switcher">
      {list.length > 0 && (
        <label>
          <span class="visually-hidden">Workspace</span>
          <select
            value={known ? current! : ""}
            onChange={(e) => {
              const id = (e.currentTarget as HTMLSelectElement).value;
              if (!id) return;
              const section = /^\/workspaces\/[^/]+\/(\w+)/.exec(url.value.path)?.[1] ?? "ideas";
              const keep = SECTIONS.includes(section) ? section : "ideas";
              navigate(`/workspaces/${encodeURIComponent(id)}/${keep}`);
            }}
          >
            {!known && <option value="">Choose a workspace</option>}
            {list.map((w) => <option key={w.workspace_id} value={w.workspace_id}>{w.name}</option>)}
          </select>
        </label>
      )}
      <button
        type="button"
        class="button secondary wa-small workspace-new"
        onClick={() => setCreating(true)}
        aria-label="New workspace"
        title="New workspace"
      >
        <span aria-hidden="true">+</span>
        {/* the word stays visible on a phone too: a lone "+" says nothing */}
        <span class="workspace-new-text" aria-hidden="true">
          {list.length > 0 ? "New" : "New workspace"}
        </span>
      </button>
      <CreateWorkspaceDialog open={creating} onClose={() => setCreating(false)} />
    </div>
  );
}

/**
 * The user's name opening a menu with Personal settings and Sign out; Escape and a click outside
 * close it.
 */
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
          <Link href="/account" class="menu-item" onClick={() => setOpen(false)}>
            Personal settings
          </Link>
          <button type="button" class="menu-item" onClick={() => void signOut()}>Sign out</button>
        </div>
      )}
    </div>
  );
}

function initials(name: string): string {
  return name.split(/\s+/).filter(Boolean).slice(0, 2).map((p) => p[0]!.toUpperCase()).join("");
}
