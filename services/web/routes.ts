import { AppError } from "../../shared/http/app_error.ts";
import type { ServiceApp } from "../../shared/http/service_app.ts";
import type { WebConfig } from "./config.ts";

export const STATIC_PREFIX = "/static/";
export const IMMUTABLE = "public, max-age=31536000, immutable";

const TYPES: Record<string, string> = {
  js: "text/javascript; charset=utf-8",
  mjs: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  map: "application/json; charset=utf-8",
  json: "application/json; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  ico: "image/x-icon",
  woff2: "font/woff2",
  webp: "image/webp",
  txt: "text/plain; charset=utf-8",
};

/** Where Google's reCAPTCHA v3 loads its script, frame and calls from. */
export const RECAPTCHA_ORIGINS = "https://www.google.com https://www.gstatic.com";

/**
 * The page's Content-Security-Policy: only our own origin, plus the WebSocket origin of
 * PUBLIC_URL for `/ws`. Styles are 'self' only: CodeMirror injects its styles through
 * constructed stylesheets (adoptedStyleSheets), which style-src does not govern. With a
 * reCAPTCHA site key (and only then) Google's script, frame and calls are allowed too; with an
 * S3 asset store, pictures from the bucket's origin (`assetsOrigin`: media thumbnails and the
 * feed preview show its presigned download URLs).
 */
export function contentSecurityPolicy(
  publicUrl: string,
  recaptcha = false,
  assetsOrigin: string | null = null,
): string {
  const url = new URL(publicUrl);
  const ws = `${url.protocol === "https:" ? "wss:" : "ws:"}//${url.host}`;
  const google = recaptcha ? ` ${RECAPTCHA_ORIGINS}` : "";
  return [
    "default-src 'self'",
    `script-src 'self'${google}`,
    ...(recaptcha ? [`frame-src${google}`] : []),
    `connect-src 'self' ${ws}${google}`,
    `img-src 'self' data: blob:${assetsOrigin ? ` ${assetsOrigin}` : ""}`,
    "style-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join("; ");
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}

/**
 * `index.html` with the settings the app needs at start (client id, public URL, reCAPTCHA
 * site key when set) put in
 * `<meta>` tags, so no inline script is needed and the CSP stays strict.
 */
export function injectSettings(html: string, config: WebConfig): string {
  const meta = [
    `<meta name="cp-oauth-client-id" content="${escapeAttribute(config.oauthClientId)}">`,
    `<meta name="cp-public-url" content="${escapeAttribute(config.base.publicUrl)}">`,
    ...(config.recaptchaSiteKey
      ? [
        `<meta name="cp-recaptcha-site-key" content="${escapeAttribute(config.recaptchaSiteKey)}">`,
      ]
      : []),
  ].join("\n    ");
  return html.replace("</head>", `    ${meta}\n  </head>`);
}

/** Reads a file of the bundle; null when it does not exist. */
async function readDist(config: WebConfig, path: string): Promise<Uint8Array | null> {
  try {
    return await Deno.readFile(`${config.distDir}/${path}`);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.IsADirectory) {
      return null;
    }
    throw err;
  }
}

/**
 * `GET /static/*`: the hashed files, cached for a year; every other GET is an app route and
 * answers `index.html` (never cached, so a new build is picked up at once).
 */
export function mountWebRoutes(app: ServiceApp, config: WebConfig): void {
  const csp = contentSecurityPolicy(
    config.base.publicUrl,
    config.recaptchaSiteKey !== null,
    config.assetsOrigin,
  );
  let indexHtml: { raw: Uint8Array; html: string } | null = null;

  app.use("*", async (c, next) => {
    await next();
    c.header("Content-Security-Policy", csp);
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "strict-origin-when-cross-origin");
    c.header("X-Frame-Options", "DENY");
  });

  app.get(`${STATIC_PREFIX}*`, async (c) => {
    const rel = c.req.path.slice(1);
    if (rel.split("/").some((part) => part === ".." || part === "" || part.startsWith("."))) {
      throw new AppError(404, `No file ${c.req.path}`);
    }
    const body = await readDist(config, rel);
    if (!body) throw new AppError(404, `No file ${c.req.path}`);
    const ext = rel.slice(rel.lastIndexOf(".") + 1).toLowerCase();
    c.header("Content-Type", TYPES[ext] ?? "application/octet-stream");
    c.header("Cache-Control", IMMUTABLE);
    return c.body(body as Uint8Array<ArrayBuffer>);
  });

  app.get("*", async (c) => {
    if (c.req.path.startsWith("/internal/")) {
      throw new AppError(404, `No route for GET ${c.req.path}`);
    }
    const raw = await readDist(config, "index.html");
    if (!raw) {
      throw new AppError(503, "The web app is not built: run `deno task web:build`");
    }
    if (!indexHtml || indexHtml.raw.length !== raw.length || !sameBytes(indexHtml.raw, raw)) {
      indexHtml = { raw, html: injectSettings(new TextDecoder().decode(raw), config) };
    }
    c.header("Cache-Control", "no-cache");
    return c.html(indexHtml.html);
  });
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
