import { z } from "zod";
import { AppError } from "../../shared/http/app_error.ts";
import type { Logger } from "../../shared/log.ts";

export const MIN_RECAPTCHA_SCORE = 0.5;

const siteverifySchema = z.object({
  success: z.boolean(),
  score: z.number().optional(),
});

/**
 * Signup bot scoring: POSTs `secret` and `response` (form-encoded) to the siteverify URL.
 * `success` false or a score below 0.5 refuses the signup with 400. Without a secret the
 * token is only required to be present.
 */
export async function checkRecaptcha(
  options: { secret: string | null; verifyUrl: string; logger: Logger },
  token: string,
): Promise<void> {
  if (!options.secret) return;
  let answer: z.infer<typeof siteverifySchema>;
  try {
    const res = await fetch(options.verifyUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ secret: options.secret, response: token }),
      signal: AbortSignal.timeout(10_000),
    });
    const parsed = siteverifySchema.safeParse(await res.json());
    if (!res.ok || !parsed.success) throw new Error(`unexpected answer (${res.status})`);
    answer = parsed.data;
  } catch (err) {
    options.logger.error("reCAPTCHA verification failed", { error: String(err) });
    throw new AppError(502, "Cannot verify the reCAPTCHA token");
  }
  if (!answer.success) throw new AppError(400, "recaptcha_token is invalid");
  if (answer.score !== undefined && answer.score < MIN_RECAPTCHA_SCORE) {
    throw new AppError(400, "recaptcha_token score is too low");
  }
}
