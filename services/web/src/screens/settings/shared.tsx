/** What the settings sections share: role labels and how a person's name or email is shown. */
import type { Schemas } from "../../state/api.ts";

export type Detail = Schemas["WorkspaceDetail"];
export type Member = Schemas["WorkspaceMemberWithProfile"];
export type Role = Schemas["WorkspaceRole"];
export type Invite = Schemas["PendingInvite"];

export const ROLE_LABEL: Record<Role, string> = {
  owner: "Owner",
  editor: "Editor",
  viewer: "Viewer",
};

/** The email with a line-break opportunity before the `@`, so a narrow screen wraps there. */
export function breakableEmail(email: string) {
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

export function initials(name: string): string {
  return name.split(/[\s@.]+/).filter(Boolean).slice(0, 2).map((p) => p[0]!.toUpperCase())
    .join("");
}
