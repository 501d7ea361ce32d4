/** The workspace's name, description, approval rule, timezone, publishing slots, default prompt. */
import { useState } from "preact/hooks";
import { ErrorMessage } from "../../components/error_message.tsx";
import { useResource } from "../../components/use_resource.ts";
import { describedBy, Field, fieldErrors } from "../../components/workspace_form.tsx";
import { ListEditor, type ListEntry } from "../../components/workspace_list_editor.tsx";
import { Link } from "../../router.tsx";
import type { Schemas } from "../../state/api.ts";
import { loadPrompts } from "../../state/prompts.ts";
import { updateWorkspace } from "../../state/workspaces.ts";
import type { Detail } from "./shared.tsx";
import { timeZoneOptions } from "../../components/time_zones.ts";
import { ApprovalsRequired } from "./approvals_required.tsx";

const GENERAL_FIELDS = [
  "name",
  "description",
  "timezone",
  "publishing_slots",
  "approvals_required",
  "approval_required",
  "default_prompt_id",
] as const;

export function GeneralSettings({ detail, canEdit }: { detail: Detail; canEdit: boolean }) {
  const id = detail.workspace_id;
  const [name, setName] = useState(detail.name);
  const [description, setDescription] = useState(detail.description);
  const [timezone, setTimezone] = useState(detail.timezone);
  const [approval, setApproval] = useState(detail.approval_required);
  const [approvals, setApprovals] = useState(detail.approvals_required ?? 1);
  const [slots, setSlots] = useState<ListEntry[]>(
    detail.publishing_slots.map((s, i) => ({ id: `${i}:${s}`, name: s })),
  );
  const [defaultPrompt, setDefaultPrompt] = useState(detail.default_prompt_id ?? "");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const prompts = useResource(
    () => loadPrompts(id),
    [id],
  );
  const own = prompts.data?.items ?? [];
  const foreignDefault = detail.default_prompt_id &&
    !own.some((p) => p.prompt_id === detail.default_prompt_id);
  const { byField, rest } = fieldErrors(error, GENERAL_FIELDS);
  const slotsError = byField.publishing_slots;

  return (
    <section class="card settings-section" aria-labelledby="general-heading">
      <h2 id="general-heading">General</h2>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          setSaved(false);
          try {
            const body: Schemas["UpdateWorkspaceRequest"] = {
              name,
              timezone,
              approval_required: approval,
              approvals_required: approvals,
              description,
              publishing_slots: slots.map((s) => s.name.trim()).filter(Boolean),
              default_prompt_id: defaultPrompt || null,
            };
            const updated = await updateWorkspace(id, body);
            setSlots(updated.publishing_slots.map((s, i) => ({ id: `${i}:${s}`, name: s })));
            setName(updated.name);
            setSaved(true);
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <fieldset disabled={!canEdit} class="plain-fieldset">
          <legend class="visually-hidden">General settings</legend>
          <Field id="settings-name" label="Name" error={byField.name}>
            <input
              id="settings-name"
              value={name}
              required
              onInput={(e) => {
                setName(e.currentTarget.value);
                setSaved(false);
              }}
              {...describedBy("settings-name", byField.name)}
            />
          </Field>
          <Field id="settings-description" label="Description" error={byField.description}>
            <textarea
              id="settings-description"
              rows={3}
              value={description}
              onInput={(e) => {
                setDescription(e.currentTarget.value);
                setSaved(false);
              }}
              {...describedBy("settings-description", byField.description)}
            />
          </Field>
          <div class="field">
            <label class="settings-toggle">
              <input
                type="checkbox"
                checked={approval}
                aria-describedby="settings-approval-hint"
                onChange={(e) => {
                  setApproval(e.currentTarget.checked);
                  setSaved(false);
                }}
              />
              <span class="field-label">Approval required before publishing</span>
            </label>
            <p class="field-hint" id="settings-approval-hint">
              When on, a post is scheduled or published only once it has the approvals needed
              (owners or editors other than its author, or reviewers with a review link), and any
              change to the text afterwards sends it back to review.
            </p>
            {byField.approval_required && (
              <p class="field-error" role="alert">{byField.approval_required}</p>
            )}
            <ApprovalsRequired
              value={approvals}
              disabled={!approval}
              error={byField.approvals_required}
              onChange={(n) => {
                setApprovals(n);
                setSaved(false);
              }}
            />
          </div>
          <Field
            id="settings-timezone"
            label="Timezone"
            error={byField.timezone}
            hint="Publishing slots and scheduled times are in this zone."
          >
            <select
              id="settings-timezone"
              value={timezone}
              onChange={(e) => {
                setTimezone(e.currentTarget.value);
                setSaved(false);
              }}
              {...describedBy("settings-timezone", byField.timezone, true)}
            >
              {timeZoneOptions(timezone).map((z) => <option key={z} value={z}>{z}</option>)}
            </select>
          </Field>
          <div class="field" role="group" aria-labelledby="slots-label">
            <span id="slots-label" class="field-label">Publishing slots</span>
            <p class="field-hint" id="slots-hint">
              When posts go out: one entry per slot, a day <code>Mon</code> to <code>Sun</code>{" "}
              and a 24-hour time, for example <code>Mon 09:00</code> or{" "}
              <code>Thu 17:30</code>, in the timezone above.
            </p>
            <ListEditor
              idPrefix="slot"
              itemLabel="Slot"
              items={slots}
              readOnly={!canEdit}
              placeholder="Mon 09:00"
              max={50}
              describedBy={slotsError ? "slots-hint slots-error" : "slots-hint"}
              onChange={(next) => {
                setSlots(next);
                setSaved(false);
              }}
            />
            {slotsError && <p class="field-error" id="slots-error" role="alert">{slotsError}</p>}
          </div>
          <Field
            id="settings-default-prompt"
            label="Default prompt"
            error={byField.default_prompt_id}
            hint={
              <>
                Used when a post is generated without choosing a prompt.{" "}
                <Link href={`/workspaces/${encodeURIComponent(id)}/prompts`}>Manage prompts</Link>
              </>
            }
          >
            <select
              id="settings-default-prompt"
              value={defaultPrompt}
              onChange={(e) => setDefaultPrompt(e.currentTarget.value)}
              {...describedBy("settings-default-prompt", byField.default_prompt_id, true)}
            >
              <option value="">None (the built-in writer)</option>
              {foreignDefault && (
                <option value={detail.default_prompt_id!}>
                  The current default (another member's prompt)
                </option>
              )}
              {own.map((p) => <option key={p.prompt_id} value={p.prompt_id}>{p.name}</option>)}
            </select>
          </Field>
          {prompts.error ? <ErrorMessage error={prompts.error} onRetry={prompts.reload} /> : null}
        </fieldset>
        <ErrorMessage error={rest} />
        {canEdit && (
          <div class="button-row wa-start">
            <button type="submit" class="button" disabled={busy}>
              {busy ? "Saving…" : "Save settings"}
            </button>
            <span class="saved-note" role="status">{saved ? "Saved" : ""}</span>
          </div>
        )}
      </form>
    </section>
  );
}
