/**
 * The session. The access token lives only in memory (a signal); the refresh token lives in
 * the HttpOnly `cp_refresh` cookie the callback sets, so a reload costs one refresh call and
 * no token is ever in localStorage or sessionStorage. The server sets the script-readable
 * `cp_session=1` marker beside that cookie and clears it with it: without the marker there is
 * nothing to refresh with, so a signed-out visit makes no refresh call (none that fails). Sign-in is the hosted login with code +
 * PKCE (S256); only the verifier and state sit in sessionStorage for the round trip.
 */
import { computed, signal } from "@preact/signals";
import createClient from "openapi-fetch";
import type { paths } from "../api/schema.d.ts";

/** The plain client for the auth routes (no token, no retry): the session drives those. */
const authApi = createClient<paths>({ baseUrl: globalThis.location?.origin ?? "" });

export type SessionStatus = "loading" | "signed-in" | "signed-out";

export interface Claims {
  sub: string;
  email: string;
  name: string;
  "custom:role": "admin" | "member";
  "custom:approved": "true" | "false";
  exp: number;
}

export const accessToken = signal<string | null>(null);
export const status = signal<SessionStatus>("loading");
/** Why the session ended, for the signed-out screen ("signed-out" after Sign out). */
export const endReason = signal<"signed-out" | "expired" | null>(null);

/** The access token's claims (name, email, role, approval), decoded for display only. */
export const claims = computed<Claims | null>(() => {
  const token = accessToken.value;
  if (!token) return null;
  try {
    const part = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    const json = new TextDecoder().decode(Uint8Array.from(atob(part), (ch) => ch.charCodeAt(0)));
    return JSON.parse(json) as Claims;
  } catch {
    return null;
  }
});
export const isAdmin = computed(() => claims.value?.["custom:role"] === "admin");
export const isApproved = computed(() => claims.value?.["custom:approved"] === "true");

const PKCE_KEY = "cp_pkce";
const SESSION_MARKER = "cp_session";
const REFRESH_MARGIN_MS = 60_000;
let refreshTimer: ReturnType<typeof setTimeout> | undefined;
let refreshing: Promise<boolean> | null = null;

function meta(name: string): string | null {
  return document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? null;
}

/** The OAuth client id the web service put in the page. */
export function clientId(): string {
  return meta("cp-oauth-client-id") ?? "content-pipeline";
}

/** PUBLIC_URL + "/": the one redirect URI the hosted login sends the code back to. */
export function redirectUri(): string {
  return `${(meta("cp-public-url") ?? location.origin).replace(/\/+$/, "")}/`;
}

function setToken(token: string, expiresIn: number) {
  accessToken.value = token;
  status.value = "signed-in";
  endReason.value = null;
  clearTimeout(refreshTimer);
  const delay = Math.max(5_000, expiresIn * 1000 - REFRESH_MARGIN_MS);
  refreshTimer = setTimeout(() => void refreshSession(), delay);
}

/**
 * Takes a session the server just issued to this tab (a password change answers one, its
 * refresh token already in the cookie): the old access token is no longer accepted.
 */
export function adoptSession(token: string, expiresIn: number) {
  setToken(token, expiresIn);
}

/** Ends the session in this tab (the server side is `signOut`). */
export function signedOut(reason: "signed-out" | "expired" | null = null) {
  clearTimeout(refreshTimer);
  accessToken.value = null;
  status.value = "signed-out";
  endReason.value = reason;
}

/** Whether the server has set a refresh cookie (its `cp_session` marker is there). */
function hasRefreshCookie(): boolean {
  const cookies = globalThis.document?.cookie ?? "";
  return cookies.split(";").some((c) => c.trim().startsWith(`${SESSION_MARKER}=1`));
}

/**
 * New tokens through the refresh cookie; one call at a time however many callers ask.
 * Answers whether the session is alive (false at once when there is no cookie to use).
 */
export function refreshSession(): Promise<boolean> {
  if (!refreshing && !hasRefreshCookie()) return Promise.resolve(false);
  refreshing ??= (async () => {
    try {
      const { data, response } = await authApi.POST("/api/auth/refresh", {
        body: {},
        credentials: "same-origin",
      });
      if (response.ok && data) {
        setToken(data.access_token, data.expires_in);
        return true;
      }
      return false;
    } catch {
      return false;
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

function randomUrlSafe(bytes: number): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** Goes to the hosted login; after it the app returns to `returnTo` (a path of this app). */
export async function startSignIn(returnTo = location.pathname + location.search) {
  const verifier = randomUrlSafe(32);
  const state = randomUrlSafe(16);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  sessionStorage.setItem(PKCE_KEY, JSON.stringify({ verifier, state, returnTo }));
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientId(),
    redirect_uri: redirectUri(),
    state,
    code_challenge: base64url(new Uint8Array(digest)),
    code_challenge_method: "S256",
  });
  location.assign(`/oauth/authorize?${query}`);
}

/**
 * Finishes the hosted login (`/?code&state`): checks the state, exchanges the code with the
 * verifier, and answers the deep link to return to. Throws with a readable message.
 */
export async function completeSignIn(code: string, state: string): Promise<string> {
  const saved = sessionStorage.getItem(PKCE_KEY);
  sessionStorage.removeItem(PKCE_KEY);
  const pending = saved ? JSON.parse(saved) as Record<string, string> : null;
  if (!pending || pending.state !== state) {
    throw new Error("This sign-in link is stale or was opened in another tab. Sign in again");
  }
  const { data, error, response } = await authApi.POST("/api/auth/callback", {
    body: { code, redirect_uri: redirectUri(), code_verifier: pending.verifier },
    credentials: "same-origin",
  });
  if (!response.ok || !data) {
    throw new Error((error as { error?: string } | undefined)?.error ?? "Sign-in failed");
  }
  setToken(data.access_token, data.expires_in);
  const back = pending.returnTo ?? "/";
  return back.startsWith("/") && !back.startsWith("//") ? back : "/";
}

/** Signs out on the server (revokes the refresh token family), then here. */
export async function signOut() {
  try {
    await authApi.POST("/api/auth/logout", { body: {}, credentials: "same-origin" });
  } finally {
    signedOut("signed-out");
  }
}
