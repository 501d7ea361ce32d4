import { useState } from "preact/hooks";
import { claims } from "../state/session.ts";
import { type AiChoices, loadAiChoices, saveAiChoices } from "../state/ai_choices.ts";

/** The drafting choices remembered for the signed-in user in `workspaceId`, and a setter per field. */
export function useAiChoices(
  workspaceId: string,
): [AiChoices, (field: keyof AiChoices) => (value: string) => void] {
  const userId = claims.value?.sub ?? "";
  const [choices, setChoices] = useState(() => loadAiChoices(userId, workspaceId));
  const choose = (field: keyof AiChoices) => (value: string) => {
    setChoices((current) => {
      const next = { ...current, [field]: value };
      saveAiChoices(userId, workspaceId, next);
      return next;
    });
  };
  return [choices, choose];
}
