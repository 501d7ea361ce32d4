// deno-lint-ignore-file no-explicit-any -- API answers are checked field by field
/**
 * The paged lists through the gateway: ideas, posts, actions, a post's comments and the admin's
 * users. Each is paged whole with every filter it serves and compared with the unpaged list;
 * limits and cursors out of bounds are 400; a write between two pages neither repeats nor skips
 * an item that was there; and a restored backup pages as it listed.
 */
import assert from "node:assert/strict";
import { api, e2e, startTestStack, type TestStack } from "./helpers/stack.ts";
import { createUser, login, loginAdmin, signupConfirmed, type TestUser } from "./helpers/users.ts";
import { createWorkspace } from "./helpers/workspaces.ts";
import { waitFor } from "./helpers/wait.ts";

/** Where a list's items are, and the id of one. */
interface ListShape {
  field: "items" | "users";
  id: (item: any) => string;
}
const ITEMS = (idField: string): ListShape => ({ field: "items", id: (i) => i[idField] });

/** `path` with `query` added (`path` may already have a query). */
function withQuery(path: string, query: Record<string, string>): string {
  const q = new URLSearchParams(query).toString();
  return q ? `${path}${path.includes("?") ? "&" : "?"}${q}` : path;
}

/**
 * Every page of `path` at `limit`, checking each: at most `limit` items, `count` the page's
 * size, `next_cursor` a string on every page but the last, where it is null. Answers the ids in
 * the order served. `between` runs after the first page.
 */
async function pageAll(
  stack: TestStack,
  token: string,
  path: string,
  shape: ListShape,
  limit: number,
  between?: () => Promise<void>,
): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let n = 0;; n++) {
    assert.ok(n < 500, "paging ends");
    const query: Record<string, string> = { limit: String(limit) };
    if (cursor) query.cursor = cursor;
    const res = await api(stack, "GET", withQuery(path, query), { token });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const items = res.body[shape.field];
    assert.ok(Array.isArray(items));
    assert.ok(items.length <= limit, `a page holds at most ${limit}`);
    assert.equal(res.body.count, items.length, "count is the page's size");
    assert.ok("next_cursor" in res.body, "a paged answer has next_cursor");
    ids.push(...items.map(shape.id));
    if (n === 0) await between?.();
    if (res.body.next_cursor === null) return ids;
    assert.equal(typeof res.body.next_cursor, "string");
    cursor = res.body.next_cursor;
  }
}

/** The whole list, as it was answered before paging existed. */
async function whole(stack: TestStack, token: string, path: string, shape: ListShape) {
  const res = await api(stack, "GET", path, { token });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal("next_cursor" in res.body, false, "the whole list has no next_cursor");
  return res.body[shape.field].map(shape.id) as string[];
}

/** Pages of 1, 4 and 200 give the whole list, once each, in its order. */
async function pagesMatchWhole(
  stack: TestStack,
  token: string,
  path: string,
  shape: ListShape,
  expectSome = true,
) {
  const all = await whole(stack, token, path, shape);
  if (expectSome) assert.ok(all.length > 0, `${path} lists something`);
  for (const limit of [1, 4, 200]) {
    const paged = await pageAll(stack, token, path, shape, limit);
    assert.deepEqual(paged, all, `${path} in pages of ${limit}`);
  }
}

/** limit 0, 201, abc and a malformed or foreign cursor are 400 naming what is wrong. */
async function refusesBadPaging(stack: TestStack, token: string, path: string, foreign: string) {
  for (const limit of ["0", "201", "abc", "-1", "2.5"]) {
    const res = await api(stack, "GET", withQuery(path, { limit }), { token });
    assert.equal(res.status, 400, `${path} limit=${limit}`);
    assert.match(res.body.error, /limit/);
  }
  for (const cursor of ["not-a-cursor", "AAAAAAAAAA", foreign, "%%%"]) {
    const res = await api(stack, "GET", withQuery(path, { limit: "5", cursor }), { token });
    assert.equal(res.status, 400, `${path} cursor=${cursor}`);
    assert.match(res.body.error, /cursor/);
  }
  const noLimit = await api(stack, "GET", withQuery(path, { cursor: foreign }), { token });
  assert.equal(noLimit.status, 400);
}

/** A cursor of another list, to be refused. */
async function cursorOf(stack: TestStack, token: string, path: string): Promise<string> {
  const res = await api(stack, "GET", withQuery(path, { limit: "1" }), { token });
  assert.equal(typeof res.body.next_cursor, "string", `${path} has a second page`);
  return res.body.next_cursor;
}

async function ok(res: Promise<{ status: number; body: any }>, status = 200): Promise<any> {
  const r = await res;
  assert.equal(r.status, status, JSON.stringify(r.body));
  return r.body;
}

Deno.test("paged lists: every route pages its whole list with each filter", e2e, async (t) => {
  const stack = await startTestStack();
  try {
    const owner = await createUser(stack, { name: "Olga Owner" });
    const editor = await createUser(stack, { name: "Ed Editor" });
    const outsider = await createUser(stack, { name: "Out Sider" });
    const ws = await createWorkspace(stack, owner, "Lists", [[editor, "editor"]]);
    const as = (u: TestUser) => (method: string, path: string, body?: unknown) =>
      api(stack, method, path, { token: u.access_token, body });

    // 23 ideas by two authors with overlapping tags; some converted
    const ideaIds: string[] = [];
    for (let n = 0; n < 23; n++) {
      const author = n % 3 ? owner : editor;
      const tags = [n % 2 ? "odd" : "even", ...(n % 4 === 0 ? ["four"] : [])];
      const idea = await ok(
        as(author)("POST", "/api/ideas", {
          workspace_id: ws,
          title: `Idea number ${n} about paging`,
          tags,
        }),
        201,
      );
      ideaIds.push(idea.idea_id);
      if (n % 5 === 0) {
        await ok(
          as(owner)("PUT", `/api/ideas/${idea.idea_id}/status`, {
            workspace_id: ws,
            status: "converted",
          }),
        );
      }
    }
    const ideas = `/api/ideas?workspaceId=${ws}`;
    const posts = `/api/posts?workspaceId=${ws}`;
    const actions = `/api/actions?workspaceId=${ws}`;

    await t.step("ideas: every filter and their combinations page as they list", async () => {
      for (
        const q of [
          "",
          "&status=new",
          "&status=converted",
          "&tags=odd",
          "&tags=even,four",
          `&authorId=${editor.user_id}`,
          `&status=new&tags=even&authorId=${owner.user_id}`,
        ]
      ) {
        await pagesMatchWhole(stack, owner.access_token, ideas + q, ITEMS("idea_id"));
      }
      const none = await pageAll(
        stack,
        owner.access_token,
        `${ideas}&tags=nothing`,
        ITEMS("idea_id"),
        5,
      );
      assert.deepEqual(none, []);
    });

    await t.step("ideas: the whole list keeps its shape and newest-first order", async () => {
      const res = await ok(as(owner)("GET", ideas));
      assert.deepEqual(Object.keys(res).sort(), ["count", "items"]);
      assert.equal(res.count, 23);
      assert.deepEqual(res.items.map((i: any) => i.idea_id), [...ideaIds].reverse());
    });

    await t.step("ideas: a write between pages neither repeats nor skips an idea", async () => {
      const before = await whole(stack, owner.access_token, ideas, ITEMS("idea_id"));
      const gone = before[12];
      const seen = await pageAll(
        stack,
        owner.access_token,
        ideas,
        ITEMS("idea_id"),
        5,
        async () => {
          await ok(
            as(owner)("POST", "/api/ideas", { workspace_id: ws, title: "Written meanwhile" }),
            201,
          );
          await ok(
            as(owner)("PUT", `/api/ideas/${before[1]}`, { workspace_id: ws, title: "Renamed" }),
          );
          await ok(as(owner)("DELETE", `/api/ideas/${gone}?workspaceId=${ws}`));
        },
      );
      assert.deepEqual(seen, before.filter((id) => id !== gone));
    });

    await t.step("posts: status and author filters page as they list", async () => {
      const statuses = ["draft", "in_review", "approved", "published"];
      for (let n = 0; n < 13; n++) {
        const author = n % 3 ? owner : editor;
        const post = await ok(
          as(author)("POST", "/api/posts", {
            workspace_id: ws,
            title: `Post ${n}`,
            content: `Text of post ${n}`,
          }),
          201,
        );
        const status = statuses[n % 4];
        if (status !== "draft") {
          await ok(
            as(owner)("PUT", `/api/posts/${post.post_id}/status`, { workspace_id: ws, status }),
          );
        }
      }
      for (
        const q of [
          "",
          "&status=draft",
          "&status=published",
          `&authorId=${editor.user_id}`,
          `&status=in_review&authorId=${owner.user_id}`,
        ]
      ) {
        await pagesMatchWhole(stack, owner.access_token, posts + q, ITEMS("post_id"));
      }
      const page = await ok(as(owner)("GET", `${posts}&limit=3`));
      assert.equal(typeof page.items[0].content, "string", "a page's posts carry their text");
      await refusesBadPaging(
        stack,
        owner.access_token,
        posts,
        await cursorOf(stack, owner.access_token, ideas),
      );
    });

    await t.step("ideas: limit and cursor out of bounds are 400; a non-member is 403", async () => {
      await refusesBadPaging(
        stack,
        owner.access_token,
        ideas,
        await cursorOf(stack, owner.access_token, posts),
      );
      const res = await as(outsider)("GET", `${ideas}&limit=5`);
      assert.equal(res.status, 403);
    });

    await t.step("posts: a write between pages neither repeats nor skips a post", async () => {
      const before = await whole(
        stack,
        owner.access_token,
        `${posts}&status=draft`,
        ITEMS("post_id"),
      );
      assert.ok(before.length >= 4);
      const seen = await pageAll(
        stack,
        owner.access_token,
        `${posts}&status=draft`,
        ITEMS("post_id"),
        2,
        async () => {
          await ok(
            as(owner)("POST", "/api/posts", { workspace_id: ws, title: "Newer draft" }),
            201,
          );
          // leaves the filter: it is gone from the list, the others stay
          await ok(
            as(owner)("PUT", `/api/posts/${before[3]}/status`, {
              workspace_id: ws,
              status: "approved",
            }),
          );
        },
      );
      assert.deepEqual(seen, before.filter((id) => id !== before[3]));
    });

    await t.step(
      "actions: status, assignee, linked post and creator filters page as they list",
      async () => {
        const post = (await ok(as(owner)("GET", `${posts}&limit=1`))).items[0].post_id;
        const statuses = ["open", "in_progress", "completed"];
        for (let n = 0; n < 12; n++) {
          const creator = n % 3 ? owner : editor;
          const action = await ok(
            as(creator)("POST", "/api/actions", {
              workspace_id: ws,
              title: `Action ${n}`,
              assignee_id: n % 2 ? owner.user_id : editor.user_id,
              ...(n % 4 === 0 ? { linked_post_id: post } : {}),
            }),
            201,
          );
          if (statuses[n % 3] !== "open") {
            await ok(
              as(creator)("PUT", `/api/actions/${action.action_id}/status`, {
                workspace_id: ws,
                status: statuses[n % 3],
              }),
            );
          }
        }
        for (
          const q of [
            "",
            "&status=open",
            "&status=completed",
            `&assigneeId=${editor.user_id}`,
            `&linkedPostId=${post}`,
            `&createdBy=${editor.user_id}`,
            `&assigneeId=${owner.user_id}&status=in_progress`,
          ]
        ) {
          await pagesMatchWhole(stack, owner.access_token, actions + q, ITEMS("action_id"));
        }
        await pagesMatchWhole(
          stack,
          owner.access_token,
          `${actions}&status=cancelled`,
          ITEMS("action_id"),
          false,
        );
        await refusesBadPaging(
          stack,
          owner.access_token,
          actions,
          await cursorOf(stack, owner.access_token, ideas),
        );
      },
    );

    await t.step("actions: a write between pages neither repeats nor skips an action", async () => {
      const before = await whole(stack, owner.access_token, actions, ITEMS("action_id"));
      const seen = await pageAll(
        stack,
        owner.access_token,
        actions,
        ITEMS("action_id"),
        4,
        async () => {
          await ok(
            as(owner)("POST", "/api/actions", {
              workspace_id: ws,
              title: "Written meanwhile",
              assignee_id: editor.user_id,
            }),
            201,
          );
        },
      );
      assert.deepEqual(seen, before);
    });

    await t.step(
      "comments: a post's comments page in insertion order with their replies",
      async () => {
        const post = await ok(
          as(owner)("POST", "/api/posts", { workspace_id: ws, title: "Discussed" }),
          201,
        );
        const base = `/api/posts/${post.post_id}/comments`;
        const ids: string[] = [];
        for (let n = 0; n < 9; n++) {
          const c = await ok(
            as(n % 2 ? owner : editor)("POST", base, { workspace_id: ws, body: `Comment ${n}` }),
            201,
          );
          ids.push(c.comment_id);
        }
        await ok(
          as(owner)("POST", `${base}/${ids[4]}/replies`, { workspace_id: ws, body: "A reply" }),
        );
        const list = `${base}?workspaceId=${ws}`;
        await pagesMatchWhole(stack, owner.access_token, list, ITEMS("comment_id"));
        assert.deepEqual(await whole(stack, owner.access_token, list, ITEMS("comment_id")), ids);
        const page = await ok(as(owner)("GET", withQuery(list, { limit: "5" })));
        assert.deepEqual(page.items.map((c: any) => c.replies.length), [0, 0, 0, 0, 1]);
        const seen = await pageAll(
          stack,
          owner.access_token,
          list,
          ITEMS("comment_id"),
          4,
          async () => {
            await ok(as(owner)("POST", base, { workspace_id: ws, body: "Later" }), 201);
          },
        );
        assert.equal(seen.length, 10, "the new comment comes last, after every earlier one");
        assert.deepEqual(seen.slice(0, 9), ids);
        await refusesBadPaging(
          stack,
          owner.access_token,
          list,
          await cursorOf(stack, owner.access_token, ideas),
        );
        assert.equal((await as(outsider)("GET", withQuery(list, { limit: "2" }))).status, 403);
      },
    );

    await t.step("admin users: pending and approved page as they list", async () => {
      await signupConfirmed(stack, { name: "Pending One" });
      await signupConfirmed(stack, { name: "Pending Two" });
      const admin = await loginAdmin(stack);
      const users = { field: "users", id: (u: any) => u.user_id } as const;
      for (const q of ["", "?status=pending", "?status=approved", "?status=rejected"]) {
        await pagesMatchWhole(stack, admin.access_token, `/api/admin/users${q}`, users);
      }
      const pending = await pageAll(
        stack,
        admin.access_token,
        "/api/admin/users?status=pending",
        users,
        1,
      );
      assert.equal(pending.length, 2);
      const res = await ok(api(stack, "GET", "/api/admin/users", { token: admin.access_token }));
      assert.deepEqual(Object.keys(res), ["users"], "the whole list keeps its shape");
      await refusesBadPaging(
        stack,
        admin.access_token,
        "/api/admin/users",
        await cursorOf(stack, owner.access_token, ideas),
      );
      const refused = await api(stack, "GET", "/api/admin/users?limit=5", {
        token: owner.access_token,
      });
      assert.equal(refused.status, 403);
    });

    await t.step("a restored backup pages as it listed when it was made", async () => {
      const admin = await loginAdmin(stack);
      const paths = [
        ideas,
        `${ideas}&status=converted`,
        `${ideas}&tags=odd`,
        `${posts}&status=published`,
        `${actions}&assigneeId=${editor.user_id}`,
      ];
      const shapes = [
        ITEMS("idea_id"),
        ITEMS("idea_id"),
        ITEMS("idea_id"),
        ITEMS("post_id"),
        ITEMS("action_id"),
      ];
      const snapshot = await Promise.all(
        paths.map((p, i) => whole(stack, owner.access_token, p, shapes[i])),
      );
      const backup = await ok(
        api(stack, "POST", "/api/admin/backups", { token: admin.access_token }),
        201,
      );

      // changes after the backup, which the restore takes back
      const newer = await ok(
        as(owner)("POST", "/api/ideas", {
          workspace_id: ws,
          title: "After the backup",
          tags: ["odd"],
        }),
        201,
      );
      const current = (await ok(as(owner)("GET", ideas))).items as any[];
      const fresh = current.filter((i) => i.status === "new" && i.idea_id !== newer.idea_id);
      await ok(
        as(owner)("PUT", `/api/ideas/${fresh[0].idea_id}/status`, {
          workspace_id: ws,
          status: "converted",
        }),
      );
      await ok(as(owner)("PUT", `/api/ideas/${fresh[1].idea_id}`, { workspace_id: ws, tags: [] }));
      await ok(as(owner)("DELETE", `/api/ideas/${fresh[2].idea_id}?workspaceId=${ws}`));

      const started = await ok(api(stack, "POST", "/api/admin/backups/restore", {
        token: admin.access_token,
        body: { key: backup.key },
      }));
      await waitFor(
        async () => {
          const job = await ok(api(stack, "GET", `/api/admin/restores/${started.job_id}`, {
            token: admin.access_token,
          }));
          assert.notEqual(job.status, "failed", job.error);
          return job.status === "succeeded";
        },
        "the restore to finish",
        30_000,
      );

      const again = await login(stack, owner.email, owner.password);
      for (let i = 0; i < paths.length; i++) {
        for (const limit of [3, 200]) {
          const paged = await pageAll(stack, again.access_token, paths[i], shapes[i], limit);
          assert.deepEqual(paged, snapshot[i], `${paths[i]} after the restore, pages of ${limit}`);
        }
      }
      assert.ok(
        !(await whole(stack, again.access_token, ideas, ITEMS("idea_id"))).includes(newer.idea_id),
      );
    });
  } finally {
    await stack.close();
  }
});
