/**
 * The signed-out account flows: sign up, confirm the email (and resend the code), forgot and
 * reset password, and the first-run setup of the platform admin.
 */
import { call, client, type JsonBody } from "./api.ts";

export async function signUp(body: JsonBody<"/api/auth/signup", "post">): Promise<void> {
  await call(client().POST("/api/auth/signup", { body }));
}

export async function confirmEmail(email: string, code: string): Promise<void> {
  await call(client().POST("/api/auth/confirm", { body: { email, code } }));
}

export async function resendConfirmation(email: string): Promise<void> {
  await call(client().POST("/api/auth/resend-confirmation", { body: { email } }));
}

export async function forgotPassword(email: string): Promise<void> {
  await call(client().POST("/api/auth/forgot-password", { body: { email } }));
}

export async function resetPassword(email: string, code: string, password: string): Promise<void> {
  await call(client().POST("/api/auth/reset-password", { body: { email, code, password } }));
}

/** Whether the platform still waits for its first admin. */
export function loadSetup() {
  return call(client().GET("/api/setup"));
}

export async function finishSetup(body: JsonBody<"/api/setup", "post">): Promise<void> {
  await call(client().POST("/api/setup", { body }));
}
