/**
 * Draft the post from its idea: prompt, audience, language (the workspace's lists), tone and
 * length, then POST /api/genai/generate. The draft goes into the live document for everyone
 * as one change: it fills an empty post, replaces the selected words, or goes in at the
 * cursor.
 */
import { useState } from "preact/hooks";
import { generatePost } from "../state/genai.ts";
import { getIdea } from "../state/ideas.ts";
import { loadList, loadPrompts } from "../state/prompts.ts";
import type { EditorSession } from "../editor/session.ts";
import { replaceText } from "../editor/ai_edit.ts";
import { useResource } from "./use_resource.ts";
import { Link } from "../router.tsx";
import { AiError, BusyLabel } from "./ai_error.tsx";
import { useAiChoices } from "./use_ai_choices.ts";

/** The lengths generation knows; the API takes any value and ignores the others. */
type Length = "very_short" | "short" | "medium" | "long" | "very_long" | "extra_long";

const TONES = ["casual", "educational", "professional", "provocative", "storytelling"] as const;
const LENGTHS: [Length, string][] = [
  ["very_short", "Very short"],
  ["short", "Short"],
  ["medium", "Medium"],
  ["long", "Long"],
  ["very_long", "Very long"],
  ["extra_long", "Extra long"],
];
const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function AiGenerate(
  { session, ideaId, noModel = false }: {
    session: EditorSession;
    ideaId: string | null;
    /** the server has no AI model: drafting is off, and says why */
    noModel?: boolean;
  },
) {
  const { workspaceId } = session;
  if (!ideaId) {
    return (
      <section class="ai-section stack" aria-labelledby="ai-generate-heading">
        <h3 id="ai-generate-heading">Draft from the idea</h3>
        <p class="ai-note">
          This post is not linked to an idea, so there is nothing to draft from. To draft with AI,
          pick an idea on the <Link href={`/workspaces/${workspaceId}/ideas`}>Ideas board</Link>
          {" "}
          and choose “Write a post”. You can still rewrite and proofread this post below.
        </p>
      </section>
    );
  }
  return <GenerateForm session={session} ideaId={ideaId} noModel={noModel} />;
}

function GenerateForm(
  { session, ideaId, noModel }: { session: EditorSession; ideaId: string; noModel: boolean },
) {
  const { workspaceId } = session;
  const lists = useResource(
    () =>
      Promise.all([
        getIdea(workspaceId, ideaId),
        loadPrompts(workspaceId),
        loadList(workspaceId, "audiences"),
        loadList(workspaceId, "languages"),
      ]),
    [workspaceId, ideaId],
  );
  const [idea, prompts, audiences, languages] = lists.data ?? [null, null, null, null];
  // Remembered per user and workspace; one no longer offered (a deleted prompt) counts as Default.
  const [choices, choose] = useAiChoices(workspaceId);
  const offered = (value: string, options?: { name?: string; prompt_id?: string }[]) =>
    !options || options.some((o) => (o.prompt_id ?? o.name) === value) ? value : "";
  const promptId = offered(choices.promptId, prompts?.items);
  const audience = offered(choices.audience, audiences?.items);
  const language = offered(choices.language, languages?.items);
  const { tone, length } = choices;
  const [setPromptId, setAudience, setLanguage, setTone, setLength] = (
    ["promptId", "audience", "language", "tone", "length"] as const
  ).map(choose);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);

  async function generate(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      const content = await generatePost({
        workspace_id: workspaceId,
        idea_id: ideaId,
        ...(promptId ? { prompt_id: promptId } : {}),
        ...(audience ? { audience } : {}),
        ...(language ? { language } : {}),
        ...(tone ? { tone } : {}),
        ...(length ? { length: length as Length } : {}),
      });
      setDone(insertDraft(session, content));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  const select = (
    id: string,
    label: string,
    value: string,
    set: (v: string) => void,
    first: string,
    options: [string, string][],
  ) => (
    <div class="field ai-field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => set(e.currentTarget.value)}>
        <option value="">{first}</option>
        {options.map(([v, text]) => <option key={v} value={v}>{text}</option>)}
      </select>
    </div>
  );

  return (
    <section class="ai-section stack" aria-labelledby="ai-generate-heading">
      <h3 id="ai-generate-heading">Draft from the idea</h3>
      {idea && (
        <p class="ai-note">
          Idea: <strong>{idea.title}</strong>
        </p>
      )}
      {lists.error && <AiError error={lists.error} />}
      <form class="ai-form" onSubmit={generate}>
        <div class="ai-pickers">
          {select(
            "ai-prompt",
            "Prompt",
            promptId,
            setPromptId,
            "Default",
            (prompts?.items ?? []).map((
              p,
            ) => [p.prompt_id, p.is_default ? `${p.name} (default)` : p.name]),
          )}
          {select(
            "ai-audience",
            "Audience",
            audience,
            setAudience,
            "Default",
            (audiences?.items ?? []).map((a) => [a.name, a.name]),
          )}
          {select(
            "ai-language",
            "Language",
            language,
            setLanguage,
            "Default",
            (languages?.items ?? []).map((l) => [l.name, l.name]),
          )}
          {select(
            "ai-tone",
            "Tone",
            tone,
            setTone,
            "Default",
            TONES.map((t) => [t, capital(t)]),
          )}
          {select("ai-length", "Length", length, setLength, "Default", LENGTHS)}
        </div>
        <p class="ai-note">
          The draft fills an empty post, replaces the selected words, or goes in at the cursor, for
          everyone editing.
        </p>
        <div>
          <button
            type="submit"
            class="button"
            disabled={busy || noModel}
            aria-describedby={noModel ? "ai-generate-needs-model" : undefined}
          >
            <BusyLabel busy={busy} idle="Generate draft" working="Generating…" />
          </button>
        </div>
        {noModel && (
          <p id="ai-generate-needs-model" class="ai-note">
            Drafting needs an AI model, and none is connected (see above).
          </p>
        )}
      </form>
      <AiError error={error} />
      {done && <p class="ai-done" role="status">{done}</p>}
    </section>
  );
}

/** Puts the draft into the live text (one change); answers what happened, for the status. */
function insertDraft(session: EditorSession, content: string): string {
  const text = session.ytext.toString();
  if (text.trim() === "") {
    replaceText(session, 0, text.length, content);
    return "The draft is in the post.";
  }
  const sel = session.view.value?.state.selection.main;
  if (sel && !sel.empty) {
    replaceText(session, sel.from, sel.to, content);
    return "The draft replaced the selected words.";
  }
  const at = sel ? sel.head : text.length;
  const before = text.slice(0, at);
  const after = text.slice(at);
  const lead = before === "" || before.endsWith("\n\n")
    ? ""
    : before.endsWith("\n")
    ? "\n"
    : "\n\n";
  const trail = after === "" || after.startsWith("\n\n")
    ? ""
    : after.startsWith("\n")
    ? "\n"
    : "\n\n";
  replaceText(session, at, at, lead + content + trail);
  return "The draft went in at the cursor.";
}
