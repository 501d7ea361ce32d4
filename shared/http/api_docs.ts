import { Hono } from "hono";
import { join } from "node:path";
import swaggerUiDistPath from "swagger-ui-dist/absolute-path.js";

/** Where the API documentation lives; its assets are under `${DOCS_PATH}/`. */
export const DOCS_PATH = "/api/docs";

/**
 * Only this origin's own scripts, styles and images: Swagger UI is served from the npm
 * package (swagger-ui-dist), never a CDN, and its start-up code is a file, not inline script.
 * Swagger UI sets some inline `style` attributes, hence `'unsafe-inline'` for styles only.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

/**
 * `GET /api/docs`: Swagger UI on the merged OpenAPI document at `specUrl`, with its files at
 * `/api/docs/<file>` read from the installed swagger-ui-dist package (once, then kept).
 */
export function apiDocsRoutes(specUrl: string): Hono {
  const app = new Hono();
  const cache = new Map<string, Promise<Uint8Array>>();
  const load = (file: string) => {
    let bytes = cache.get(file);
    if (!bytes) {
      bytes = Deno.readFile(join(swaggerUiDistPath(), file));
      bytes.catch(() => cache.delete(file));
      cache.set(file, bytes);
    }
    return bytes;
  };
  const headers = (type: string, cacheControl: string) => ({
    "content-type": type,
    "cache-control": cacheControl,
    "content-security-policy": DOCS_CSP,
  });

  app.get(DOCS_PATH, (c) => c.body(page(), 200, headers("text/html; charset=utf-8", "no-store")));
  app.get(`${DOCS_PATH}/init.js`, (c) =>
    c.body(
      initScript(specUrl),
      200,
      headers("text/javascript; charset=utf-8", "no-cache"),
    ));
  for (const [file, type] of Object.entries(ASSETS)) {
    app.get(`${DOCS_PATH}/${file}`, async (c) =>
      c.body(
        (await load(file)) as Uint8Array<ArrayBuffer>,
        200,
        headers(type, "public, max-age=86400"),
      ));
  }
  return app;
}

function page(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Content Pipeline API</title>
<link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png">
<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/init.js"></script>
</body>
</html>
`;
}

function initScript(specUrl: string): string {
  return `window.ui = SwaggerUIBundle(${
    JSON.stringify({ url: specUrl, dom_id: "#swagger-ui", deepLinking: true })
  });\n`;
}
