/**
 * `/workspaces/:id/settings`: the workspace's name, description, timezone (when the API has
 * it), publishing slots and default prompt; its audiences and languages; its members (invite,
 * pending invites with cancel, transfer ownership, remove, leave); and deleting it. Viewers see
 * the forms read-only.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, ApiError, call, type Schemas } from "../api/client.ts";
import { ErrorMessage } from "../components/error_message.tsx";
import { Loading } from "../components/loading.tsx";
import { type Resource, useResource } from "../components/use_resource.ts";
import { ConfirmDialog } from "../components/workspace_dialog.tsx";
import { describedBy, Field, fieldErrors } from "../components/workspace_form.tsx";
import { ListEditor, type ListEntry } from "../components/workspace_list_editor.tsx";
import { LinkedInSettings } from "../components/linkedin_settings.tsx";
import { Link, navigate } from "../router.tsx";
import type { ScreenProps } from "../routes.ts";
import { claims } from "../state/session.ts";
import { dropWorkspace, loadWorkspaces, patchWorkspace, workspaces } from "../state/workspaces.ts";

type Detail = Schemas["WorkspaceDetail"];
type Member = Schemas["WorkspaceMemberWithProfile"];
type Role = Schemas["WorkspaceRole"];
type Invite = Schemas["PendingInvite"];

const ROLE_LABEL: Record<Role, string> = { owner: "Owner", editor: "Editor", viewer: "Viewer" };

export default function SettingsScreen({ params }: ScreenProps) {
  const id = params.workspaceId;
  const ws = useResource(
    () => call(api.GET("/api/workspaces/{id}", { params: { path: { id } } })),
    [id],
  );
  if (ws.loading && !ws.data) return <Loading label="Loading settings" />;
  if (ws.error && !ws.data) {
    return (
      <section class="stack">
        <h1>Workspace settings</h1>
        <ErrorMessage error={ws.error} onRetry={ws.reload} />
      </section>
    );
  }
  // the name saved here since the load lives in the workspace list (the switcher shows it too)
  const name = workspaces.value?.find((w) => w.workspace_id === id)?.name ?? ws.data!.name;
  const detail = { ...ws.data!, name };
  const role = detail.member_role;
  const canEdit = role === "owner" || role === "editor";
  return (
    <div class="settings stack">
      <header class="screen-head">
        <h1>Workspace settings</h1>
        <p class="wa-muted">
          {name} · {detail.member_count} {detail.member_count === 1 ? "member" : "members"}{" "}
          · you are {ROLE_LABEL[role].toLowerCase()}
        </p>
      </header>
      {!canEdit && (
        <p class="wa-notice" role="note">
          You are a viewer here: only the owner or an editor can change these settings.
        </p>
      )}
      <GeneralSettings key={`${id}-${detail.updated_at}`} detail={detail} canEdit={canEdit} />
      <LinkedInSettings workspaceId={id} canEdit={canEdit} />
      <div class="settings-lists">
        <ItemList workspaceId={id} kind="audiences" />
        <ItemList workspaceId={id} kind="languages" />
      </div>
      <Members detail={detail} onChanged={ws.reload} />
      {role === "owner" && <DangerZone detail={detail} />}
    </div>
  );
}

// ---------------------------------------------------------------------------------------------

const GENERAL_FIELDS = [
  "name",
  "description",
  "timezone",
  "publishing_slots",
  "approval_required",
  "default_prompt_id",
] as const;

function timeZones(): string[] {
  try {
    return (Intl as unknown as { supportedValuesOf(k: string): string[] }).supportedValuesOf(
      "timeZone",
    );
  } catch {
    return ["UTC"];
  }
}

/** The IANA zones to offer, with the current one (and UTC) always among them. */
function zoneOptions(current: string): string[] {
  const zones = timeZones();
  const extra = [current, "UTC"].filter((z) => z && !zones.includes(z));
  return [...extra, ...zones];
}

function GeneralSettings({ detail, canEdit }: { detail: Detail; canEdit: boolean }) {
  const id = detail.workspace_id;
  const [name, setName] = useState(detail.name);
  const [description, setDescription] = useState(detail.description);
  const [timezone, setTimezone] = useState(detail.timezone);
  const [approval, setApproval] = useState(detail.approval_required);
  const [slots, setSlots] = useState<ListEntry[]>(
    detail.publishing_slots.map((s, i) => ({ id: `${i}:${s}`, name: s })),
  );
  const [defaultPrompt, setDefaultPrompt] = useState(detail.default_prompt_id ?? "");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const prompts = useResource(
    () => call(api.GET("/api/prompts", { params: { query: { workspaceId: id } } })),
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
              description,
              publishing_slots: slots.map((s) => s.name.trim()).filter(Boolean),
              default_prompt_id: defaultPrompt || null,
            };
            const updated = await call(
              api.PUT("/api/workspaces/{id}", { params: { path: { id } }, body }),
            );
            patchWorkspace(updated);
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
              When on, a post is scheduled or published only after an owner or editor other than its
              author approves it, and any change to the text afterwards sends it back to review.
            </p>
            {byField.approval_required && (
              <p class="field-error" role="alert">{byField.approval_required}</p>
            )}
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
              {zoneOptions(timezone).map((z) => <option key={z} value={z}>{z}</option>)}
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

// ---------------------------------------------------------------------------------------------

function ItemList({ workspaceId, kind }: { workspaceId: string; kind: "audiences" | "languages" }) {
  const label = kind === "audiences" ? "Audiences" : "Languages";
  const one = kind === "audiences" ? "Audience" : "Language";
  const list = useResource(
    () =>
      kind === "audiences"
        ? call(api.GET("/api/audiences", { params: { query: { workspaceId } } }))
        : call(api.GET("/api/languages", { params: { query: { workspaceId } } })),
    [workspaceId, kind],
  );
  const [items, setItems] = useState<ListEntry[] | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (list.data) setItems(list.data.items);
  }, [list.data]);
  const { byField, rest } = fieldErrors(error, [kind]);
  const headingId = `${kind}-heading`;
  return (
    <section class="card settings-section" aria-labelledby={headingId}>
      <h2 id={headingId}>{label}</h2>
      <p class="wa-muted" id={`${kind}-hint`}>
        {kind === "audiences"
          ? "Who posts are written for; offered when generating a post. Any member can edit this list."
          : "Languages offered when generating a post. Any member can edit this list."}
      </p>
      {list.loading && !items && <Loading label={`Loading ${kind}`} />}
      {list.error ? <ErrorMessage error={list.error} onRetry={list.reload} /> : null}
      {items && (
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            setBusy(true);
            setError(null);
            setSaved(false);
            try {
              const clean = items.map((i) => ({ id: i.id, name: i.name.trim() }));
              const answer = kind === "audiences"
                ? await call(api.PUT("/api/audiences", {
                  body: { workspace_id: workspaceId, audiences: clean },
                }))
                : await call(api.PUT("/api/languages", {
                  body: { workspace_id: workspaceId, languages: clean },
                }));
              setItems(answer.items);
              setSaved(true);
            } catch (err) {
              setError(err);
            } finally {
              setBusy(false);
            }
          }}
        >
          <ListEditor
            idPrefix={kind}
            itemLabel={one}
            items={items}
            max={30}
            describedBy={byField[kind] ? `${kind}-hint ${kind}-error` : `${kind}-hint`}
            onChange={(next) => {
              setItems(next);
              setSaved(false);
            }}
          />
          {byField[kind] && (
            <p class="field-error" id={`${kind}-error`} role="alert">{byField[kind]}</p>
          )}
          <ErrorMessage error={rest} />
          <div class="button-row wa-start">
            <button type="submit" class="button" disabled={busy}>
              {busy ? "Saving…" : `Save ${kind}`}
            </button>
            <span class="saved-note" role="status">{saved ? "Saved" : ""}</span>
          </div>
        </form>
      )}
    </section>
  );
}

// ---------------------------------------------------------------------------------------------

function Members({ detail, onChanged }: { detail: Detail; onChanged: () => void }) {
  const id = detail.workspace_id;
  const me = claims.value?.sub;
  const role = detail.member_role;
  const isOwner = role === "owner";
  const canInvite = isOwner || role === "editor";
  const members = useResource(
    () => call(api.GET("/api/workspaces/{id}/members", { params: { path: { id } } })),
    [id],
  );
  const invites = useResource(
    () => call(api.GET("/api/workspaces/{id}/invites", { params: { path: { id } } })),
    [id],
  );
  const [removing, setRemoving] = useState<Member | null>(null);
  const [leaving, setLeaving] = useState(false);
  const [transferTo, setTransferTo] = useState("");
  const [transferring, setTransferring] = useState(false);
  const list = members.data?.members ?? [];
  const others = list.filter((m) => m.user_id !== me);
  const target = list.find((m) => m.user_id === transferTo);

  return (
    <section class="card settings-section" aria-labelledby="members-heading">
      <h2 id="members-heading">Members</h2>
      {members.loading && !members.data && <Loading label="Loading members" />}
      {members.error ? <ErrorMessage error={members.error} onRetry={members.reload} /> : null}
      {members.data && (
        <ul class="member-list">
          {list.map((m) => (
            <li key={m.user_id} class="member-row">
              <span class="avatar wa-small" aria-hidden="true">{initials(m.name || m.email)}</span>
              <span class="member-who">
                <span class="member-name">
                  {m.name || m.email}
                  {m.user_id === me && <span class="wa-muted">(you)</span>}
                </span>
                <span class="member-email">{m.email}</span>
              </span>
              <span class={`role-badge role-${m.role}`}>{ROLE_LABEL[m.role]}</span>
              <span class="member-actions">
                {isOwner && m.user_id !== me && (
                  <button
                    type="button"
                    class="button secondary wa-small"
                    aria-label={`Remove ${m.name || m.email}`}
                    onClick={() => setRemoving(m)}
                  >
                    Remove
                  </button>
                )}
                {!isOwner && m.user_id === me && (
                  <button
                    type="button"
                    class="button secondary wa-small"
                    onClick={() => setLeaving(true)}
                  >
                    Leave workspace
                  </button>
                )}
              </span>
            </li>
          ))}
        </ul>
      )}
      <PendingInvites
        workspaceId={id}
        invites={invites}
        canCancel={canInvite}
        members={list}
      />
      {canInvite && (
        <InviteForm
          workspaceId={id}
          onAdded={() => {
            members.reload();
            // adding someone who had a pending invite here turns it into the membership
            invites.reload();
            onChanged();
          }}
          onInvited={invites.reload}
        />
      )}
      {isOwner && (
        <div class="wa-transfer">
          <h3>Transfer ownership</h3>
          {others.length === 0
            ? <p class="wa-muted">Invite a member first: ownership goes to an existing member.</p>
            : (
              <form
                class="inline-form"
                onSubmit={(e) => {
                  e.preventDefault();
                  if (transferTo) setTransferring(true);
                }}
              >
                <Field
                  id="transfer-to"
                  label="New owner"
                  hint="You become an editor. A workspace has exactly one owner."
                >
                  <select
                    id="transfer-to"
                    value={transferTo}
                    onChange={(e) => setTransferTo(e.currentTarget.value)}
                    {...describedBy("transfer-to", undefined, true)}
                  >
                    <option value="">Choose a member</option>
                    {others.map((m) => (
                      <option key={m.user_id} value={m.user_id}>
                        {m.name || m.email} ({ROLE_LABEL[m.role].toLowerCase()})
                      </option>
                    ))}
                  </select>
                </Field>
                <div class="field">
                  <button type="submit" class="button secondary" disabled={!transferTo}>
                    Transfer ownership
                  </button>
                </div>
              </form>
            )}
        </div>
      )}
      <ConfirmDialog
        open={!!removing}
        title="Remove member"
        confirmLabel="Remove"
        onClose={() => setRemoving(null)}
        onConfirm={async () => {
          await call(api.DELETE("/api/workspaces/{id}/members/{userId}", {
            params: { path: { id, userId: removing!.user_id } },
          }));
          members.reload();
          onChanged();
        }}
      >
        <p>
          Remove <strong>{removing?.name || removing?.email}</strong> from{" "}
          {detail.name}? They lose access at once.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={leaving}
        title="Leave workspace"
        confirmLabel="Leave"
        onClose={() => setLeaving(false)}
        onConfirm={async () => {
          await call(api.DELETE("/api/workspaces/{id}/members/{userId}", {
            params: { path: { id, userId: me! } },
          }));
          dropWorkspace(id);
          navigate("/");
        }}
      >
        <p>
          Leave <strong>{detail.name}</strong>? You will need a new invite to come back.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={transferring}
        title="Transfer ownership"
        confirmLabel="Transfer"
        onClose={() => setTransferring(false)}
        onConfirm={async () => {
          const updated = await call(api.PUT("/api/workspaces/{id}", {
            params: { path: { id } },
            body: { owner_id: transferTo },
          }));
          patchWorkspace(updated, "editor");
          setTransferTo("");
          members.reload();
          onChanged();
        }}
      >
        <p>
          Make <strong>{target?.name || target?.email}</strong> the owner of{" "}
          {detail.name}? You become an editor and can no longer delete the workspace or remove
          members.
        </p>
      </ConfirmDialog>
    </section>
  );
}

const INVITE_DATE = new Intl.DateTimeFormat(undefined, {
  day: "numeric",
  month: "short",
  year: "numeric",
});

/**
 * The pending invites (emails without a confirmed account), under the members: any member sees
 * them; the owner and editors can cancel one, after which that email no longer joins on sign-up.
 */
function PendingInvites(
  { workspaceId, invites, canCancel, members }: {
    workspaceId: string;
    invites: Resource<Schemas["PendingInviteList"]>;
    canCancel: boolean;
    members: Member[];
  },
) {
  const [cancelling, setCancelling] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [note, setNote] = useState("");
  const heading = useRef<HTMLHeadingElement>(null);
  const list = invites.data?.invites ?? [];
  const inviter = (inv: Invite) => {
    const m = members.find((m) => m.user_id === inv.invited_by);
    return m ? m.name || m.email : null;
  };

  async function cancel(inv: Invite) {
    setCancelling(inv.email);
    setError(null);
    setNote("");
    try {
      await call(api.DELETE("/api/workspaces/{id}/invites/{email}", {
        params: { path: { id: workspaceId, email: inv.email } },
      }));
      setNote(`Invite for ${inv.email} cancelled.`);
      invites.reload();
      // the row goes away: keep keyboard focus in the list's place
      heading.current?.focus();
    } catch (err) {
      setError(err);
      // already accepted or cancelled elsewhere: show the list as it is now
      if (err instanceof ApiError && err.status === 404) invites.reload();
    } finally {
      setCancelling(null);
    }
  }

  return (
    <div class="wa-invites">
      <h3 id="invites-heading" ref={heading} tabIndex={-1}>
        Pending invites{list.length > 0 ? ` (${list.length})` : ""}
      </h3>
      {invites.loading && !invites.data && <Loading label="Loading invites" />}
      {invites.error ? <ErrorMessage error={invites.error} onRetry={invites.reload} /> : null}
      {invites.data && list.length === 0 && (
        <p class="wa-muted">
          No pending invites. {canCancel
            ? "Invite an email below: someone without an account is listed here until they sign up and confirm it."
            : "The owner or an editor can invite people by email."}
        </p>
      )}
      {list.length > 0 && (
        <ul class="member-list" aria-labelledby="invites-heading">
          {list.map((inv) => {
            const by = inviter(inv);
            return (
              <li key={inv.email} class="member-row">
                <span class="avatar wa-small wa-pending" aria-hidden="true">@</span>
                <span class="member-who">
                  <span class="member-name">
                    <span>{breakableEmail(inv.email)}</span>
                    <span class="role-badge role-pending">Pending</span>
                  </span>
                  <span class="member-email">
                    {inv.invited_at && (
                      <>
                        Invited{" "}
                        <time dateTime={inv.invited_at}>
                          {INVITE_DATE.format(new Date(inv.invited_at))}
                        </time>
                        {by ? ` by ${by}` : ""} ·{" "}
                      </>
                    )}
                    joins when they sign up and confirm this email
                  </span>
                </span>
                <span class={`role-badge role-${inv.role}`}>{ROLE_LABEL[inv.role]}</span>
                <span class="member-actions">
                  {canCancel && (
                    <button
                      type="button"
                      class="button secondary wa-small"
                      aria-label={`Cancel invite for ${inv.email}`}
                      disabled={cancelling === inv.email}
                      onClick={() => cancel(inv)}
                    >
                      {cancelling === inv.email ? "Cancelling…" : "Cancel invite"}
                    </button>
                  )}
                </span>
              </li>
            );
          })}
        </ul>
      )}
      <ErrorMessage error={error} />
      <p class="saved-note" role="status">{note}</p>
    </div>
  );
}

function InviteForm(
  { workspaceId, onAdded, onInvited }: {
    workspaceId: string;
    onAdded: () => void;
    onInvited: () => void;
  },
) {
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<"editor" | "viewer">("viewer");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [result, setResult] = useState<string | null>(null);
  const { byField, rest } = fieldErrors(error, ["email", "role"]);
  return (
    <form
      class="invite-form"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        setResult(null);
        try {
          const answer = await call(api.POST("/api/workspaces/{id}/members", {
            params: { path: { id: workspaceId } },
            body: { email, role },
          }));
          if ("status" in answer && answer.status === "invited") {
            onInvited();
            setResult(
              `${answer.email} has no account yet: the invite is pending (listed above) and ` +
                `turns into a membership when they sign up with this email. No email is sent, ` +
                `so tell them.`,
            );
          } else {
            onAdded();
            setResult(`${email.trim()} is now a member.`);
          }
          setEmail("");
        } catch (err) {
          setError(err);
        } finally {
          setBusy(false);
        }
      }}
    >
      <h3>Invite by email</h3>
      <div class="inline-form">
        <Field id="invite-email" label="Email" error={byField.email}>
          <input
            id="invite-email"
            type="email"
            required
            autoComplete="off"
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
            {...describedBy("invite-email", byField.email)}
          />
        </Field>
        <Field id="invite-role" label="Role" error={byField.role}>
          <select
            id="invite-role"
            value={role}
            onChange={(e) => setRole(e.currentTarget.value as "editor" | "viewer")}
            {...describedBy("invite-role", byField.role, true)}
          >
            <option value="viewer">Viewer</option>
            <option value="editor">Editor</option>
          </select>
        </Field>
        <div class="field">
          <button type="submit" class="button" disabled={busy}>
            {busy ? "Inviting…" : "Invite"}
          </button>
        </div>
      </div>
      <p class="field-hint" id="invite-role-hint">
        Viewers read, comment and write posts; editors also change settings and invite.
      </p>
      <ErrorMessage error={rest} />
      <p class="saved-note" role="status">{result ?? ""}</p>
    </form>
  );
}

function DangerZone({ detail }: { detail: Detail }) {
  const [open, setOpen] = useState(false);
  return (
    <section class="card settings-section danger-zone" aria-labelledby="danger-heading">
      <h2 id="danger-heading">Delete workspace</h2>
      <p>
        Deleting hides {detail.name}{" "}
        from every member. A platform admin can recover it; its posts and ideas are kept.
      </p>
      <div>
        <button type="button" class="button danger" onClick={() => setOpen(true)}>
          Delete workspace…
        </button>
      </div>
      <ConfirmDialog
        open={open}
        title="Delete workspace"
        confirmLabel="Delete workspace"
        confirmWord={detail.name}
        onClose={() => setOpen(false)}
        onConfirm={async () => {
          await call(api.DELETE("/api/workspaces/{id}", {
            params: { path: { id: detail.workspace_id } },
          }));
          dropWorkspace(detail.workspace_id);
          await loadWorkspaces().catch(() => {});
          navigate("/");
        }}
      >
        <p>
          Every member loses access to <strong>{detail.name}</strong>{" "}
          at once. Posts, ideas and actions are kept for recovery by a platform admin.
        </p>
      </ConfirmDialog>
    </section>
  );
}

/** The email with a line-break opportunity before the `@`, so a narrow screen wraps there. */
function breakableEmail(email: string) {
  const at = email.lastIndexOf("@");
  if (at <= 0) return email;
  return (
    <>
      {email.slice(0, at)}
      <wbr />
      {email.slice(at)}
    </>
  );
}

function initials(name: string): string {
  return name.split(/[\s@.]+/).filter(Boolean).slice(0, 2).map((p) => p[0]!.toUpperCase())
    .join("");
}
