/**
 * The AI drafting choices (prompt, audience, language, tone, length) each user last made in a
 * workspace, kept in localStorage under the user and the workspace (names and ids only, never a
 * token), so the next draft starts from them.
 */

export interface AiChoices {
  promptId: string;
  audience: string;
  language: string;
  tone: string;
  length: string;
}

export const NO_CHOICES: AiChoices = {
  promptId: "",
  audience: "",
  language: "",
  tone: "",
  length: "",
};

export function aiChoicesKey(userId: string, workspaceId: string): string {
  return `cp_ai_choices:${userId}:${workspaceId}`;
}

export function loadAiChoices(userId: string, workspaceId: string): AiChoices {
  try {
    const raw = JSON.parse(localStorage.getItem(aiChoicesKey(userId, workspaceId)) ?? "{}");
    const out = { ...NO_CHOICES };
    for (const k of Object.keys(NO_CHOICES) as (keyof AiChoices)[]) {
      if (typeof raw?.[k] === "string") out[k] = raw[k];
    }
    return out;
  } catch {
    return { ...NO_CHOICES }; // storage disabled or not ours: start from the defaults
  }
}

export function saveAiChoices(userId: string, workspaceId: string, choices: AiChoices): void {
  try {
    localStorage.setItem(aiChoicesKey(userId, workspaceId), JSON.stringify(choices));
  } catch {
    // storage disabled: the choices last as long as the page
  }
}
