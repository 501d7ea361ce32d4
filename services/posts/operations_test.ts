import assert from "node:assert/strict";
import { AppError } from "../../shared/http/app_error.ts";
import type { Logger } from "../../shared/log.ts";
import { nativeKvQueue, ServiceQueue } from "../../shared/queue/queue.ts";
import type { IdeaRecord, IdeasClient } from "../ideas/client.ts";
import { postsJobSchema } from "./jobs.ts";
import type { LiveDocs } from "./live_docs.ts";
import { PostOperations } from "./operations.ts";
import { PostsStore } from "./store.ts";

/** A stand-in for collab: a map of texts, or absent, or failing. */
function fakeLiveDocs(mode: "present" | "absent" | "failing") {
  const docs = new Map<string, string>();
  const fail = () => {
    throw new AppError(502, "collab is down");
  };
  const live: LiveDocs = {
    available: () => mode !== "absent",
    setContent: (postId, _ws, content) => {
      if (mode === "failing") fail();
      if (mode === "present") docs.set(postId, content);
      return Promise.resolve();
    },
    getContents: (ids) => {
      if (mode === "failing") fail();
      return Promise.resolve(
        new Map(ids.filter((id) => docs.has(id)).map((id) => [id, docs.get(id)!])),
      );
    },
    deleteDoc: (postId) => {
      docs.delete(postId);
      return Promise.resolve();
    },
    broadcast: () => Promise.resolve(),
    fingerprints: () => Promise.resolve(new Map()),
    setWorkspaces: () => Promise.resolve(),
  };
  return { live, docs };
}

function fakeIdeas(convert: () => Promise<unknown>): IdeasClient {
  const idea: IdeaRecord = {
    idea_id: "i1",
    workspace_id: "w1",
    title: "Idea",
    description: "",
    tags: [],
    source_url: "",
    status: "new",
    created_by: "u1",
    linked_post_id: null,
    created_at: "",
    updated_at: "",
  };
  return {
    getIdea: (id: string) => Promise.resolve(id === "i1" ? idea : null),
    convert,
  } as unknown as IdeasClient;
}

async function setup(
  mode: "present" | "absent" | "failing",
  ideas = fakeIdeas(() => Promise.resolve({})),
) {
  const kv = await Deno.openKv(":memory:");
  const store = new PostsStore(kv);
  const logger = quietLogger;
  const queue = new ServiceQueue(nativeKvQueue(kv), postsJobSchema, logger);
  const { live, docs } = fakeLiveDocs(mode);
  const ops = new PostOperations({ store, liveDocs: live, ideas, queue, logger });
  return { kv, store, ops, docs };
}

const quietLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => quietLogger,
};

const author = { author_id: "u1", author_name: "U" };

Deno.test("without collab the stored text is the post's text", async () => {
  const { kv, store, ops } = await setup("absent");
  try {
    const post = await ops.create({ workspace_id: "w1", content: "first", ...author });
    const updated = await ops.update("w1", post.post_id, { content: "second" });
    assert.equal(updated.content, "second");
    const record = await store.getPost("w1", post.post_id);
    assert.equal((await ops.read(record!)).content, "second");
  } finally {
    kv.close();
  }
});

Deno.test("with collab the live text wins over the stored copy", async () => {
  const { kv, store, ops, docs } = await setup("present");
  try {
    const post = await ops.create({ workspace_id: "w1", content: "seeded", ...author });
    assert.equal(docs.get(post.post_id), "seeded");
    docs.set(post.post_id, "typed live"); // an editor's change over the socket
    const record = await store.getPost("w1", post.post_id);
    assert.equal((await ops.read(record!)).content, "typed live");
    // a post without a document falls back to its stored text
    docs.delete(post.post_id);
    assert.equal((await ops.read(record!)).content, "seeded");
  } finally {
    kv.close();
  }
});

Deno.test("a collab failure on a content update changes nothing; reads fall back", async () => {
  const { kv, store, ops } = await setup("failing");
  try {
    const post = await ops.create({ workspace_id: "w1", content: "kept", ...author });
    await assert.rejects(() => ops.update("w1", post.post_id, { content: "lost?" }), AppError);
    assert.equal(await store.storedContent(post.post_id), "kept");
    const record = await store.getPost("w1", post.post_id);
    assert.equal((await ops.read(record!)).content, "kept");
  } finally {
    kv.close();
  }
});

Deno.test("a failed idea conversion removes the post it created", async () => {
  const ideas = fakeIdeas(() => Promise.reject(new AppError(409, "Transition refused")));
  const { kv, store, ops } = await setup("absent", ideas);
  try {
    await assert.rejects(
      () => ops.create({ workspace_id: "w1", source_idea_id: "i1", ...author }),
      (err: unknown) => err instanceof AppError && err.status === 409,
    );
    assert.deepEqual(await store.listPosts("w1"), []);
    assert.equal((await store.stats("2000")).total_posts, 0);
    await assert.rejects(
      () => ops.create({ workspace_id: "w1", source_idea_id: "unknown", ...author }),
      (err: unknown) => err instanceof AppError && err.status === 404,
    );
  } finally {
    kv.close();
  }
});
