import type { Context, MiddlewareHandler } from "hono";

/**
 * One rule for every route of every service, applied before any schema sees the input: a
 * string that is not well-formed UTF-16 (a lone surrogate such as `"\ud800"`) is refused with
 * 400 `<field> contains invalid characters`. Such a string cannot be encoded as UTF-8: in a KV
 * key it collides with U+FFFD, in a URL `encodeURIComponent` throws, and as text it reaches
 * other systems as garbage. Only a JSON `\uXXXX` escape can carry one into the service (URL
 * decoding and UTF-8 decoding never produce one), so a body is parsed and walked only when its
 * text holds a surrogate escape; query strings and path segments are checked all the same.
 */
export function rejectMalformedStrings(): MiddlewareHandler {
  return async (c, next) => {
    const refused = urlStringsCheck(c);
    if (refused) return refused;
    if (c.req.raw.body && isJsonMediaType(c.req.header("content-type"))) {
      // A clone, so a handler that reads the raw request itself (MCP) still finds its body.
      const text = await c.req.raw.clone().text();
      if (SURROGATE_ESCAPE.test(text)) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined; // malformed JSON: the route's own validation answers it
        }
        const field = malformedStringPath(parsed);
        if (field !== null) {
          return c.json({ error: `${field || "Request body"} contains invalid characters` }, 400);
        }
      }
    }
    await next();
  };
}

/**
 * The query string's and the path's part of that rule: a 400 naming the parameter (or the
 * path), or null. A URL without a percent sign holds no escape that could decode to one, and
 * is passed without parsing.
 */
export function urlStringsCheck(c: Context): Response | null {
  if (!c.req.url.includes("%")) return null;
  const url = new URL(c.req.url);
  for (const [name, value] of url.searchParams) {
    if (!name.isWellFormed() || !value.isWellFormed()) {
      return c.json({ error: `${wellFormedName(name)} contains invalid characters` }, 400);
    }
  }
  if (!safeDecodePath(url.pathname).isWellFormed()) {
    return c.json({ error: "Path contains invalid characters" }, 400);
  }
  return null;
}

/** `\uD800`-`\uDFFF` written as a JSON escape: the only way a body can carry a surrogate. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;

/** `application/json` or any `+json` type, parameters ignored. */
export function isJsonMediaType(header: string | undefined | null): boolean {
  if (!header) return false;
  const type = header.split(";")[0].trim().toLowerCase();
  return type === "application/json" || /^application\/[\w.-]+\+json$/.test(type);
}

/**
 * The path (`a.b.0`, zod's notation; `""` for the root) of the first string or property name
 * in `value` that is not well-formed UTF-16, or null when there is none.
 */
export function malformedStringPath(value: unknown, path: string[] = []): string | null {
  if (typeof value === "string") return value.isWellFormed() ? null : path.join(".");
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = malformedStringPath(value[i], [...path, String(i)]);
      if (found !== null) return found;
    }
    return null;
  }
  if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (!key.isWellFormed()) return path.join(".");
      const found = malformedStringPath(item, [...path, key]);
      if (found !== null) return found;
    }
  }
  return null;
}

function safeDecodePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path; // not decodable: routes see it percent-encoded, which is well-formed
  }
}

const wellFormedName = (name: string) => name.isWellFormed() ? name : "A query parameter";
