/** The AI helpers of the editor: generate a post from an idea, iterate on it, proofread it. */
import { call, client, type JsonBody, type Schemas } from "./api.ts";

export async function generatePost(body: JsonBody<"/api/genai/generate", "post">): Promise<string> {
  const { content } = await call(client().POST("/api/genai/generate", { body }));
  return content;
}

export async function iteratePost(body: JsonBody<"/api/genai/iterate", "post">): Promise<string> {
  const { suggestion } = await call(client().POST("/api/genai/iterate", { body }));
  return suggestion;
}

/**
 * The annotations (the built-in checker's and the model's, merged) and what became of the
 * model's answer: `used`, `unusable` (it did not answer a list of findings) or `none` (no model).
 */
export async function proofreadPost(body: JsonBody<"/api/genai/proofread", "post">) {
  const { annotations, model } = await call(client().POST("/api/genai/proofread", { body }));
  return { annotations, model };
}

/** Whether this server has an AI model: proofread and titles work either way. */
export async function loadAiStatus(): Promise<Schemas["GenaiStatus"]> {
  return await call(client().GET("/api/genai/status"));
}
