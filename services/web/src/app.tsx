/**
 * The app: finishes a hosted-login round trip or resumes the session (one refresh call), then
 * renders the screen of the URL. A signed-out visit to any non-public route goes through the
 * hosted login and comes back to the same deep link.
 */
import type { ComponentType } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ErrorMessage } from "./components/error_message.tsx";
import { Layout } from "./components/layout.tsx";
import { Loading } from "./components/loading.tsx";
import { matchPath, navigate, url } from "./router.tsx";
import { NOT_FOUND, type RouteDef, ROUTES } from "./routes.ts";
import type { ScreenProps } from "./screen_props.ts";
import {
  completeSignIn,
  endReason,
  isApproved,
  refreshSession,
  startSignIn,
  status,
} from "./state/session.ts";
import { WaitingForApproval } from "./components/auth_waiting.tsx";
import { WorkspaceGate } from "./components/workspace_gate.tsx";
import { loadWorkspaces } from "./state/workspaces.ts";

let booted: Promise<void> | null = null;
const bootError = { current: null as unknown };

/** Once per page load: the `/?code&state` return, else a refresh through the cookie. */
function boot(): Promise<void> {
  booted ??= (async () => {
    const params = new URLSearchParams(location.search);
    const code = params.get("code");
    const state = params.get("state");
    if (location.pathname === "/" && code && state) {
      try {
        const back = await completeSignIn(code, state);
        navigate(back, { replace: true });
      } catch (err) {
        navigate("/", { replace: true });
        // A return that cannot be finished (the hosted login reached again with Back after a
        // sign-in: its state is spent) while the browser still has a session: carry on with it.
        if (await refreshSession()) return;
        bootError.current = err;
        status.value = "signed-out";
      }
      return;
    }
    if (!(await refreshSession())) status.value = "signed-out";
  })();
  return booted;
}

function resolve(path: string): { route: RouteDef; params: Record<string, string> } {
  for (const route of ROUTES) {
    const params = matchPath(route.pattern, path);
    if (params) return { route, params };
  }
  return { route: NOT_FOUND, params: {} };
}

const loaded = new Map<RouteDef, ComponentType<ScreenProps>>();

/** The route's screen, loading its chunk the first time. */
function Screen({ route, params }: { route: RouteDef; params: Record<string, string> }) {
  const [, setTick] = useState(0);
  const [error, setError] = useState<unknown>(null);
  const Component = loaded.get(route);
  useEffect(() => {
    if (loaded.has(route)) return;
    route.load().then((mod) => {
      loaded.set(route, mod.default);
      setTick((n) => n + 1);
    }, setError);
  }, [route]);
  useEffect(() => {
    document.title = `${route.title} · Content Pipeline`;
  }, [route]);
  if (error) {
    return <ErrorMessage error={error} onRetry={() => location.reload()} />;
  }
  if (!Component) return <Loading />;
  return <Component params={params} />;
}

export function App() {
  const [ready, setReady] = useState(false);
  useEffect(() => {
    boot().then(() => setReady(true));
  }, []);
  const signedIn = status.value === "signed-in";
  const approved = isApproved.value;
  useEffect(() => {
    if (signedIn && approved) loadWorkspaces().catch(() => {});
  }, [signedIn, approved]);

  const { route, params } = resolve(url.value.path);
  if (!ready || status.value === "loading") {
    return (
      <div class="narrow">
        <Loading label="Starting" />
      </div>
    );
  }
  if (route.public) {
    return route.bare
      ? (
        <main id="main" class="main">
          <Screen route={route} params={params} />
        </main>
      )
      : (
        <Layout>
          <Screen route={route} params={params} />
        </Layout>
      );
  }
  if (!signedIn) return <SignedOut />;
  if (!approved) {
    return (
      <Layout>
        <WaitingForApproval />
      </Layout>
    );
  }
  return (
    <Layout>
      {params.workspaceId
        ? (
          <WorkspaceGate workspaceId={params.workspaceId}>
            <Screen route={route} params={params} />
          </WorkspaceGate>
        )
        : <Screen route={route} params={params} />}
    </Layout>
  );
}

/**
 * Signed out: a deep link goes straight to the hosted login; after Sign out (or a failed
 * sign-in) the page says so and offers to sign in again.
 */
function SignedOut() {
  const stay = endReason.value === "signed-out" || bootError.current !== null;
  useEffect(() => {
    if (!stay) void startSignIn();
  }, [stay]);
  if (!stay) {
    return (
      <div class="narrow">
        <Loading label="Going to sign-in" />
      </div>
    );
  }
  return (
    <main id="main" class="main">
      <section class="card narrow stack">
        <h1>{endReason.value === "signed-out" ? "You are signed out" : "Sign in"}</h1>
        <ErrorMessage error={bootError.current} />
        <div>
          <button
            type="button"
            class="button"
            onClick={() => {
              bootError.current = null;
              void startSignIn(endReason.value === "signed-out" ? "/" : undefined);
            }}
          >
            Sign in
          </button>
        </div>
        <p>
          No account yet? <a href="/signup">Sign up</a>
        </p>
      </section>
    </main>
  );
}
