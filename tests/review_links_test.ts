import assert from "node:assert/strict";
import { waitForOutbox } from "./helpers/outbox.ts";
import { api, e2e, startTestStack, TEST_ADMIN } from "./helpers/stack.ts";
import { createUser, loginAdmin, type TestUser } from "./helpers/users.ts";
import { createWorkspace } from "./helpers/workspaces.ts";
import { openEditor } from "./helpers/live_editor.ts";
import { waitFor } from "./helpers/wait.ts";
import { assertRetryAfter } from "./helpers/retry_after.ts";

Deno.test("required approvals, review links, mentions and notifications", e2e, async (t) => {
  // The live texts are compared often, so a live edit ends a review link within a short wait.
  const stack = await startTestStack({ POSTS_LIVE_TEXT_CHECK_MS: "100" });
  try {
    const owner = await createUser(stack, { name: "Olga Owner" });
    const author = await createUser(stack, { name: "Anna Author" });
    const editor = await createUser(stack, { name: "Eddie Editor" });
    const viewer = await createUser(stack, { name: "Vic Viewer" });
    const wsId = await createWorkspace(stack, owner, "Reviews", [
      [author, "editor"],
      [editor, "editor"],
      [viewer, "viewer"],
    ]);
    const as = (user: TestUser) => (method: string, path: string, body?: unknown) =>
      api(stack, method, path, { token: user.access_token, body });
    const inReview = async (content: string) => {
      const p = await as(author)("POST", "/api/posts", { workspace_id: wsId, content });
      await as(author)("POST", `/api/posts/${p.body.post_id}/review-requests`, {
        workspace_id: wsId,
        reviewer_ids: [owner.user_id, editor.user_id],
      });
      return p.body.post_id as string;
    };
    const getPost = async (id: string) =>
      (await as(author)("GET", `/api/posts/${id}?workspaceId=${wsId}`)).body;

    await t.step("approvals_required: 1 to 5, and that many distinct approvals", async () => {
      for (const bad of [0, 6, 1.5, "2"]) {
        const res = await as(owner)("PUT", `/api/workspaces/${wsId}`, { approvals_required: bad });
        assert.equal(res.status, 400, String(bad));
        assert.match(res.body.error, /approvals_required must be a whole number from 1 to 5/);
      }
      const set = await as(owner)("PUT", `/api/workspaces/${wsId}`, {
        approval_required: true,
        approvals_required: 2,
      });
      assert.equal(set.body.approvals_required, 2);
      const id = await inReview("Needs two");
      const first = await as(owner)("POST", `/api/posts/${id}/reviews`, {
        workspace_id: wsId,
        decision: "approve",
      });
      assert.equal(first.body.status, "in_review");
      assert.deepEqual(first.body.approvals.map((a: { reviewer_id: string }) => a.reviewer_id), [
        owner.user_id,
      ]);
      // The same reviewer again still counts once.
      await as(owner)("POST", `/api/posts/${id}/reviews`, {
        workspace_id: wsId,
        decision: "approve",
      });
      assert.equal((await getPost(id)).status, "in_review");
      // A change resets the approvals of the old content.
      await as(author)("PUT", `/api/posts/${id}`, { workspace_id: wsId, content: "Needs two!" });
      assert.deepEqual((await getPost(id)).approvals, []);
      await as(owner)("POST", `/api/posts/${id}/reviews`, {
        workspace_id: wsId,
        decision: "approve",
      });
      const second = await as(editor)("POST", `/api/posts/${id}/reviews`, {
        workspace_id: wsId,
        decision: "approve",
      });
      assert.equal(second.body.status, "approved");
      assert.equal(second.body.approvals.length, 2);
    });

    await t.step(
      "a review link: made by editors, opened and decided without an account",
      async () => {
        const id = await inReview("For the client");
        const byViewer = await as(viewer)("POST", `/api/posts/${id}/review-links`, {
          workspace_id: wsId,
          reviewer_name: "Clara Client",
        });
        assert.equal(byViewer.status, 403);
        const bad = await as(editor)("POST", `/api/posts/${id}/review-links`, {
          workspace_id: wsId,
          reviewer_name: "Clara Client",
          expires_in_hours: 337,
        });
        assert.equal(bad.status, 400);
        const made = await as(editor)("POST", `/api/posts/${id}/review-links`, {
          workspace_id: wsId,
          reviewer_name: "Clara Client",
        });
        assert.equal(made.status, 201);
        const url = new URL(made.body.url);
        assert.equal(url.origin, stack.url);
        const token = url.pathname.slice("/review/".length);
        const hours = (Date.parse(made.body.expires_at) - Date.now()) / 3_600_000;
        assert.ok(hours > 71.9 && hours <= 72, String(hours));
        // A fresh client: no cookie, no token.
        const view = await fetch(`${stack.url}/api/review-links/${token}`);
        assert.equal(view.status, 200);
        const body = await view.json();
        assert.equal(body.workspace_name, "Reviews");
        assert.equal(body.reviewer_name, "Clara Client");
        assert.equal(body.post.content, "For the client");
        assert.equal(body.decision, null);
        // The owner approves; the client's approval is the second.
        await as(owner)("POST", `/api/posts/${id}/reviews`, {
          workspace_id: wsId,
          decision: "approve",
        });
        const decided = await fetch(`${stack.url}/api/review-links/${token}/decision`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ decision: "approve", note: "Looks great" }),
        });
        assert.equal(decided.status, 200);
        assert.deepEqual(await decided.json(), { decision: "approve" });
        const post = await getPost(id);
        assert.equal(post.status, "approved");
        assert.deepEqual(
          post.approvals.map((a: { reviewer_name: string; external: boolean }) => [
            a.reviewer_name,
            a.external,
          ]),
          [["Olga Owner", false], ["Clara Client", true]],
        );
        const history = await as(author)("GET", `/api/posts/${id}/reviews?workspaceId=${wsId}`);
        const entry = history.body.items.at(-1);
        assert.deepEqual([entry.reviewer_name, entry.decision, entry.note], [
          "Clara Client",
          "approve",
          "Looks great",
        ]);
        await waitForOutbox(
          stack.outboxFile,
          (l) =>
            l.template === "review_decided" && l.to === author.email &&
            l.data.actor_name === "Clara Client",
        );
        const again = await fetch(`${stack.url}/api/review-links/${token}/decision`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ decision: "request_changes" }),
        });
        assert.equal(again.status, 409);
        await again.body?.cancel();
        const listed = await as(viewer)("GET", `/api/posts/${id}/review-links?workspaceId=${wsId}`);
        assert.equal(listed.body.items[0].decision, "approve");
      },
    );

    await t.step(
      "a link dies on a content change, on revoke; unknown tokens look the same",
      async () => {
        const id = await inReview("Draft one");
        const make = async () => {
          const made = await as(editor)("POST", `/api/posts/${id}/review-links`, {
            workspace_id: wsId,
            reviewer_name: "Rita",
            expires_in_hours: 1,
          });
          return {
            token: new URL(made.body.url).pathname.slice("/review/".length),
            id: made.body.link_id,
          };
        };
        const open = async (token: string) => {
          const res = await fetch(`${stack.url}/api/review-links/${token}`);
          return { status: res.status, body: await res.json() };
        };
        const changed = await make();
        assert.equal((await open(changed.token)).status, 200);
        await as(author)("PUT", `/api/posts/${id}`, { workspace_id: wsId, content: "Draft two" });
        const gone = await open(changed.token);
        assert.deepEqual(gone, {
          status: 404,
          body: { error: "Review link not found or expired" },
        });
        const revoked = await make();
        const del = await as(editor)(
          "DELETE",
          `/api/posts/${id}/review-links/${revoked.id}?workspaceId=${wsId}`,
        );
        assert.equal(del.status, 204);
        assert.deepEqual(await open(revoked.token), gone);
        assert.deepEqual(await open("A".repeat(43)), gone);
        assert.deepEqual(await open("nonsense"), gone);
      },
    );

    await t.step("a dead link stays dead when the content changes back", async () => {
      const id = await inReview("Back and forth");
      const make = async () => {
        const made = await as(editor)("POST", `/api/posts/${id}/review-links`, {
          workspace_id: wsId,
          reviewer_name: "Rita",
        });
        assert.equal(made.status, 201, JSON.stringify(made.body));
        return new URL(made.body.url).pathname.slice("/review/".length);
      };
      const open = async (token: string) => {
        const res = await fetch(`${stack.url}/api/review-links/${token}`);
        await res.body?.cancel();
        return res.status;
      };
      const decide = async (token: string) => {
        const res = await fetch(`${stack.url}/api/review-links/${token}/decision`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ decision: "approve" }),
        });
        return { status: res.status, body: await res.json() };
      };
      const put = async (content: string) => {
        const res = await as(author)("PUT", `/api/posts/${id}`, { workspace_id: wsId, content });
        assert.equal(res.status, 200, JSON.stringify(res.body));
      };
      const gone = { status: 404, body: { error: "Review link not found or expired" } };

      // Over REST, unseen by the reviewer: the text changes and changes back.
      const rest = await make();
      await put("Back and forth, changed");
      await put("Back and forth");
      assert.equal(await open(rest), 404);
      assert.deepEqual(await decide(rest), gone);
      // The first comment is part of what a link shows: the same holds for it.
      const extras = await make();
      for (const first_comment of ["A first comment", null]) {
        const res = await as(author)("PUT", `/api/posts/${id}`, {
          workspace_id: wsId,
          first_comment,
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
      }
      assert.equal(await open(extras), 404);

      const editorSession = await openEditor(stack, author, wsId, id);
      try {
        // Live, seen by the reviewer meanwhile.
        const seen = await make();
        editorSession.text.insert(editorSession.text.length, "!");
        await waitFor(
          async () => (await getPost(id)).content === "Back and forth!",
          "the live edit stored",
        );
        assert.equal(await open(seen), 404);
        editorSession.text.delete(editorSession.text.length - 1, 1);
        await waitFor(
          async () => (await getPost(id)).content === "Back and forth",
          "the text back",
        );
        assert.equal(await open(seen), 404);

        // Live, unseen: the live-text check ends the link while the text differs.
        const unseen = await make();
        assert.equal(await open(unseen), 200);
        editorSession.text.insert(editorSession.text.length, "?");
        await waitFor(
          async () => (await getPost(id)).content === "Back and forth?",
          "the live edit stored",
        );
        await new Promise((r) => setTimeout(r, 2_000)); // twenty live-text checks
        editorSession.text.delete(editorSession.text.length - 1, 1);
        await waitFor(
          async () => (await getPost(id)).content === "Back and forth",
          "the text back",
        );
        assert.equal(await open(unseen), 404);
        assert.deepEqual(await decide(unseen), gone);

        // A link made now, on the text as it is, still opens and decides.
        const fresh = await make();
        assert.equal(await open(fresh), 200);
        assert.deepEqual(await decide(fresh), { status: 200, body: { decision: "approve" } });
      } finally {
        editorSession.provider.destroy();
      }
    });

    await t.step("a link dies with its workspace", async () => {
      const doomed = await createWorkspace(stack, owner, "Doomed", [[author, "editor"]]);
      const post = await as(author)("POST", "/api/posts", { workspace_id: doomed, content: "Bye" });
      const made = await as(owner)("POST", `/api/posts/${post.body.post_id}/review-links`, {
        workspace_id: doomed,
        reviewer_name: "Rita",
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const token = new URL(made.body.url).pathname.slice("/review/".length);
      const view = () => fetch(`${stack.url}/api/review-links/${token}`);
      const before = await view();
      await before.body?.cancel();
      assert.equal(before.status, 200);
      assert.equal((await as(owner)("DELETE", `/api/workspaces/${doomed}`)).status, 204);
      const after = await view();
      assert.deepEqual({ status: after.status, body: await after.json() }, {
        status: 404,
        body: { error: "Review link not found or expired" },
      });
      const decided = await fetch(`${stack.url}/api/review-links/${token}/decision`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ decision: "approve" }),
      });
      assert.equal(decided.status, 404);
      await decided.body?.cancel();
    });

    await t.step("a link answers 30 requests a minute", async () => {
      const id = await inReview("Busy link");
      const made = await as(editor)("POST", `/api/posts/${id}/review-links`, {
        workspace_id: wsId,
        reviewer_name: "Rate",
      });
      const token = new URL(made.body.url).pathname.slice("/review/".length);
      const statuses: number[] = [];
      let last: Response | null = null;
      for (let i = 0; i < 31; i++) {
        last = await fetch(`${stack.url}/api/review-links/${token}`);
        if (i < 30) await last.body?.cancel();
        statuses.push(last.status);
      }
      assert.deepEqual(statuses.slice(0, 30), Array(30).fill(200));
      assert.equal(statuses[30], 429);
      assert.deepEqual(await last!.json(), {
        error: "Too many requests for this review link; try again in a minute",
      });
      // The count is kept per clock minute: the wait is what is left of it.
      const wait = assertRetryAfter(last!.headers, 60);
      const leftOfMinute = Math.ceil((60_000 - (Date.now() % 60_000)) / 1000);
      assert.ok(Math.abs(wait - leftOfMinute) <= 1, `Retry-After ${wait}, ${leftOfMinute} s left`);
    });

    await t.step("mentions: members only, a mentioned DM and notification each", async () => {
      const p = await as(author)("POST", "/api/posts", {
        workspace_id: wsId,
        content: "Mention me",
      });
      const id = p.body.post_id;
      const outsider = await createUser(stack);
      const refused = await as(author)("POST", `/api/posts/${id}/comments`, {
        workspace_id: wsId,
        body: "Hey",
        mentions: [viewer.user_id, outsider.user_id],
      });
      assert.equal(refused.status, 400);
      assert.match(
        refused.body.error,
        new RegExp(`mentions must name workspace members: ${outsider.user_id}`),
      );
      const before = (await as(viewer)("GET", "/api/notifications")).body.unread_count;
      const comment = await as(author)("POST", `/api/posts/${id}/comments`, {
        workspace_id: wsId,
        body: "@Vic have a look",
        mentions: [viewer.user_id, author.user_id],
      });
      assert.equal(comment.status, 201);
      const page = await waitFor(async () => {
        const res = await as(viewer)("GET", "/api/notifications");
        return res.body.unread_count === before + 1 ? res.body : false;
      }, "the mention's notification");
      const [note] = page.items;
      assert.equal(note.template, "mentioned");
      assert.equal(note.data.post_id, id);
      assert.equal(note.data.comment_id, comment.body.comment_id);
      assert.equal(note.data.excerpt, "@Vic have a look");
      assert.equal(note.read_at, null);
      // The author mentioned themselves and wrote on their own post: nothing for them.
      const mine = await as(author)("GET", "/api/notifications");
      assert.ok(
        !mine.body.items.some((n: { template: string; data: { comment_id?: string } }) =>
          n.data.comment_id === comment.body.comment_id
        ),
      );
      // Someone else's ids are ignored, never revealed.
      const foreign = await as(author)("POST", "/api/notifications/read", {
        notification_ids: [note.notification_id],
      });
      assert.equal(foreign.status, 200);
      assert.equal((await as(viewer)("GET", "/api/notifications")).body.unread_count, before + 1);
      const read = await as(viewer)("POST", "/api/notifications/read", {
        notification_ids: [note.notification_id],
      });
      assert.equal(read.body.unread_count, before);
      const all = await as(viewer)("POST", "/api/notifications/read", { all: true });
      assert.equal(all.body.unread_count, 0);
      assert.equal((await as(viewer)("GET", "/api/notifications?limit=0")).status, 400);
      assert.equal((await as(viewer)("GET", "/api/notifications?cursor=zzz")).status, 400);
    });

    await t.step("a wrong mark-read body answers 400 naming what is wrong with it", async () => {
      const cases: [unknown, string][] = [
        [{}, "Request body: Give notification_ids (an array) or all: true"],
        [{ notification_ids: "x" }, "notification_ids must be an array"],
        [
          { notification_ids: Array.from({ length: 501 }, (_, i) => `id-${i}`) },
          "notification_ids names at most 500 notifications",
        ],
        [{ notification_ids: [42] }, "notification_ids must be notification ids"],
        [{ all: false }, "all must be true"],
      ];
      for (const [body, message] of cases) {
        const res = await as(viewer)("POST", "/api/notifications/read", body);
        assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
        assert.match(res.body.error, new RegExp(message.replace(/[()]/g, "\\$&")));
      }
    });

    await t.step("notifications page newest first; member_added and account_pending", async () => {
      const newcomer = await createUser(stack, { name: "Nina New" });
      const added = await as(owner)("POST", `/api/workspaces/${wsId}/members`, {
        email: newcomer.email,
        role: "viewer",
      });
      assert.equal(added.status, 201);
      const dm = await waitForOutbox(
        stack.outboxFile,
        (l) => l.template === "member_added" && l.to === newcomer.email,
      );
      assert.equal(dm.data.workspace_name, "Reviews");
      // The outbox line can come before the DM is kept for the app; until it is, the newest
      // kept is their earlier user_approved. Once kept, member_added comes first.
      const first = await waitFor(async () => {
        const res = await as(newcomer)("GET", "/api/notifications?limit=1");
        return res.body.items[0]?.template === "member_added" ? res.body : false;
      }, "the member_added notification first");
      assert.equal(first.items.length, 1);
      const admin = await loginAdmin(stack);
      const email = `pending-${crypto.randomUUID()}@example.test`;
      const signup = await api(stack, "POST", "/api/auth/signup", {
        body: { email, password: "Pending-Passw0rd!", name: "Pat Pending", recaptcha_token: "x" },
      });
      assert.equal(signup.status, 200, JSON.stringify(signup.body));
      const code = (await waitForOutbox(
        stack.outboxFile,
        (l) => l.template === "confirm_email" && l.to === email,
      )).data.code;
      await api(stack, "POST", "/api/auth/confirm", { body: { email, code } });
      const pending = await waitForOutbox(
        stack.outboxFile,
        (l) => l.template === "account_pending" && l.data.email === email,
      );
      assert.equal(pending.to, TEST_ADMIN.email);
      assert.equal(pending.data.name, "Pat Pending");
      await waitFor(async () => {
        const res = await as(admin)("GET", "/api/notifications");
        return res.body.items.some((n: { template: string }) => n.template === "account_pending");
      }, "the admin's account_pending notification");
    });
  } finally {
    await stack.close();
  }
});
