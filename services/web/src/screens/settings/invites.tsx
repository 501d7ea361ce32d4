/** Pending invites (cancel) and the invite-by-email form. */
import { useRef, useState } from "preact/hooks";
import { ErrorMessage } from "../../components/error_message.tsx";
import { Loading } from "../../components/loading.tsx";
import type { Resource } from "../../components/use_resource.ts";
import { describedBy, Field, fieldErrors } from "../../components/workspace_form.tsx";
import { ApiError, type Schemas } from "../../state/api.ts";
import { cancelInvite, inviteMember } from "../../state/members.ts";
import { breakableEmail, type Invite, type Member, ROLE_LABEL } from "./shared.tsx";

const INVITE_DATE = new Intl.DateTimeFormat(undefined, {
  day: "numeric",
  month: "short",
  year: "numeric",
});

/**
 * The pending invites (emails without a confirmed account), under the members: any member sees
 * them; the owner and editors can cancel one, after which that email no longer joins on sign-up.
 */
export function PendingInvites(
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
      await cancelInvite(workspaceId, inv.email);
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

export function InviteForm(
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
          const answer = await inviteMember(workspaceId, email, role);
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
