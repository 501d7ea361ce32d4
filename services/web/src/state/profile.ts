/**
 * Personal settings: the signed-in user's name and time zone, and a password change. A name
 * change refreshes the session so the top bar shows the new name; a password change signs out
 * every other session and hands this tab a new one, which is taken at once (the old access
 * token stops working).
 */
import { call, client, type Schemas } from "./api.ts";
import { adoptSession, refreshSession } from "./session.ts";

export type Me = Schemas["Me"];

export function loadMe(): Promise<Me> {
  return call(client().GET("/api/auth/me"));
}

export async function updateProfile(
  fields: { name?: string; timezone?: string | null },
): Promise<Me> {
  const me = await call(client().PATCH("/api/auth/me", { body: fields }));
  // The token's claims carry the name: a fresh token makes the top bar follow.
  if (fields.name !== undefined) await refreshSession();
  return me;
}

/** 403 `Current password is incorrect`, 400 for a new password the policy refuses. */
export async function changePassword(currentPassword: string, newPassword: string) {
  const session = await call(
    client().POST("/api/auth/password", {
      body: { current_password: currentPassword, new_password: newPassword },
      credentials: "same-origin",
    }),
  );
  adoptSession(session.access_token, session.expires_in);
}
