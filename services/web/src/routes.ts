/**
 * Every screen of the app, by URL (the deep links emails and DMs use). Each screen is its own chunk
 * (`import()`), so the editor's code is only loaded on the post route.
 *
 * To add a screen: write `screens/<name>.tsx` with a default export taking `ScreenProps` (screen_props.ts), and
 * add a line here. `public` screens need no session; `bare` ones render without the top bar.
 */
import type { ComponentType } from "preact";
import type { ScreenProps } from "./screen_props.ts";

export interface RouteDef {
  pattern: string;
  load: () => Promise<{ default: ComponentType<ScreenProps> }>;
  /** Reachable signed out (signup, setup, confirm, password reset, a review link). */
  public?: boolean;
  /** Without the app's top bar. */
  bare?: boolean;
  title: string;
}

export const ROUTES: RouteDef[] = [
  { pattern: "/", load: () => import("./screens/home.tsx"), title: "Home" },
  {
    pattern: "/workspaces/:workspaceId",
    load: () => import("./screens/workspace_home.tsx"),
    title: "Workspace",
  },
  {
    pattern: "/workspaces/:workspaceId/ideas",
    load: () => import("./screens/ideas.tsx"),
    title: "Ideas",
  },
  {
    pattern: "/workspaces/:workspaceId/posts",
    load: () => import("./screens/posts.tsx"),
    title: "Posts",
  },
  {
    pattern: "/workspaces/:workspaceId/posts/:postId",
    load: () => import("./screens/post_editor.tsx"),
    title: "Post",
  },
  {
    pattern: "/workspaces/:workspaceId/calendar",
    load: () => import("./screens/calendar/index.tsx"),
    title: "Calendar",
  },
  {
    pattern: "/workspaces/:workspaceId/actions",
    load: () => import("./screens/actions/index.tsx"),
    title: "Actions",
  },
  {
    pattern: "/workspaces/:workspaceId/prompts",
    load: () => import("./screens/prompts.tsx"),
    title: "Prompts",
  },
  {
    pattern: "/workspaces/:workspaceId/examples",
    load: () => import("./screens/examples.tsx"),
    title: "Example posts",
  },
  {
    pattern: "/workspaces/:workspaceId/settings",
    load: () => import("./screens/settings/index.tsx"),
    title: "Settings",
  },
  {
    pattern: "/workspaces/:workspaceId/capture",
    load: () => import("./screens/capture.tsx"),
    title: "Quick capture",
  },
  { pattern: "/capture", load: () => import("./screens/capture.tsx"), title: "Quick capture" },
  {
    pattern: "/capture/new",
    load: () => import("./screens/capture_new.tsx"),
    public: true,
    bare: true,
    title: "Capture",
  },
  { pattern: "/admin", load: () => import("./screens/admin.tsx"), title: "Admin" },
  {
    pattern: "/signup",
    load: () => import("./screens/signup.tsx"),
    public: true,
    bare: true,
    title: "Sign up",
  },
  {
    pattern: "/setup",
    load: () => import("./screens/setup.tsx"),
    public: true,
    bare: true,
    title: "Set up",
  },
  {
    pattern: "/confirm",
    load: () => import("./screens/confirm.tsx"),
    public: true,
    bare: true,
    title: "Confirm your email",
  },
  {
    pattern: "/forgot",
    load: () => import("./screens/forgot.tsx"),
    public: true,
    bare: true,
    title: "Forgot password",
  },
  {
    pattern: "/reset",
    load: () => import("./screens/reset.tsx"),
    public: true,
    bare: true,
    title: "Reset password",
  },
  {
    pattern: "/review/:token",
    load: () => import("./screens/review.tsx"),
    public: true,
    bare: true,
    title: "Review a post",
  },
  { pattern: "/account", load: () => import("./screens/account.tsx"), title: "Personal settings" },
];

export const NOT_FOUND: RouteDef = {
  pattern: "*",
  load: () => import("./screens/not_found.tsx"),
  title: "Not found",
};
