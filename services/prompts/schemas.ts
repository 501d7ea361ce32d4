import { z } from "@hono/zod-openapi";
import { FILLED_PLACEHOLDERS_TEXT, placeholderProblem } from "../../shared/ai/placeholders.ts";

export const ID_MAX = 200;
export const NAME_MAX = 200;
export const TEXT_MAX = 20_000;
export const DEFAULT_FIELD_MAX = 1_000;

/** The tones, alphabetically: the 400 message names them in this order. */
export const TONES = [
  "casual",
  "educational",
  "professional",
  "provocative",
  "storytelling",
] as const;
export type Tone = typeof TONES[number];
export const TONE_MESSAGE = `tone must be one of: ${TONES.join(", ")}`;

const requiredId = (field: string) =>
  z.string().trim().min(1, `${field} is required`).max(ID_MAX, `${field} is too long`);

const requiredText = (field: string, max: number) =>
  z.string().trim().min(1, `${field} is required`).max(max, `${field} is too long`);

/** A tone, stripped and checked against the five values. */
const toneSchema = z.preprocess(
  (v) => (typeof v === "string" ? v.trim() : v),
  z.enum(TONES, { error: TONE_MESSAGE }),
);

/** Coerced to a string and stripped (the spec's update rule for the text fields). */
const coercedText = (field: string, max: number) =>
  z.union([z.string(), z.number(), z.boolean()]).transform((v) => String(v).trim()).pipe(
    z.string().max(max, `${field} is too long`),
  );

/** A template naming a placeholder that generation does not fill is refused (400 naming it). */
const checkPlaceholders = (template: string, ctx: z.RefinementCtx) => {
  const problem = placeholderProblem(template);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
};
const TEMPLATE_DOC = {
  description: "The last user message of a generation, placeholders filled: " +
    `${FILLED_PLACEHOLDERS_TEXT}. Any other \`{name}\` is refused with 400 naming it.`,
};

const optionalFreeText = (field: string) =>
  z.string().max(DEFAULT_FIELD_MAX, `${field} is too long`).nullable();

export const promptSchema = z.object({
  prompt_id: z.string(),
  workspace_id: z.string(),
  name: z.string(),
  system_instruction: z.string(),
  user_template: z.string(),
  tone: z.enum(TONES),
  default_audience: z.string().nullable(),
  default_language: z.string().nullable(),
  is_default: z.boolean(),
  created_by: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
}).openapi("Prompt");
export type Prompt = z.infer<typeof promptSchema>;
/** What is stored: `is_default` is derived from the creator's default pointer on read. */
export type StoredPrompt = Omit<Prompt, "is_default">;

export const createPromptBody = z.object({
  workspace_id: requiredId("workspace_id"),
  name: requiredText("name", NAME_MAX),
  system_instruction: requiredText("system_instruction", TEXT_MAX),
  user_template: requiredText("user_template", TEXT_MAX).superRefine(checkPlaceholders).openapi(
    TEMPLATE_DOC,
  ),
  tone: toneSchema.default("professional"),
  default_audience: optionalFreeText("default_audience").optional(),
  default_language: optionalFreeText("default_language").optional(),
}).openapi("CreatePrompt");

export const updatePromptBody = z.object({
  workspace_id: requiredId("workspace_id"),
  name: coercedText("name", NAME_MAX).optional(),
  system_instruction: coercedText("system_instruction", TEXT_MAX).optional(),
  user_template: coercedText("user_template", TEXT_MAX).pipe(
    z.string().superRefine(checkPlaceholders),
  ).optional().openapi(TEMPLATE_DOC),
  tone: toneSchema.optional(),
  default_audience: optionalFreeText("default_audience").optional(),
  default_language: optionalFreeText("default_language").optional(),
}).openapi("UpdatePrompt");
export type PromptPatch = Omit<z.infer<typeof updatePromptBody>, "workspace_id">;

export const workspaceBody = z.object({
  workspace_id: requiredId("workspace_id"),
}).openapi("SetDefaultPrompt");

export const workspaceQuery = z.object({ workspaceId: requiredId("workspaceId") });
export const idParam = z.object({ id: requiredId("id") });

export const promptListSchema = z.object({
  items: z.array(promptSchema),
  count: z.number().int(),
}).openapi("PromptList");
export const deletedSchema = z.object({ deleted: z.literal(true) });
