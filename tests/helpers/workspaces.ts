import assert from "node:assert/strict";
import { api, type TestStack } from "./stack.ts";
import type { TestUser } from "./users.ts";

/**
 * A fresh workspace of `owner`'s named `name`, with `members` added in the order given (each a
 * user and a role); answers its id. Asserts every call succeeded.
 */
export async function createWorkspace(
  stack: TestStack,
  owner: TestUser,
  name: string,
  members: readonly (readonly [TestUser, "editor" | "viewer"])[] = [],
): Promise<string> {
  const res = await api(stack, "POST", "/api/workspaces", {
    token: owner.access_token,
    body: { name },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const id = res.body.workspace_id as string;
  for (const [user, role] of members) {
    const added = await api(stack, "POST", `/api/workspaces/${id}/members`, {
      token: owner.access_token,
      body: { email: user.email, role },
    });
    assert.equal(added.status, 201, JSON.stringify(added.body));
  }
  return id;
}
