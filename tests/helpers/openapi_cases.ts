/**
 * Requests made from an OpenAPI 3.1 document alone: a value each schema calls valid, and the
 * values it calls invalid (one rule broken at a time). The conformance test sends them to the
 * service; this module knows nothing about the service beyond the document.
 */
// deno-lint-ignore-file no-explicit-any

export type Schema = Record<string, any>;
export type Doc = { paths: Record<string, Record<string, any>>; components?: any };

export const HTTP_METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];

export interface Operation {
  method: string;
  path: string;
  op: any;
}

/** Every operation of the document, in document order. */
export function operations(doc: Doc): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (HTTP_METHODS.includes(method)) out.push({ method, path, op });
    }
  }
  return out;
}

/** A schema with its `$ref` resolved (component references only). */
export function resolve(doc: Doc, schema: Schema | undefined): Schema {
  let s = schema ?? {};
  for (let i = 0; s.$ref && i < 10; i++) {
    const name = String(s.$ref).replace("#/components/schemas/", "");
    s = { ...doc.components.schemas[name], ...withoutRef(s) };
  }
  return s;
}

function withoutRef(s: Schema): Schema {
  const { $ref: _, ...rest } = s;
  return rest;
}

/** The schema without its `null` alternative (`type: [T, "null"]` or `anyOf: [X, {type: null}]`). */
export function nonNull(doc: Doc, schema: Schema): { schema: Schema; nullable: boolean } {
  const s = resolve(doc, schema);
  if (Array.isArray(s.type) && s.type.includes("null")) {
    const types = s.type.filter((t: string) => t !== "null");
    return { schema: { ...s, type: types.length === 1 ? types[0] : types }, nullable: true };
  }
  const alternatives = s.anyOf ?? s.oneOf;
  if (Array.isArray(alternatives)) {
    const rest = alternatives.filter((a: Schema) => resolve(doc, a).type !== "null");
    if (rest.length === 1 && rest.length < alternatives.length) {
      const { anyOf: _a, oneOf: _o, ...outer } = s;
      return { schema: { ...resolve(doc, rest[0]), ...outer }, nullable: true };
    }
  }
  return { schema: s, nullable: false };
}

/**
 * Values the test supplies for a field by its name (ids of real fixtures and the like);
 * `MISSING` leaves the field out, undefined lets the schema make one.
 */
export type Fixtures = (name: string, schema: Schema) => unknown;

export interface SampleOptions {
  /** every property (`full`), or only the required ones (`minimal`) */
  mode: "minimal" | "full";
  fixtures: Fixtures;
}

let sequence = 0;

/** Strings tried, in order, for a `pattern` (the first that matches and fits the lengths). */
const PATTERN_CANDIDATES = [
  "sample",
  "Mon 09:30",
  "Sample-Passw0rd!",
  "_backups/sample.zip",
  "sample.png",
  "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
  "A",
  "a",
  "1",
  "2.0",
];

/** A string `schema` calls valid, or throws naming the rule no candidate satisfies. */
function sampleString(s: Schema): string {
  if (typeof s.const === "string") return s.const;
  if (Array.isArray(s.enum)) return s.enum.find((v: unknown) => v !== "") ?? s.enum[0];
  const example = Array.isArray(s.examples) ? s.examples[0] : s.example;
  if (typeof example === "string") return example;
  switch (s.format) {
    case "email":
      return `conformance-${++sequence}-${Date.now().toString(36)}@example.test`;
    case "date-time":
      return new Date(Date.now() + 30 * 86_400_000).toISOString();
    case "date":
      return "2030-01-15";
    case "uri":
    case "url":
      return "https://example.test/sample";
    case "uuid":
      return crypto.randomUUID();
  }
  const fits = (v: string) =>
    v.length >= (s.minLength ?? 0) && v.length <= (s.maxLength ?? Infinity) &&
    (!s.pattern || new RegExp(s.pattern, "u").test(v));
  if (!s.pattern) {
    const base = "sample".padEnd(s.minLength ?? 0, "x");
    return base.slice(0, s.maxLength ?? base.length);
  }
  const found = PATTERN_CANDIDATES.find(fits);
  if (found === undefined) throw new Error(`no sample string for pattern ${s.pattern}`);
  return found;
}

/** A value `schema` calls valid. */
export function sample(doc: Doc, schema: Schema, opts: SampleOptions, name = ""): unknown {
  const { schema: s } = nonNull(doc, schema);
  if (name) {
    const fixed = opts.fixtures(name, s);
    if (fixed !== undefined) return fixed;
  }
  if (s.const !== undefined) return s.const;
  const alternatives = s.anyOf ?? s.oneOf;
  if (Array.isArray(alternatives)) return sample(doc, alternatives[0], opts, name);
  const type = Array.isArray(s.type) ? s.type[0] : s.type ?? (s.properties ? "object" : "");
  switch (type) {
    case "string":
      return sampleString(s);
    case "integer":
    case "number": {
      if (Array.isArray(s.enum)) return s.enum[0];
      const low = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
      return Math.min(low, s.maximum ?? Infinity);
    }
    case "boolean":
      return true;
    case "array": {
      const count = Math.max(s.minItems ?? 0, opts.mode === "full" ? 1 : 0);
      return Array.from(
        { length: Math.min(count, s.maxItems ?? count) },
        () => sample(doc, s.items ?? {}, opts, name ? `${name}[]` : ""),
      );
    }
    case "object": {
      const out: Record<string, unknown> = {};
      const required: string[] = s.required ?? [];
      for (const [key, prop] of Object.entries<Schema>(s.properties ?? {})) {
        if (opts.mode === "minimal" && !required.includes(key)) continue;
        const value = sample(doc, prop, opts, key);
        if (value !== MISSING) out[key] = value;
      }
      return out;
    }
  }
  return "sample";
}

/** One rule broken: where, and the value that breaks it (`MISSING` leaves the field out). */
export interface Violation {
  rule: string;
  value: unknown;
}
export const MISSING = Symbol("missing");

/** A string of `length` that breaks `pattern` (null when every candidate matches). */
function notMatching(pattern: string, min: number, max: number): string | null {
  const re = new RegExp(pattern, "u");
  const candidates = ["!", "not matching", "x", "?".repeat(Math.max(min, 1)), "ZZZ 99:99"];
  return candidates.find((v) => v.length >= min && v.length <= max && !re.test(v)) ?? null;
}

/**
 * The values `schema` calls invalid, one broken rule each, for a field sent as JSON (`json`) or
 * as text (a query, path or header parameter, or a form field: no type but string there).
 */
export function violations(
  doc: Doc,
  schema: Schema,
  opts: SampleOptions & { wire: "json" | "text" },
  name = "",
): Violation[] {
  const { schema: s } = nonNull(doc, schema);
  const out: Violation[] = [];
  const type = Array.isArray(s.type) ? s.type[0] : s.type ?? (s.properties ? "object" : "");
  const textual = opts.wire === "text";
  const alternatives: Schema[] | undefined = s.anyOf ?? s.oneOf;
  if (alternatives) {
    // Alternatives that are objects told apart by a constant (a discriminator): a rule broken
    // in one of them breaks the whole. Any other union is left alone.
    const objects = alternatives.map((a) => resolve(doc, a));
    if (!objects.every((a) => a.type === "object")) return out;
    return objects.flatMap((a) => violations(doc, a, opts, name));
  }
  if (!textual) {
    const wrong: Record<string, unknown> = {
      string: 12345,
      integer: "not-a-number",
      number: "not-a-number",
      boolean: "not-a-boolean",
      array: "not-an-array",
      object: "not-an-object",
    };
    if (type in wrong) out.push({ rule: `type ${type}`, value: wrong[type] });
  } else if (type === "integer" || type === "number") {
    out.push({ rule: `type ${type}`, value: "not-a-number" });
  } else if (type === "boolean") {
    out.push({ rule: "type boolean", value: "not-a-boolean" });
  }
  if (Array.isArray(s.enum)) out.push({ rule: "enum", value: "not-a-valid-choice" });
  else if (s.const !== undefined) out.push({ rule: "const", value: "not-the-constant" });
  if (type === "string") {
    const min = s.minLength ?? 0;
    const max = s.maxLength ?? Infinity;
    if (s.format === "email") out.push({ rule: "format email", value: "not-an-email" });
    if (s.format === "date-time") out.push({ rule: "format date-time", value: "not-a-date" });
    if (s.format === "uri") out.push({ rule: "format uri", value: "not a uri" });
    if (min >= 1) out.push({ rule: `minLength ${min}`, value: "x".repeat(min - 1) });
    if (Number.isFinite(max) && max < 500_000) {
      out.push({ rule: `maxLength ${max}`, value: "x".repeat(max + 1) });
    }
    if (s.pattern) {
      const bad = notMatching(s.pattern, min, max);
      if (bad !== null) out.push({ rule: `pattern ${s.pattern}`, value: bad });
    }
  }
  if (type === "integer" || type === "number") {
    if (s.minimum !== undefined) out.push({ rule: "minimum", value: s.minimum - 1 });
    if (s.maximum !== undefined) out.push({ rule: "maximum", value: s.maximum + 1 });
    if (type === "integer") out.push({ rule: "integer", value: 1.5 });
    if (textual) {
      for (const v of out) if (typeof v.value === "number") v.value = String(v.value);
    }
  }
  if (type === "array" && !textual) {
    const item = () => sample(doc, s.items ?? {}, opts, name ? `${name}[]` : "");
    if ((s.minItems ?? 0) >= 1) {
      out.push({
        rule: `minItems ${s.minItems}`,
        value: Array.from({ length: s.minItems - 1 }, item),
      });
    }
    if (s.maxItems !== undefined && s.maxItems < 1000) {
      out.push({
        rule: `maxItems ${s.maxItems}`,
        value: Array.from({ length: s.maxItems + 1 }, item),
      });
    }
    const filler = Array.from({ length: Math.max((s.minItems ?? 1) - 1, 0) }, item);
    for (const v of violations(doc, s.items ?? {}, opts, name ? `${name}[]` : "")) {
      out.push({ rule: `items: ${v.rule}`, value: [v.value, ...filler] });
    }
  }
  if (type === "object") {
    const base = sample(doc, s, { ...opts, mode: "minimal" }, name) as Record<string, unknown>;
    if (typeof base !== "object" || base === null || Array.isArray(base)) return out;
    const required: string[] = s.required ?? [];
    for (const [key, prop] of Object.entries<Schema>(s.properties ?? {})) {
      if (required.includes(key)) {
        const { [key]: _, ...rest } = base;
        out.push({ rule: `${key}: required`, value: rest });
      }
      for (const v of violations(doc, prop, opts, key)) {
        out.push({ rule: `${key}: ${v.rule}`, value: { ...base, [key]: v.value } });
      }
    }
  }
  return out;
}
