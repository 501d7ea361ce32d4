/** The AI helpers of the editor: generate a post from an idea, iterate on it, proofread it. */
import { call, client, type JsonBody } from "./api.ts";

export async function generatePost(body: JsonBody<"/api/genai/generate", "post">): Promise<string> {
  const { content } = await call(client().POST("/api/genai/generate", { body }));
  return content;
}

export async function iteratePost(body: JsonBody<"/api/genai/iterate", "post">): Promise<string> {
  const { suggestion } = await call(client().POST("/api/genai/iterate", { body }));
  return suggestion;
}

export async function proofreadPost(body: JsonBody<"/api/genai/proofread", "post">) {
  const { annotations } = await call(client().POST("/api/genai/proofread", { body }));
  return annotations;
}
