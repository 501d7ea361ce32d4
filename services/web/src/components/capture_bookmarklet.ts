/**
 * The quick-capture bookmarklet and what the capture window sends.
 *
 * The bookmarklet never calls our API from the page it runs on (a strict Content-Security-
 * Policy there, `connect-src 'none'`, would block it): it opens a small window on our origin,
 * `/capture/new#t=<token>&title=…&url=…&text=…`, and that page posts the capture. The token
 * rides in the URL fragment, which browsers never send to a server, so it stays out of logs.
 */

/** The most selected text the bookmarklet carries (URLs stay well under browser limits). */
export const MAX_SELECTION = 8000;

/** The longest text `POST /api/quick-capture` takes as its `title` (the ideas service's limit). */
export const CAPTURE_TEXT_MAX = 20_000;

/** The bookmarklet's JavaScript (before it becomes a `javascript:` URL). */
export function bookmarkletCode(origin: string, token: string): string {
  const target = JSON.stringify(`${origin}/capture/new#t=${encodeURIComponent(token)}`);
  return `(function(){var d=document,s=String(window.getSelection?getSelection():"")` +
    `.trim().slice(0,${MAX_SELECTION});` +
    `window.open(${target}+"&title="+encodeURIComponent((d.title||"").slice(0,300))` +
    `+"&url="+encodeURIComponent(location.href)+"&text="+encodeURIComponent(s),` +
    `"cp_capture","width=480,height=560");})();`;
}

/** The `href` of the draggable link: every character that could end a URL is escaped. */
export function bookmarkletHref(origin: string, token: string): string {
  return `javascript:${encodeURIComponent(bookmarkletCode(origin, token))}`;
}

/** The curl line that captures an idea with the token. */
export function curlLine(apiUrl: string, token: string): string {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return `curl -X POST ${q(apiUrl)} -H ${q(`X-Capture-Token: ${token}`)} ` +
    `-H 'Content-Type: application/json' -d '{"title":"An idea worth writing about"}'`;
}

export interface CapturedPage {
  token: string;
  title: string;
  url: string;
  text: string;
}

/** Reads the fragment the bookmarklet put on `/capture/new`. */
export function parseCaptureFragment(hash: string): CapturedPage {
  const p = new URLSearchParams(hash.replace(/^#/, ""));
  return {
    token: p.get("t") ?? "",
    title: (p.get("title") ?? "").trim(),
    url: (p.get("url") ?? "").trim(),
    text: (p.get("text") ?? "").trim(),
  };
}

/**
 * The capture's free text (the API takes a `title` text and tags only, no source URL): the
 * selection, else the page title, then the page title and the page's address on their own
 * lines — "selection\n\nPage title\nSource: https://…".
 */
export function captureText(page: Omit<CapturedPage, "token">): string {
  const lines: string[] = [];
  if (page.text && page.title) lines.push(page.title);
  if (page.url) lines.push(`Source: ${page.url}`);
  const head = page.text || page.title;
  const text = [head, lines.join("\n")].filter(Boolean).join("\n\n");
  // The page's address is the one part without a bound (selection and title are cut by the
  // bookmarklet): a very long one is shortened, so that the capture stays within what the API
  // takes instead of being refused.
  return text.length <= CAPTURE_TEXT_MAX ? text : `${text.slice(0, CAPTURE_TEXT_MAX - 1)}…`;
}
