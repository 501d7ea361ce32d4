import { z } from "@hono/zod-openapi";
import { ideaSchema } from "../ideas/schemas.ts";
import { ANNOTATION_TYPES } from "./annotation.ts";

/** POST /internal/titles: the free-form text an idea was captured with. */
export const titleRequestSchema = z.object({
  text: z.string().max(1_000_000),
});

export const titleResponseSchema = z.object({
  title: z.string().min(1),
  /** `ai` when the model made it, `fallback` when it was made from the text itself */
  source: z.enum(["ai", "fallback"]),
});
export type TitleResponse = z.infer<typeof titleResponseSchema>;

/** Ids are at most this long (an overlong id is a 400, never a KV error). */
export const ID_MAX = 200;

/** The spec's truncation lengths: these inputs are cut, never rejected. */
export const TRUNCATE = {
  audience: 200,
  tone: 100,
  language: 50,
  instruction: 2_000,
  current_content: 40_000,
  content: 40_000,
  /** not in the spec's list; cut like the others rather than rejected */
  system_instruction: 20_000,
} as const;

const requiredId = (field: string) =>
  z.string({ error: `${field} is required` }).trim().min(1, `${field} is required`).max(
    ID_MAX,
    `${field} is longer than ${ID_MAX} characters`,
  );

/** An optional id: blank or null counts as not given. */
const optionalId = (field: string) =>
  z.string({ error: `${field} must be a string` }).trim().max(
    ID_MAX,
    `${field} is longer than ${ID_MAX} characters`,
  ).nullish().transform((v) => v || undefined);

/**
 * Iterate's `prompt_id`: one that names no prompt falls back to the editor persona without
 * error, so blank, null and an id longer than any id (which cannot name one) count as not given.
 */
const fallbackPromptId = z.string({ error: "prompt_id must be a string" }).trim().nullish()
  .transform((v) => v && v.length <= ID_MAX ? v : undefined);

/** Optional text cut to `max` characters; null counts as not given. */
const truncated = (field: string, max: number) =>
  z.string({ error: `${field} must be a string` }).nullish().transform((v) =>
    v == null ? undefined : v.slice(0, max)
  );

export const generateBody = z.object({
  workspace_id: requiredId("workspace_id"),
  idea_id: requiredId("idea_id"),
  prompt_id: optionalId("prompt_id"),
  overrides: z.object({
    system_instruction: truncated("overrides.system_instruction", TRUNCATE.system_instruction),
  }, { error: "overrides must be an object" }).nullish(),
  audience: truncated("audience", TRUNCATE.audience),
  tone: truncated("tone", TRUNCATE.tone),
  language: truncated("language", TRUNCATE.language),
  /** one of the six presets; any other value, of any type, is ignored without error */
  length: z.unknown().optional().transform((v) => typeof v === "string" ? v : undefined).openapi({
    description: "One of `very_short`, `short`, `medium`, `long`, `very_long`, `extra_long`. " +
      "Any other value, of any type, is ignored: the prompt is then the one without `length`",
    examples: ["medium"],
  }),
}).openapi("GenerateRequest");
export type GenerateBody = z.infer<typeof generateBody>;

/** What generate reads of the idea. */
export const generatedIdeaSchema = ideaSchema.pick({
  idea_id: true,
  title: true,
  description: true,
  tags: true,
});
export type GeneratedIdea = z.infer<typeof generatedIdeaSchema>;

/**
 * POST /internal/generate (MCP): the REST body, and the idea when the caller has just read it
 * (then it is not read again).
 */
export const internalGenerateBody = generateBody.extend({
  idea: generatedIdeaSchema.optional(),
});

export const generateResponse = z.object({
  content: z.string(),
  idea_id: z.string(),
}).openapi("GenerateResponse");
export type GenerateResponse = z.infer<typeof generateResponse>;

export const iterateBody = z.object({
  workspace_id: requiredId("workspace_id"),
  post_id: requiredId("post_id"),
  instruction: z.string({ error: "instruction is required" })
    .min(1, "instruction is required")
    .regex(/\S/, "instruction is required")
    .transform((v) => v.slice(0, TRUNCATE.instruction)),
  current_content: truncated("current_content", TRUNCATE.current_content),
  prompt_id: fallbackPromptId,
}).openapi("IterateRequest");
export type IterateBody = z.infer<typeof iterateBody>;

export const iterateResponse = z.object({
  suggestion: z.string(),
  post_id: z.string(),
}).openapi("IterateResponse");
export type IterateResponse = z.infer<typeof iterateResponse>;

export const proofreadBody = z.object({
  workspace_id: requiredId("workspace_id"),
  post_id: requiredId("post_id"),
  content: truncated("content", TRUNCATE.content),
}).openapi("ProofreadRequest");
export type ProofreadBody = z.infer<typeof proofreadBody>;

export const annotationSchema = z.object({
  range: z.tuple([z.number().int(), z.number().int()]),
  type: z.enum(ANNOTATION_TYPES),
  message: z.string(),
  suggestion: z.string(),
}).openapi("Annotation");

export const proofreadResponse = z.object({
  annotations: z.array(annotationSchema),
  post_id: z.string(),
  model: z.enum(["used", "unusable", "none"]).openapi({
    description: "What became of the AI model's answer: `used` (its annotations are merged " +
      "with the built-in checker's), `unusable` (it was not a JSON array of annotations, so " +
      "only the checker's and the service's findings came back), `none` (no AI backend is " +
      "configured: the checker alone)",
  }),
}).openapi("ProofreadResponse");

/** GET /api/genai/status: what works on this server. */
export const statusResponse = z.object({
  backend_configured: z.boolean().openapi({
    description: "An AI backend (model) is configured: generate and iterate work. Proofread " +
      "(the built-in checker) and idea titles (made from the text) work either way.",
  }),
}).openapi("GenaiStatus");
export type StatusResponse = z.infer<typeof statusResponse>;
export type ProofreadResponse = z.infer<typeof proofreadResponse>;
