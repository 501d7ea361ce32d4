// deno-lint-ignore-file no-explicit-any -- API answers are checked field by field
import assert from "node:assert/strict";
import type { KeyFamilies } from "../shared/kv/kv_keys.ts";
import { decodeLine, readLines } from "../shared/archive/kv_backup.ts";
import { KEY_FAMILIES as actions } from "../services/actions/keys.ts";
import { KEY_FAMILIES as admin } from "../services/admin/keys.ts";
import { KEY_FAMILIES as auth } from "../services/auth/keys.ts";
import { KEY_FAMILIES as collab } from "../services/collab/keys.ts";
import { KEY_FAMILIES as genai } from "../services/genai/keys.ts";
import { KEY_FAMILIES as ideas } from "../services/ideas/keys.ts";
import { KEY_FAMILIES as posts } from "../services/posts/keys.ts";
import { KEY_FAMILIES as prompts } from "../services/prompts/keys.ts";
import { KEY_FAMILIES as workspaces } from "../services/workspaces/keys.ts";
import { startFakeChatCompletions } from "./fakes/chat_completions.ts";
import { openEditor } from "./helpers/live_editor.ts";
import { waitForOutbox } from "./helpers/outbox.ts";
import { api, e2e, startTestStack, type TestStack } from "./helpers/stack.ts";
import { createUser, loginAdmin, signupConfirmed, type TestUser } from "./helpers/users.ts";
import { createWorkspace } from "./helpers/workspaces.ts";

/** Each service's declaration of the key families it writes, by service name. */
const DECLARED: Record<string, KeyFamilies> = {
  actions,
  admin,
  auth,
  collab,
  genai,
  ideas,
  posts,
  prompts,
  workspaces,
};

async function ok(res: Promise<{ status: number; body: any }>, status = 200): Promise<any> {
  const r = await res;
  assert.equal(r.status, status, JSON.stringify(r.body));
  return r.body;
}

/** Drives a flow through every service that keeps a keyspace, so each writes its families. */
async function exercise(stack: TestStack) {
  const owner = await createUser(stack, { name: "Olga Owner" });
  const editor = await createUser(stack, { name: "Ed Editor" });
  await signupConfirmed(stack); // left pending
  const as = (u: TestUser) => (method: string, path: string, body?: unknown) =>
    api(stack, method, path, { token: u.access_token, body });
  const o = as(owner);

  // auth: a failed login, a wrong confirmation code, a password reset, a refresh, a ticket
  const wrong = await api(stack, "POST", "/api/auth/login", {
    body: { email: owner.email, password: "Not-The-Passw0rd!" },
  });
  assert.equal(wrong.status, 401);
  const pending = await api(stack, "POST", "/api/auth/signup", {
    body: {
      email: "unconfirmed@example.test",
      password: "Correct-H0rse!",
      name: "U",
      recaptcha_token: "t",
    },
  });
  assert.equal(pending.status, 200, JSON.stringify(pending.body));
  await api(stack, "POST", "/api/auth/confirm", {
    body: { email: "unconfirmed@example.test", code: "000000" },
  });
  await ok(api(stack, "POST", "/api/auth/forgot-password", { body: { email: editor.email } }));
  await waitForOutbox(
    stack.outboxFile,
    (l) => l.template === "password_reset" && l.to === editor.email,
  );
  await ok(api(stack, "POST", "/api/auth/refresh", {
    body: { refresh_token: owner.refresh_token },
  }));

  // workspaces: a workspace with a member, an invite and a list
  const ws = await createWorkspace(stack, owner, "Keys", [[editor, "editor"]]);
  await ok(o("POST", `/api/workspaces/${ws}/members`, { email: "invitee@example.test" }), 201);
  await ok(o("PUT", "/api/audiences", {
    workspace_id: ws,
    audiences: [{ id: "devs", name: "Developers" }],
  }));

  // ideas: an idea, and a capture made with a capture token
  await ok(o("POST", "/api/ideas", { workspace_id: ws, title: "An idea", tags: ["t"] }), 201);
  const token = await ok(o("POST", "/api/quick-capture/token", { workspace_id: ws }), 201);
  await ok(
    api(stack, "POST", "/api/quick-capture", {
      body: { title: "Captured" },
      headers: { "X-Capture-Token": token.token },
    }),
    201,
  );

  // prompts: a prompt made the creator's default
  const prompt = await ok(
    o("POST", "/api/prompts", {
      workspace_id: ws,
      name: "House style",
      system_instruction: "Write well.",
      user_template: "Write about {idea_title}",
    }),
    201,
  );
  await ok(o("PUT", `/api/prompts/${prompt.prompt_id}/default`, { workspace_id: ws }));

  // posts: a post with a review, a comment and its reply, an example; collab: its live text
  const post = await ok(
    o("POST", "/api/posts", { workspace_id: ws, title: "A post", content: "Hello." }),
    201,
  );
  await ok(o("POST", `/api/posts/${post.post_id}/review-requests`, {
    workspace_id: ws,
    reviewer_ids: [editor.user_id],
  }));
  await ok(
    as(editor)("POST", `/api/posts/${post.post_id}/reviews`, {
      workspace_id: ws,
      decision: "approve",
    }),
  );
  const comment = await ok(
    as(editor)("POST", `/api/posts/${post.post_id}/comments`, { workspace_id: ws, body: "Nice" }),
    201,
  );
  await ok(o("POST", `/api/posts/${post.post_id}/comments/${comment.comment_id}/replies`, {
    workspace_id: ws,
    body: "Thanks",
  }));
  await ok(
    o("POST", "/api/examples", { workspace_id: ws, title: "E", content: "An example" }),
    201,
  );
  const editorOpen = await openEditor(stack, owner, ws, post.post_id);
  try {
    editorOpen.text.insert(0, "Live ");
    await new Promise((r) => setTimeout(r, 300));
  } finally {
    editorOpen.provider.destroy();
  }

  // genai: an AI call counted in the caller's window
  await ok(o("POST", "/api/genai/iterate", {
    workspace_id: ws,
    post_id: post.post_id,
    instruction: "Shorter",
  }));

  // actions: an action (its DM goes through the queue) with an upload URL handed out
  const action = await ok(
    o("POST", "/api/actions", {
      workspace_id: ws,
      title: "Review the post",
      assignee_id: editor.user_id,
    }),
    201,
  );
  await ok(
    o("POST", `/api/actions/${action.action_id}/attachments`, {
      workspace_id: ws,
      filename: "brief.pdf",
      contentType: "application/pdf",
    }),
    201,
  );
  await waitForOutbox(stack.outboxFile, (l) => l.template === "action_created");
}

/** A backup of the stack, restored: the admin service keeps the job and its id map. */
async function backupAndRestore(stack: TestStack) {
  const adminUser = await loginAdmin(stack);
  const backup = await ok(
    api(stack, "POST", "/api/admin/backups", { token: adminUser.access_token }),
    201,
  );
  const started = await ok(api(stack, "POST", "/api/admin/backups/restore", {
    token: adminUser.access_token,
    body: { key: backup.key },
  }));
  for (let i = 0;; i++) {
    const job = await ok(api(stack, "GET", `/api/admin/restores/${started.job_id}`, {
      token: adminUser.access_token,
    }));
    if (job.status === "succeeded") break;
    assert.notEqual(job.status, "failed", job.error);
    assert.ok(i < 400, "the restore job did not finish");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Every key family in a service's KV database, with how many keys each has. */
async function familiesIn(stack: TestStack, service: string): Promise<Map<unknown, number>> {
  const kv = await Deno.openKv(`${stack.dataDir}/${service}.kv`);
  try {
    const out = new Map<unknown, number>();
    for await (const e of kv.list({ prefix: [] })) out.set(e.key[0], (out.get(e.key[0]) ?? 0) + 1);
    return out;
  } finally {
    kv.close();
  }
}

/** Asserts that every key in each service's KV is of a family that service declares. */
async function onlyDeclaredFamilies(stack: TestStack, services: string[]) {
  for (const service of services) {
    const declared = DECLARED[service];
    assert.ok(declared, `${service} keeps a KV database but declares no key families`);
    const found = await familiesIn(stack, service);
    const undeclared = [...found.keys()].filter((f) =>
      typeof f !== "string" || !Object.hasOwn(declared, f)
    );
    assert.deepEqual(undeclared, [], `${service} writes families it does not declare`);
  }
}

Deno.test(
  "every key a service writes belongs to a key family that service declares",
  e2e,
  async (t) => {
    const ai = startFakeChatCompletions({ defaultAnswer: { content: "An AI answer" } });
    const stack = await startTestStack({
      OPENAI_BASE_URL: ai.baseUrl,
      OPENAI_API_KEY: "k",
      AI_CALLS_PER_MINUTE: "50",
    });
    try {
      await exercise(stack);
      const files = await Array.fromAsync(Deno.readDir(stack.dataDir));
      const services = files.filter((f) => f.name.endsWith(".kv")).map((f) => f.name.slice(0, -3));
      assert.ok(services.length >= Object.keys(DECLARED).length, services.join(", "));

      await t.step("each keyspace holds only the families its service declares", async () => {
        await onlyDeclaredFamilies(stack, services);
      });

      await t.step("a capture token's rate windows stay out of the ideas backup", async () => {
        assert.ok(
          (await familiesIn(stack, "ideas")).has("qc_rate"),
          "the capture wrote its window",
        );
        const res = await stack.internal("ideas", "GET", "/internal/backup/export");
        assert.equal(res.status, 200);
        const exported = new Set<unknown>();
        for await (const line of readLines(res.body!)) exported.add(decodeLine(line).key[0]);
        assert.ok(exported.has("ideas") && exported.has("qc_tokens"), [...exported].join(", "));
        assert.ok(!exported.has("qc_rate"), "qc_rate is exported");
      });

      await t.step("a backup exports only the families its service declares as data", async () => {
        for (const service of services) {
          const res = await stack.internal(service, "GET", "/internal/backup/export");
          if (res.status === 404) {
            await res.body?.cancel();
            continue; // a service whose keyspace is all its deployment's own has no backup route
          }
          assert.equal(res.status, 200, service);
          const classes = new Map<unknown, string>();
          for await (const line of readLines(res.body!)) {
            const family = decodeLine(line).key[0];
            classes.set(family, DECLARED[service][family as string]);
          }
          for (const [family, backup] of classes) {
            assert.equal(backup, "data", `${service} exports ${String(family)}`);
          }
        }
      });

      await t.step(
        "the keyspaces hold only declared families after a backup is restored",
        async () => {
          await backupAndRestore(stack);
          await onlyDeclaredFamilies(stack, services);
        },
      );
    } finally {
      await stack.close();
      await ai.close();
    }
  },
);

Deno.test("docs/architecture.md lists each service's key families by backup class as declared", async () => {
  const doc = await Deno.readTextFile(new URL("../docs/architecture.md", import.meta.url));
  const cells = (line: string) => line.split("|").slice(1, -1).map((c) => c.trim());
  const rows = doc.split("\n").filter((l) => l.startsWith("|")).map(cells);
  const header = rows.findIndex((r) => r.join(",") === "service,data,session,derived,local");
  assert.ok(header >= 0, "the table of backup classes is in the document");
  const documented: Record<string, string[]> = {};
  for (const row of rows.slice(header + 2)) {
    if (!Object.hasOwn(DECLARED, row[0]) || row.length !== 5) break;
    documented[row[0]] = row.slice(1);
  }
  const expected: Record<string, string[]> = {};
  for (const [service, families] of Object.entries(DECLARED)) {
    expected[service] = (["data", "session", "derived", "local"] as const).map((backup) =>
      Object.keys(families).filter((f) => families[f] === backup).map((f) => `\`${f}\``)
        .join(", ") || "none"
    );
  }
  assert.deepEqual(documented, expected);
});
