/**
 * The hosted login page (GET/POST /oauth/authorize): plain HTML written with hono's `html` tag,
 * which escapes every interpolated value.
 */
import { html, raw } from "hono/html";

/** A page or a piece of one (`html` answers a promise only when a value is one). */
type Markup = ReturnType<typeof html>;

/**
 * Headers for every page: no framing, no scripts, nothing cached, no referrer, and forms post
 * only to this origin, so injected markup cannot send the typed password elsewhere. Browsers
 * hold a form's redirect to `form-action` too: a page with the login form passes the origins of
 * the registered redirect URIs that are not this one (`redirectOrigins`), where a successful
 * sign-in is redirected.
 */
export function pageHeaders(formRedirectOrigins: readonly string[] = []): Record<string, string> {
  const formAction = ["'self'", ...formRedirectOrigins].join(" ");
  return {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy":
      "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; " +
      `base-uri 'none'; form-action ${formAction}`,
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
  };
}

/** The headers of a page without a form. */
export const PAGE_HEADERS = pageHeaders();

/**
 * The `form-action` sources of `redirectUris` other than `publicOrigin`, each once: a web
 * URI's origin, an app's own scheme (`com.example.app:`) as that scheme.
 */
export function redirectOrigins(redirectUris: readonly string[], publicOrigin: string): string[] {
  const origins = new Set(redirectUris.map((uri) => {
    const url = new URL(uri);
    return url.origin === "null" ? url.protocol : url.origin;
  }));
  origins.delete(publicOrigin);
  return [...origins];
}

/**
 * The web app's signed-out look (services/web/src/styles/tokens.css and components/auth.css): the
 * same colours, type, card and focus ring, so signing in does not feel like another site.
 */
const STYLE = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;
background:#f6f7f9;color:#1b1f24;margin:0;padding:0 1rem;line-height:1.5}
.frame{max-width:26rem;margin:2rem auto}
.brand{font-weight:700;font-size:1.125rem;margin:0 0 1rem;text-align:center}
main{background:#fff;border:1px solid #d9dde3;border-radius:6px;padding:1.5rem}
h1{font-size:1.375rem;margin:0 0 1rem}
button,input{font:inherit}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
input[type=email],input[type=password]{width:100%;box-sizing:border-box;padding:.5rem .75rem;
border:1px solid #d9dde3;border-radius:6px;background:#fff;color:#1b1f24}
button,.button{display:block;width:100%;box-sizing:border-box;margin-top:1.5rem;padding:.5rem 1rem;
border:1px solid #1d4fb0;border-radius:6px;background:#1d4fb0;color:#fff;cursor:pointer;
text-align:center;text-decoration:none}
.google{background:#fff;color:#1d4fb0}
:focus-visible{outline:none;box-shadow:0 0 0 3px #fff,0 0 0 5px #1d4fb0;border-radius:6px}
a{color:#1d4fb0}
.error{background:#fdecea;color:#b42318;padding:.5rem .75rem;border-radius:6px;font-size:.875rem}
.notice{background:#e7effc;color:#1b1f24;padding:.5rem .75rem;border-radius:6px;font-size:.875rem}
.or{text-align:center;color:#57606a;font-size:.875rem;margin:1rem 0 0}
.or+.button{margin-top:.75rem}
.links{display:flex;justify-content:space-between;flex-wrap:wrap;gap:.5rem;margin:1.25rem 0 0;
font-size:.875rem}`;

function layout(title: string, body: Markup): Markup {
  return html`
    <!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>${title}</title>
        <style>${raw(STYLE)}</style>
      </head>
      <body>
        <div class="frame">
          <header class="brand">Content Pipeline</header>
          <main>
    ${body}
          </main>
        </div>
      </body>
    </html>
  `;
}

export interface LoginPageOptions {
  /** The validated OAuth parameters, carried through the form as hidden fields. */
  params: {
    client_id: string;
    redirect_uri: string;
    state: string | null;
    code_challenge: string | null;
    /** the RFC 8707 resource asked for, or null */
    resource?: string | null;
  };
  email?: string;
  error?: string;
  /** The address of "Sign in with Google", when Google sign-in is configured. */
  googleUrl?: string | null;
  /** The login-form token bound to the browser's cookie (sent back as `csrf_token`). */
  csrfToken?: string;
  /**
   * A registered (not first-party) client asking: its name and where the sign-in sends the
   * browser, said on the page, so nobody signs in for an application they did not mean.
   */
  requester?: { name: string | null; destination: string } | null;
}

export function loginPage(options: LoginPageOptions): Markup {
  const { params } = options;
  const hidden: [string, string][] = [
    ["response_type", "code"],
    ["client_id", params.client_id],
    ["redirect_uri", params.redirect_uri],
  ];
  if (params.state !== null) hidden.push(["state", params.state]);
  if (params.code_challenge !== null) {
    hidden.push(["code_challenge", params.code_challenge], ["code_challenge_method", "S256"]);
  }
  if (params.resource) hidden.push(["resource", params.resource]);
  if (options.csrfToken) hidden.push(["csrf_token", options.csrfToken]);
  const fields = hidden.map(([name, value]) =>
    html`
      <input type="hidden" name="${name}" value="${value}">
    `
  );
  const error = options.error ? html`<p class="error" role="alert">${options.error}</p>` : "";
  const requester = options.requester
    ? html`
      <p
        class="notice">Signing in gives <strong>${options.requester.name ??
          "an application"}</strong> (${options.requester
          .destination}) access to your Content Pipeline account: it will act as you.</p>
    `
    : "";
  const google = options.googleUrl
    ? html`<p class="or">or</p>
<a class="button google" href="${options.googleUrl}">Sign in with Google</a>`
    : "";
  return layout(
    "Sign in - Content Pipeline",
    html`<h1>Sign in</h1>
${requester}${error}
<form method="post" action="/oauth/authorize">
${fields}<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${
      options.email ?? ""
    }">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
${google}
<p class="links"><a href="/forgot">Forgot password?</a> <a href="/signup">Create an account</a></p>`,
  );
}

/** The page shown instead of a redirect when the request itself is bad (400). */
export function errorPage(message: string): Markup {
  return layout(
    "Sign-in error - Content Pipeline",
    html`<h1>Cannot sign in</h1>
<p class="error" role="alert">${message}</p>`,
  );
}
