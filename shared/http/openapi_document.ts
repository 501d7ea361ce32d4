/**
 * A service's part of the public OpenAPI document, generated from the zod schemas its routes
 * validate with, so the document cannot promise less than the handlers enforce. The generator
 * (@asteasolutions/zod-to-openapi, under @hono/zod-openapi) documents a schema's plain checks;
 * two kinds it cannot see are written in here, from the schemas themselves:
 *
 * - a check on the far side of a `pipe` (`z.string().trim().pipe(z.email())`): the generator
 *   documents the near side only, so the far side's `format` is added;
 * - a length counted after `.trim()`: `minLength: 1` alone would call `"   "` valid, so a
 *   pattern says that the trimmed text is at least that long.
 *
 * And every operation that validates a parameter or a body documents the 400 its validation
 * answers (the message names the field).
 */
import type { RouteConfig } from "@hono/zod-openapi";
import { z } from "zod";
import type { ServiceApp } from "./service_app.ts";

type AnySchema = z.core.$ZodType;
type Def = Record<string, unknown> & { type: string };

const defOf = (schema: AnySchema) => schema._zod.def as unknown as Def;

/** Adds `extra` to a schema's own OpenAPI metadata (zod's global registry, which the generator reads). */
function annotate(schema: AnySchema, extra: Record<string, unknown>): void {
  const current = (z.globalRegistry.get(schema) ?? {}) as Record<string, unknown>;
  const { id: _id, ...rest } = current;
  z.globalRegistry.remove(schema);
  z.globalRegistry.add(schema, { ...rest, ...extra });
}

/** The checks of a string schema, as their definitions. */
function stringChecks(schema: AnySchema): Record<string, unknown>[] {
  const def = defOf(schema);
  if (def.type !== "string") return [];
  const checks = (def.checks ?? []) as { _zod: { def: Record<string, unknown> } }[];
  return checks.map((c) => c._zod.def);
}

/** Whether a check rewrites its input by trimming it (zod's `.trim()`). */
function trims(check: Record<string, unknown>): boolean {
  if (check.check !== "overwrite" || typeof check.tx !== "function") return false;
  try {
    return check.tx(" a ") === "a";
  } catch {
    return false;
  }
}

/** A pattern true of exactly the texts whose trimmed length is at least `n` (n >= 1). */
export function trimmedLengthPattern(n: number): string {
  return n === 1 ? "\\S" : `\\S[\\s\\S]{${n - 2},}\\S`;
}

/** The far side of a pipe that checks a string format (an email, a URL...), if any. */
function formatOf(schema: AnySchema): string | undefined {
  const def = defOf(schema);
  if (def.type === "string" && typeof def.format === "string") return def.format;
  return undefined;
}

/** Writes into `schema` (and every schema inside it) the rules the generator cannot see. */
function documentRules(schema: AnySchema, seen: Set<AnySchema>): void {
  if (seen.has(schema)) return;
  seen.add(schema);
  const def = defOf(schema);
  const visit = (inner: unknown) => {
    if (inner && typeof inner === "object" && "_zod" in inner) {
      documentRules(inner as AnySchema, seen);
    }
  };
  switch (def.type) {
    case "string": {
      const checks = stringChecks(schema);
      const trimAt = checks.findIndex(trims);
      const min = checks.findLast((c, i) => i > trimAt && c.check === "min_length");
      const hasPattern = checks.some((c) => c.check === "string_format");
      if (trimAt >= 0 && min && Number(min.minimum) >= 1 && !hasPattern) {
        annotate(schema, { pattern: trimmedLengthPattern(Number(min.minimum)) });
      }
      return;
    }
    case "pipe": {
      const format = formatOf(def.out as AnySchema);
      if (format && defOf(def.in as AnySchema).type === "string") annotate(schema, { format });
      visit(def.in);
      visit(def.out);
      return;
    }
    case "object":
      for (const value of Object.values(def.shape as Record<string, unknown>)) visit(value);
      return;
    case "array":
      visit(def.element);
      return;
    case "union":
      for (const option of def.options as unknown[]) visit(option);
      return;
    case "intersection":
      visit(def.left);
      visit(def.right);
      return;
    case "record":
      visit(def.valueType);
      return;
    case "tuple":
      for (const item of def.items as unknown[]) visit(item);
      return;
  }
  visit(def.innerType);
}

/** The zod schemas a route validates: its parameters and its body in every media type. */
function requestSchemas(route: RouteConfig): unknown[] {
  const request = route.request ?? {};
  const bodies = Object.values(request.body?.content ?? {}).map((media) =>
    media && "schema" in media ? media.schema : undefined
  );
  const headers = Array.isArray(request.headers) ? request.headers : [request.headers];
  return [request.params, request.query, request.cookies, ...headers, ...bodies];
}

type Operation = {
  parameters?: { schema?: Record<string, unknown>; required?: boolean; in?: string }[];
  // deno-lint-ignore no-explicit-any
  requestBody?: any;
  responses?: Record<string, unknown>;
};

/** Whether a request can fail validation: it has a body, or a parameter with a rule. */
function validates(op: Operation): boolean {
  if (op.requestBody) return true;
  return (op.parameters ?? []).some((p) => {
    const s = p.schema ?? {};
    const ruled = ["minLength", "maxLength", "pattern", "enum", "format", "minimum", "maximum"]
      .some((k) => k in s);
    return ruled || (s.type !== undefined && s.type !== "string") ||
      (p.required === true && p.in !== "path");
  });
}

/**
 * Whether a required body may be left out after all: the framework reads an absent body as
 * `{}`, so a body whose schema requires no field is optional in fact, and documented so.
 */
function acceptsEmptyBody(op: Operation, schemas: Record<string, unknown>): boolean {
  const body = op.requestBody as
    | { required?: boolean; content?: Record<string, { schema?: Record<string, unknown> }> }
    | undefined;
  if (!body?.required) return false;
  return Object.values(body.content ?? {}).every(({ schema }) => {
    let s = schema ?? {};
    const ref = typeof s.$ref === "string" ? s.$ref.replace("#/components/schemas/", "") : null;
    if (ref) s = (schemas[ref] ?? {}) as Record<string, unknown>;
    return s.type === "object" && !(Array.isArray(s.required) && s.required.length > 0);
  });
}

const INVALID_REQUEST = {
  description: "A parameter or body field is missing or invalid (the message names it)",
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
};

/** The service's OpenAPI 3.1 document (the gateway merges every service's into one). */
export function serviceOpenApiDocument(app: ServiceApp) {
  const seen = new Set<AnySchema>();
  for (const definition of app.openAPIRegistry.definitions) {
    if (definition.type !== "route") continue;
    for (const schema of requestSchemas(definition.route)) {
      if (schema && typeof schema === "object" && "_zod" in schema) {
        documentRules(schema as AnySchema, seen);
      }
    }
  }
  const doc = app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: { title: "Content Pipeline Service", version: "1.0.0" },
  });
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item as Record<string, Operation>)) {
      if (!op || typeof op !== "object" || !op.responses) continue;
      if (validates(op) && !("400" in op.responses)) op.responses["400"] = INVALID_REQUEST;
      if (acceptsEmptyBody(op, doc.components?.schemas ?? {})) op.requestBody.required = false;
    }
  }
  return doc;
}

/** A documented path as a matcher of request paths (`{id}` is one segment). */
function pathMatcher(path: string): RegExp {
  const source = path.split(/\{[^}]+\}/).map((s) => s.replace(/[.*+?^$()|[\]\\]/g, "\\$&"))
    .join("[^/]+");
  return new RegExp(`^${source}$`);
}

/**
 * The methods the document gives `path` (HEAD wherever GET is: Hono answers it), or null when
 * the document has no such path. One matcher per documented path, built once.
 */
export function documentedMethods(app: ServiceApp): (path: string) => string[] | null {
  let matchers: { re: RegExp; methods: Set<string> }[] | null = null;
  return (path) => {
    if (!matchers) {
      const byPath = new Map<string, Set<string>>();
      for (const definition of app.openAPIRegistry.definitions) {
        if (definition.type !== "route") continue;
        const { path: documented, method } = definition.route;
        const methods = byPath.get(documented) ?? new Set<string>();
        methods.add(method.toUpperCase());
        if (method === "get") methods.add("HEAD");
        byPath.set(documented, methods);
      }
      matchers = [...byPath].map(([p, methods]) => ({ re: pathMatcher(p), methods }));
    }
    const found = new Set<string>();
    for (const { re, methods } of matchers) {
      if (re.test(path)) { for (const m of methods) found.add(m); }
    }
    const order = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
    return found.size ? order.filter((m) => found.has(m)) : null;
  };
}
