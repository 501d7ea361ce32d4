import { api, TEST_ADMIN, type TestStack } from "./stack.ts";
import { waitForOutbox } from "./outbox.ts";

export interface TestUser {
  user_id: string;
  email: string;
  name: string;
  password: string;
  access_token: string;
  refresh_token: string;
}

let counter = 0;

/** A unique address for a test user. */
export function uniqueEmail(tag = "user"): string {
  return `${tag}-${Date.now().toString(36)}-${++counter}@example.test`;
}

export const GOOD_PASSWORD = "Correct-H0rse!";

export async function login(stack: { url: string }, email: string, password: string) {
  const res = await api(stack, "POST", "/api/auth/login", { body: { email, password } });
  if (res.status !== 200) {
    throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return res.body as { access_token: string; refresh_token: string; id_token: string };
}

/** Signs up and confirms (through the emailed code) an account, without approving it. */
export async function signupConfirmed(
  stack: TestStack,
  opts: { email?: string; name?: string; password?: string } = {},
): Promise<{ email: string; name: string; password: string; user_id: string }> {
  const email = opts.email ?? uniqueEmail();
  const name = opts.name ?? "Test User";
  const password = opts.password ?? GOOD_PASSWORD;
  const signup = await api(stack, "POST", "/api/auth/signup", {
    body: { email, password, name, recaptcha_token: "test-token" },
  });
  if (signup.status !== 200) throw new Error(`signup failed: ${JSON.stringify(signup.body)}`);
  const mail = await waitForOutbox(
    stack.outboxFile,
    (l) => l.template === "confirm_email" && l.to === email,
  );
  const confirm = await api(stack, "POST", "/api/auth/confirm", {
    body: { email, code: mail.data.code },
  });
  if (confirm.status !== 200) throw new Error(`confirm failed: ${JSON.stringify(confirm.body)}`);
  const tokens = await login(stack, email, password);
  const me = await api(stack, "GET", "/api/auth/me", { token: tokens.access_token });
  return { email, name, password, user_id: me.body.user_id };
}

/** Approves a user the way the admin routes do, through the auth service's internal API. */
export async function approve(stack: TestStack, userId: string): Promise<void> {
  const res = await stack.internal("auth", "POST", `/internal/users/${userId}/approve`);
  if (!res.ok) throw new Error(`approve failed: ${res.status} ${await res.text()}`);
  await res.body?.cancel();
}

/** A confirmed, approved user with fresh tokens. */
export async function createUser(
  stack: TestStack,
  opts: { email?: string; name?: string; password?: string } = {},
): Promise<TestUser> {
  const account = await signupConfirmed(stack, opts);
  await approve(stack, account.user_id);
  const tokens = await login(stack, account.email, account.password);
  return { ...account, access_token: tokens.access_token, refresh_token: tokens.refresh_token };
}

/** The bootstrapped admin (ADMIN_EMAIL), logged in. */
export async function loginAdmin(stack: TestStack): Promise<TestUser> {
  const tokens = await login(stack, TEST_ADMIN.email, TEST_ADMIN.password);
  const me = await api(stack, "GET", "/api/auth/me", { token: tokens.access_token });
  return {
    user_id: me.body.user_id,
    email: TEST_ADMIN.email,
    name: TEST_ADMIN.name,
    password: TEST_ADMIN.password,
    access_token: tokens.access_token,
    refresh_token: tokens.refresh_token,
  };
}
