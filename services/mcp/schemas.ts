import { z } from "zod";
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { ideaSchema } from "../ideas/schemas.ts";
import { postSchema } from "../posts/schemas.ts";
import { workspaceRoleSchema } from "../workspaces/schemas.ts";

/** Ids become KV key parts in the peers: an over-long one is refused here, never a 500 there. */
export const ID_MAX = 200;
export const IDEA_TITLE_MAX = 500;
export const DESCRIPTION_MAX = 20_000;
export const TAG_MAX = 200;
export const TAGS_MAX = 100;

/** A string argument: missing is "<field> is required", another type "<field> must be a string". */
const text = (field: string) =>
  z.string({
    error: (issue) =>
      issue.input === undefined ? `${field} is required` : `${field} must be a string`,
  });

const id = (field: string, what: string) =>
  text(field)
    .trim()
    .min(1, `${field} is required`)
    .max(ID_MAX, `${field} is at most ${ID_MAX} characters`)
    .describe(what);

const workspaceId = () =>
  id("workspace_id", "The workspace's id (list_workspaces gives the ones you belong to)");

const tags = z.array(z.string().max(TAG_MAX, `each tag is at most ${TAG_MAX} characters`))
  .max(TAGS_MAX, `at most ${TAGS_MAX} tags`);

/** `schema`, optional, with null counting as not given (as in the REST bodies). */
const orNone = <T extends z.ZodType>(schema: T) =>
  schema.nullish().transform((v) => v ?? undefined);

/**
 * An optional id: blank or null counts as not given, as in the REST body (`prompt_id` of
 * `POST /api/genai/generate`).
 */
const optionalId = (field: string, what: string) =>
  text(field).trim().max(ID_MAX, `${field} is at most ${ID_MAX} characters`).nullish()
    .transform((v) => v || undefined).describe(what);

/**
 * Free text the genai service truncates to its own limits; never a reason to refuse a call.
 * Null counts as not given, as in the REST body.
 */
const optionalText = (what: string) => orNone(z.string()).describe(what);

/**
 * The input schema of every tool, as raw zod shapes (what `McpServer.registerTool` takes).
 * Each field is described: the descriptions are what an AI client reads to call the tool.
 */
export const toolInputs = {
  list_workspaces: {},
  list_ideas: {
    workspace_id: workspaceId(),
    status: z.string().max(ID_MAX, `status is at most ${ID_MAX} characters`).default("")
      .describe(
        "Only ideas with exactly this status (`new` or `converted`); empty for every idea",
      ),
  },
  create_idea: {
    workspace_id: workspaceId(),
    title: text("title").refine((v) => v.trim() !== "", "title is required")
      .pipe(z.string().max(IDEA_TITLE_MAX, `title is at most ${IDEA_TITLE_MAX} characters`))
      .describe("The idea's title, stored exactly as given (no AI title)"),
    description: z.string().max(DESCRIPTION_MAX, `description is at most ${DESCRIPTION_MAX}`)
      .default("")
      .describe("Longer free-form text about the idea"),
    tags: tags.nullish().describe("Tags for the idea; omitted or null for none"),
  },
  update_idea: {
    idea_id: id("idea_id", "The idea's id"),
    workspace_id: workspaceId(),
    status: z.enum(["", "new", "converted"], {
      error: "status must be one of: new, converted (or empty to keep it)",
    }).default("")
      .describe("The new status, `new` or `converted`; empty leaves the status unchanged"),
    tags: tags.nullish().describe(
      "The idea's new tags, replacing the old ones; an empty list clears them, omitted or null " +
        "leaves them unchanged",
    ),
  },
  generate_post: {
    workspace_id: workspaceId(),
    idea_id: id("idea_id", "The idea to draft a post from"),
    prompt_id: optionalId("prompt_id", "A saved prompt of the workspace; omitted for the default"),
    audience: optionalText("Who the post is for; overrides the prompt's default audience"),
    tone: optionalText(
      "The tone: professional, casual, provocative, educational or storytelling",
    ),
    language: optionalText("The language to write in; overrides the prompt's default language"),
    length: optionalText(
      "very_short, short, medium, long, very_long or extra_long; an unknown value is ignored",
    ),
  },
  iterate_post: {
    workspace_id: workspaceId(),
    post_id: id("post_id", "The post whose text is rewritten"),
    instruction: text("instruction").trim().min(1, "instruction is required")
      .describe("What to change, e.g. `make it shorter` or `add a call to action`"),
    // Unchecked here: genai edits as the default editor persona when it names no prompt (an id
    // longer than any id included), without error.
    prompt_id: orNone(text("prompt_id").trim()).describe(
      "A saved prompt whose persona edits the text; optional",
    ),
  },
  proofread_post: {
    workspace_id: workspaceId(),
    post_id: id("post_id", "The post to proofread"),
  },
  list_posts: {
    workspace_id: workspaceId(),
    // Empty is no filter, as `GET /api/posts?status=` is.
    status: z.enum(["", "draft", "in_review", "approved", "scheduled", "published"], {
      error: "status must be one of: draft, in_review, approved, scheduled, published",
    }).optional().describe("Only posts with this status; omitted or empty for every post"),
  },
  request_review: {
    workspace_id: workspaceId(),
    post_id: id("post_id", "The post to send for review"),
    reviewer_ids: z.array(
      z.string().trim().min(1).max(ID_MAX, `each reviewer id is at most ${ID_MAX} characters`),
    ).min(1, "reviewer_ids must name at least 1 reviewer").max(
      10,
      "reviewer_ids must name at most 10 reviewers",
    ).describe(
      "1 to 10 user ids of the workspace's owner or editors (not the post's author) who review it",
    ),
  },
  schedule_post: {
    workspace_id: workspaceId(),
    post_id: id("post_id", "The post to schedule for LinkedIn"),
    // Passed on as given (an empty one is refused as over REST); null is none, as over REST.
    at: orNone(z.string()).describe(
      "When to publish, an ISO 8601 timestamp with an offset in the future; omitted for the " +
        "workspace's next free publishing slot",
    ),
  },
  set_first_comment: {
    workspace_id: workspaceId(),
    post_id: id("post_id", "The post whose first comment to set"),
    first_comment: text("first_comment").max(1_250, "first_comment is at most 1,250 characters")
      .nullable()
      .describe(
        "Posted once as the post's first comment right after it is published; null for none. " +
          "Like any change, it withdraws an approval that covered another first comment.",
      ),
  },
} as const;

export type ToolName = keyof typeof toolInputs;

/** What each tool is for, as the AI client sees it. */
export const toolDescriptions: Record<ToolName, string> = {
  list_workspaces: "List the workspaces you belong to, with your role in each. Returns " +
    "`{workspaces: [{workspace_id, name, member_role}]}`.",
  list_ideas: "List a workspace's post ideas, newest first. Returns `{ideas: [{idea_id, " +
    "workspace_id, title, description, status, tags, created_at, updated_at}]}`.",
  create_idea: "Capture a new post idea in a workspace; the title is stored as given. Returns " +
    "`{idea_id, workspace_id, title, status, created_at}`.",
  update_idea: "Change an existing idea's status (`new` or `converted`) and/or tags. Returns " +
    "`{idea_id, workspace_id, status, updated_at}`.",
  generate_post: "Draft a post from an idea with the AI model (the workspace's prompt, " +
    "example posts and the given audience, tone, language and length) and save it as a new " +
    "draft post. Returns `{post_id, workspace_id, idea_id, content}`.",
  iterate_post: "Rewrite a post's text with the AI model following an instruction, and replace " +
    "the post's content with the result (editors connected to the post see it at once). " +
    "Returns `{post_id, content}`.",
  proofread_post: "Proofread a post's current text. Returns `{post_id, annotations: [{range: " +
    "[start, end], type: grammar|tone|suggestion, message, suggestion}]}`; nothing is changed.",
  list_posts: "List a workspace's posts, newest first, optionally of one status. Returns " +
    "`{posts: [{post_id, title, status, updated_at, media_count, publish_as}]}` (`publish_as`: " +
    "`member` or the organization page's URN).",
  request_review: "Send a post for review to 1 to 10 owners or editors of the workspace (never " +
    "its author); it becomes `in_review` and each reviewer gets a direct message. Returns the post.",
  schedule_post: "Schedule an (approved, when the workspace requires approval) post for " +
    "publishing on the workspace's connected LinkedIn account, at `at` or in the next free " +
    "publishing slot. Returns the post with `status: scheduled`, `scheduled_at`, " +
    "`media_count` and `publish_as`.",
  set_first_comment: "Set (or clear with null) the comment posted once under a post right " +
    "after it is published on LinkedIn. Returns `{post_id, first_comment, status}`.",
};

export const annotationSchema = z.object({
  range: z.tuple([z.number().int(), z.number().int()]),
  type: z.enum(["grammar", "tone", "suggestion"]),
  message: z.string(),
  suggestion: z.string(),
});
export type Annotation = z.infer<typeof annotationSchema>;

const idea = ideaSchema.pick({
  idea_id: true,
  workspace_id: true,
  title: true,
  description: true,
  status: true,
  tags: true,
  created_at: true,
  updated_at: true,
});

/**
 * What each tool answers, as `structuredContent` (and, JSON-encoded, its one text item): the
 * callees' own schemas where the answer is theirs, so the two cannot drift.
 */
export const toolOutputs = {
  list_workspaces: z.object({
    workspaces: z.array(z.object({
      workspace_id: z.string(),
      name: z.string(),
      member_role: workspaceRoleSchema,
    })),
  }),
  list_ideas: z.object({ ideas: z.array(idea) }),
  create_idea: idea.pick({
    idea_id: true,
    workspace_id: true,
    title: true,
    status: true,
    created_at: true,
  }),
  update_idea: idea.pick({ idea_id: true, workspace_id: true, status: true, updated_at: true }),
  generate_post: z.object({
    post_id: z.string(),
    workspace_id: z.string(),
    idea_id: z.string(),
    content: z.string(),
  }),
  iterate_post: z.object({ post_id: z.string(), content: z.string() }),
  proofread_post: z.object({ post_id: z.string(), annotations: z.array(annotationSchema) }),
  list_posts: z.object({
    posts: z.array(
      postSchema.pick({
        post_id: true,
        title: true,
        status: true,
        updated_at: true,
        publish_as: true,
      }).extend({ media_count: z.number().int() }),
    ),
  }),
  request_review: postSchema,
  schedule_post: postSchema.extend({ media_count: z.number().int() }),
  set_first_comment: postSchema.pick({ post_id: true, first_comment: true, status: true }),
} satisfies Record<ToolName, z.ZodObject>;

/**
 * What each tool does to the workspace, for a client deciding whether to ask before a call:
 * reads change nothing; `destructiveHint` marks a tool that overwrites (tags, a post's text);
 * `openWorldHint` one that reaches beyond the workspace (the AI model, LinkedIn).
 */
export const toolAnnotations: Record<ToolName, ToolAnnotations> = {
  list_workspaces: { title: "List workspaces", readOnlyHint: true, openWorldHint: false },
  list_ideas: { title: "List ideas", readOnlyHint: true, openWorldHint: false },
  create_idea: {
    title: "Create an idea",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  update_idea: {
    title: "Update an idea",
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  generate_post: {
    title: "Draft a post from an idea",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
  iterate_post: {
    title: "Rewrite a post",
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
  proofread_post: { title: "Proofread a post", readOnlyHint: true, openWorldHint: true },
  list_posts: { title: "List posts", readOnlyHint: true, openWorldHint: false },
  request_review: {
    title: "Request a review",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  set_first_comment: {
    title: "Set a post's first comment",
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  schedule_post: {
    title: "Schedule a post on LinkedIn",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
};
