import { z } from "zod";

/** POST /internal/titles: the free-form text an idea was captured with. */
export const titleRequestSchema = z.object({
  text: z.string().max(1_000_000),
});

export const titleResponseSchema = z.object({
  title: z.string().min(1),
  /** `ai` when the model made it, `fallback` when CONTRACT section 7's rule did */
  source: z.enum(["ai", "fallback"]),
});
export type TitleResponse = z.infer<typeof titleResponseSchema>;
