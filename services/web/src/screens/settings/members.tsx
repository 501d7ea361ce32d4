/** The members (remove, leave), the pending invites, inviting, and transferring ownership. */
import { useState } from "preact/hooks";
import { ErrorMessage } from "../../components/error_message.tsx";
import { Loading } from "../../components/loading.tsx";
import { useResource } from "../../components/use_resource.ts";
import { ConfirmDialog } from "../../components/workspace_dialog.tsx";
import { describedBy, Field } from "../../components/workspace_form.tsx";
import { navigate } from "../../router.tsx";
import { loadInvites, loadMembers, removeMember } from "../../state/members.ts";
import { claims } from "../../state/session.ts";
import { dropWorkspace, updateWorkspace } from "../../state/workspaces.ts";
import { InviteForm, PendingInvites } from "./invites.tsx";
import { type Detail, initials, type Member, ROLE_LABEL } from "./shared.tsx";

export function Members({ detail, onChanged }: { detail: Detail; onChanged: () => void }) {
  const id = detail.workspace_id;
  const me = claims.value?.sub;
  const role = detail.member_role;
  const isOwner = role === "owner";
  const canInvite = isOwner || role === "editor";
  const members = useResource(
    () => loadMembers(id),
    [id],
  );
  const invites = useResource(
    () => loadInvites(id),
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
          await removeMember(id, removing!.user_id);
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
          await removeMember(id, me!);
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
          await updateWorkspace(id, { owner_id: transferTo }, "editor");
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
