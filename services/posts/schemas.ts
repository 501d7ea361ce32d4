import { z } from "@hono/zod-openapi";
import { toIso } from "../../shared/time.ts";
import { MESSAGES } from "../../shared/http/messages.ts";
import { nextCursorField, pageQueryFields } from "../../shared/http/page_query.ts";

/** Ids end up in KV keys (2 KiB at most), so they are length-checked before anything else. */
export const ID_MAX = 200;
export const TITLE_MAX = 500;
/** A post's text; the store keeps it in chunks, so it may exceed one KV value. */
export const CONTENT_MAX = 40_000;
/** An example post is kept in one KV value (64 KiB), so its text is smaller. */
export const EXAMPLE_CONTENT_MAX = 20_000;
export const TAG_MAX = 100;
export const TAGS_MAX = 50;
export const COMMENT_BODY_MAX = 10_000;
export const MARK_ID_MAX = 200;
export const TEXT_EXCERPT_MAX = 2_000;

export const POST_STATUSES = ["draft", "in_review", "approved", "scheduled", "published"] as const;
export type PostStatus = typeof POST_STATUSES[number];

export const POST_NOT_FOUND = MESSAGES.postNotFound;
export const COMMENT_NOT_FOUND = "Comment not found";
export const REPLY_NOT_FOUND = "Reply not found";
export const EXAMPLE_NOT_FOUND = "Example not found";
export const IDEA_NOT_FOUND = "Idea not found";

const requiredId = (field: string) =>
  z.string({ error: `${field} is required` }).trim().min(1, `${field} is required`).max(
    ID_MAX,
    `${field} is longer than ${ID_MAX} characters`,
  );

const title = z.string({ error: "title must be a string" }).max(
  TITLE_MAX,
  `title is longer than ${TITLE_MAX} characters`,
);
const content = (max: number) =>
  z.string({ error: "content must be a string" }).max(
    max,
    `content is longer than ${max} characters`,
  );
export const tagsSchema = z.array(
  z.string({ error: "tags must be strings" }).max(
    TAG_MAX,
    `each tag is at most ${TAG_MAX} characters`,
  ),
  { error: "tags must be an array of strings" },
).max(TAGS_MAX, `tags: at most ${TAGS_MAX} tags`);

/**
 * An RFC 3339 date-time with an offset (`Z` or `+02:00`; the document's `format: date-time`),
 * stored in the wire form (`+00:00`, milliseconds).
 */
const timestamp = (field: string) =>
  z.iso.datetime({
    offset: true,
    error: `${field} must be an ISO 8601 timestamp with an offset`,
  }).transform((v) => toIso(new Date(v)));

/** Text that is not only whitespace: a missing, empty or blank one is `<field> is required`. */
const nonBlank = (field: string, max: number) =>
  z.string({ error: `${field} is required` })
    .min(1, `${field} is required`)
    .max(max, `${field} is longer than ${max} characters`)
    .regex(/\S/, `${field} is required`);

// ---------------------------------------------------------------- media

export const IMAGE_TYPES = ["image/jpeg", "image/png", "image/gif"] as const;
export const DOCUMENT_TYPE = "application/pdf";
export const MEDIA_TYPES = [...IMAGE_TYPES, DOCUMENT_TYPE] as const;
export type MediaType = typeof MEDIA_TYPES[number];
export const MiB = 1024 * 1024;
export const IMAGE_MAX_BYTES = 10 * MiB;
export const DOCUMENT_MAX_BYTES = 100 * MiB;
export const IMAGES_MAX = 20;
export const ALT_TEXT_MAX = 1_000;
export const DOCUMENT_TITLE_MAX = 200;
export const FIRST_COMMENT_MAX = 1_250;
export const MEDIA_FILENAME_MAX = 200;
export const MEDIA_NOT_FOUND = "Media not found";
/** `publish_as` of an organization page: LinkedIn's organization URN. */
export const ORGANIZATION_URN = /^urn:li:organization:\d{1,20}$/;

export const mediaSchema = z.object({
  media_id: z.string(),
  kind: z.enum(["image", "document"]),
  filename: z.string(),
  content_type: z.enum(MEDIA_TYPES),
  size: z.number().int(),
  alt_text: z.string(),
  title: z.string().nullable(),
  uploaded_at: z.string(),
}).openapi("PostMedia");
export type Media = z.infer<typeof mediaSchema>;

export const approvalSchema = z.object({
  reviewer_id: z.string(),
  reviewer_name: z.string(),
  external: z.boolean(),
  at: z.string(),
}).openapi("PostApproval");
export type Approval = z.infer<typeof approvalSchema>;

export const mediaWithUrlSchema = mediaSchema.extend({
  downloadUrl: z.string().optional().openapi({
    description: "A signed URL to read the bytes (on Get; 1 hour)",
  }),
}).openapi("PostMediaWithUrl");

// ---------------------------------------------------------------- records

export const postSchema = z.object({
  post_id: z.string(),
  workspace_id: z.string(),
  title: z.string(),
  content: z.string().openapi({ description: "the current text, live edits included" }),
  status: z.enum(POST_STATUSES),
  author_id: z.string(),
  author_name: z.string(),
  source_idea_id: z.string().nullable(),
  tags: z.array(z.string()),
  scheduled_at: z.string().nullable(),
  published_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  reviewer_ids: z.array(z.string()),
  approved_by: z.string().nullable(),
  approved_at: z.string().nullable(),
  linkedin_post_urn: z.string().nullable(),
  linkedin_post_url: z.string().nullable(),
  publish_error: z.string().nullable(),
  media: z.array(mediaWithUrlSchema).openapi({
    description: "Images (1 to 20) or one PDF document, in the order they are published",
  }),
  first_comment: z.string().nullable().openapi({
    description: "Posted once as the first comment right after the post",
  }),
  publish_as: z.string().openapi({
    description: '`"member"` (the connected LinkedIn member) or an organization URN',
  }),
  linkedin_first_comment_urn: z.string().nullable(),
  first_comment_error: z.string().nullable(),
  approvals: z.array(approvalSchema).openapi({
    description: "The approvals of what the post holds now (reset by any change)",
  }),
}).openapi("Post");
export type Post = z.infer<typeof postSchema>;

/**
 * What the store keeps of a post: everything but the text, which lives in its own keys, and the
 * media's download URLs, signed when a post is read.
 */
export type PostRecord = Omit<Post, "content" | "media" | "approvals"> & {
  media: Media[];
  /** each bound to the content it approved (`approvalKey`); only current ones are answered */
  approvals?: (Approval & { content?: string })[];
};

export const exampleSchema = z.object({
  example_id: z.string(),
  workspace_id: z.string(),
  title: z.string(),
  content: z.string(),
  tags: z.array(z.string()),
  created_by: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
}).openapi("ExamplePost");
export type Example = z.infer<typeof exampleSchema>;

export const replySchema = z.object({
  reply_id: z.string(),
  body: z.string(),
  created_by: z.string(),
  created_by_name: z.string(),
  created_at: z.string(),
}).openapi("CommentReply");
export type Reply = z.infer<typeof replySchema>;

export const commentSchema = z.object({
  comment_id: z.string(),
  post_id: z.string(),
  workspace_id: z.string(),
  mark_id: z.string().optional(),
  text_excerpt: z.string().optional(),
  body: z.string(),
  created_by: z.string(),
  created_by_name: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  resolved_at: z.string().nullable(),
  resolved_by: z.string().nullable(),
  replies: z.array(replySchema),
}).openapi("Comment");
export type Comment = z.infer<typeof commentSchema>;
/** A comment as stored: its replies live under their own keys. */
export type CommentRecord = Omit<Comment, "replies">;

export const COMMENT_ACTIONS = [
  "created",
  "deleted",
  "resolved",
  "unresolved",
  "reply_added",
  "reply_deleted",
] as const;
export type CommentAction = typeof COMMENT_ACTIONS[number];

/** The real-time payload of the spec's Events section (camelCase by the spec's convention). */
export const commentBroadcastSchema = z.object({
  type: z.literal("comment"),
  action: z.enum(COMMENT_ACTIONS),
  postId: z.string(),
  commentId: z.string(),
});
export type CommentBroadcast = z.infer<typeof commentBroadcastSchema>;

export const REVIEW_DECISIONS = ["approve", "request_changes"] as const;
export type ReviewDecision = typeof REVIEW_DECISIONS[number];
/**
 * What the review history records: the decisions, and `voided` when a change of what an
 * approval covered withdrew it (the entry names the reviewer whose approval it was).
 */
export const REVIEW_ENTRY_KINDS = [...REVIEW_DECISIONS, "voided"] as const;

export const reviewSchema = z.object({
  review_id: z.string(),
  reviewer_id: z.string(),
  reviewer_name: z.string(),
  decision: z.enum(REVIEW_ENTRY_KINDS),
  note: z.string().nullable(),
  created_at: z.string(),
}).openapi("PostReview");
export type Review = z.infer<typeof reviewSchema>;

export const reviewListSchema = z.object({
  items: z.array(reviewSchema),
  count: z.number().int(),
}).openapi("PostReviewList");

export const VERSION_REASONS = ["approved", "published", "saved", "restored"] as const;
export type VersionReason = typeof VERSION_REASONS[number];
export const VERSION_LABEL_MAX = 200;
export const VERSION_NOT_FOUND = "Version not found";

export const versionSummarySchema = z.object({
  version_id: z.string(),
  reason: z.enum(VERSION_REASONS),
  created_at: z.string(),
  created_by: z.string(),
  created_by_name: z.string(),
  label: z.string().nullable(),
}).openapi("PostVersionSummary");

export const versionSchema = versionSummarySchema.extend({
  post_id: z.string(),
  text: z.string(),
  media: z.array(mediaSchema),
  first_comment: z.string().nullable(),
  publish_as: z.string(),
}).openapi("PostVersion");
export type PostVersion = z.infer<typeof versionSchema>;

export const versionListSchema = z.object({
  items: z.array(versionSummarySchema),
  count: z.number().int(),
}).openapi("PostVersionList");

// ---------------------------------------------------------------- requests

export const createPostBody = z.object({
  workspace_id: requiredId("workspace_id"),
  title: title.optional(),
  content: content(CONTENT_MAX).optional(),
  tags: tagsSchema.optional(),
  source_idea_id: z.string({ error: "source_idea_id must be a string or null" }).trim().max(
    ID_MAX,
    `source_idea_id is longer than ${ID_MAX} characters`,
  ).nullable().optional(),
}).openapi("CreatePostRequest");

export const updatePostBody = z.object({
  workspace_id: requiredId("workspace_id"),
  title: title.optional(),
  content: content(CONTENT_MAX).optional(),
  tags: tagsSchema.optional(),
  scheduled_at: timestamp("scheduled_at").nullable().optional(),
  first_comment: z.string({ error: "first_comment must be a string or null" }).max(
    FIRST_COMMENT_MAX,
    `first_comment is longer than ${FIRST_COMMENT_MAX} characters`,
  ).nullable().optional(),
  publish_as: z.string({ error: "publish_as must be a string" }).regex(
    new RegExp(`^(?:member|${ORGANIZATION_URN.source.slice(1, -1)})$`),
    'publish_as must be "member" or an organization URN (urn:li:organization:<id>)',
  ).openapi({
    description: "`member`, or a page of the workspace's LinkedIn connection",
    examples: ["member", "urn:li:organization:2414183"],
  }).optional(),
}).openapi("UpdatePostRequest");
export type PostChanges = Omit<z.infer<typeof updatePostBody>, "workspace_id">;

export const postStatusBody = z.object({
  workspace_id: requiredId("workspace_id"),
  status: z.enum(POST_STATUSES, {
    error: (iss) =>
      iss.input === undefined
        ? "status is required"
        : `status must be one of: ${POST_STATUSES.join(", ")}`,
  }),
}).openapi("PostStatusRequest");

export const workspaceQuery = z.object({ workspaceId: requiredId("workspaceId") });

/** The names the paged lists' cursors carry (a cursor of another list is refused). */
export const POSTS_LIST = "posts";
export const COMMENTS_LIST = "comments";
export const listCommentsQuery = workspaceQuery.extend(pageQueryFields(COMMENTS_LIST));

export const NOTE_MAX = 2_000;
const note = z.string({ error: "note must be a string" }).max(
  NOTE_MAX,
  `note is longer than ${NOTE_MAX} characters`,
).nullable().optional();

export const reviewRequestBody = z.object({
  workspace_id: requiredId("workspace_id"),
  reviewer_ids: z.array(
    z.string({ error: "reviewer_ids must be user ids" }).trim().min(
      1,
      "reviewer_ids must not hold an empty id",
    ).max(ID_MAX, `reviewer_ids: each id is at most ${ID_MAX} characters`),
    { error: "reviewer_ids is required (an array of 1 to 10 user ids)" },
  ).min(1, "reviewer_ids must name at least 1 reviewer").max(
    10,
    "reviewer_ids must name at most 10 reviewers",
  ),
  note,
}).openapi("ReviewRequest");

export const reviewDecisionBody = z.object({
  workspace_id: requiredId("workspace_id"),
  decision: z.enum(REVIEW_DECISIONS, {
    error: "decision must be approve or request_changes",
  }),
  note,
}).openapi("ReviewDecisionRequest");

/** A timestamp in the future (checked by the route): when to publish. */
export const scheduleBody = z.object({
  workspace_id: requiredId("workspace_id"),
  at: timestamp("at").nullable().optional(),
}).openapi("ScheduleRequest");

/** An empty query value (`?status=`) is no filter at all. */
const emptyIsAbsent = (v: unknown) => (v === "" ? undefined : v);

export const listPostsQuery = z.object({
  workspaceId: requiredId("workspaceId"),
  status: z.preprocess(
    emptyIsAbsent,
    z.enum(POST_STATUSES, { error: `status must be one of: ${POST_STATUSES.join(", ")}` })
      .optional(),
  ),
  authorId: z.preprocess(
    emptyIsAbsent,
    z.string().max(ID_MAX, `authorId is longer than ${ID_MAX} characters`).optional(),
  ),
  ...pageQueryFields(POSTS_LIST),
});

export const addMediaBody = z.object({
  workspace_id: requiredId("workspace_id"),
  filename: z.string({ error: "filename is required" }).trim().min(1, "filename is required")
    .max(MEDIA_FILENAME_MAX, `filename is longer than ${MEDIA_FILENAME_MAX} characters`)
    // deno-lint-ignore no-control-regex
    .regex(/^[^\u0000-\u001f\u007f]*$/, "filename must not contain control characters"),
  contentType: z.preprocess(
    (v) => (typeof v === "string" ? v.trim().toLowerCase() : v),
    z.enum(MEDIA_TYPES, {
      error: (iss) =>
        iss.input === undefined
          ? "contentType is required"
          : `contentType must be one of: ${MEDIA_TYPES.join(", ")}`,
    }),
  ),
  size: z.number({ error: "size is required (bytes)" }).int("size must be a whole number")
    .min(1, "size must be at least 1 byte"),
}).openapi("AddPostMediaRequest");

export const patchMediaBody = z.object({
  workspace_id: requiredId("workspace_id"),
  alt_text: z.string({ error: "alt_text must be a string" }).max(
    ALT_TEXT_MAX,
    `alt_text is longer than ${ALT_TEXT_MAX} characters`,
  ).optional(),
  title: z.string({ error: "title must be a string" }).max(
    DOCUMENT_TITLE_MAX,
    `title is longer than ${DOCUMENT_TITLE_MAX} characters`,
  ).optional(),
}).openapi("UpdatePostMediaRequest");

export const reorderMediaBody = z.object({
  workspace_id: requiredId("workspace_id"),
  media_ids: z.array(
    z.string({ error: "media_ids must be media ids" }).max(ID_MAX, "media_ids: an id is too long"),
    { error: "media_ids is required (the post's media ids in their new order)" },
  ).max(IMAGES_MAX, `media_ids names at most ${IMAGES_MAX} media`),
}).openapi("ReorderPostMediaRequest");

export const mediaUploadSchema = z.object({
  media_id: z.string(),
  uploadUrl: z.string(),
  expiresIn: z.number().int(),
}).openapi("PostMediaUpload");

export const saveVersionBody = z.object({
  workspace_id: requiredId("workspace_id"),
  label: z.string({ error: "label must be a string" }).max(
    VERSION_LABEL_MAX,
    `label is longer than ${VERSION_LABEL_MAX} characters`,
  ).optional(),
}).openapi("SaveVersionRequest");

export const calendarQuery = z.object({
  from: z.string({ error: "from is required (YYYY-MM-DD)" }).openapi({ format: "date" }),
  to: z.string({ error: "to is required (YYYY-MM-DD)" }).openapi({ format: "date" }),
});

export const calendarSchema = z.object({
  timezone: z.string(),
  items: z.array(z.object({
    kind: z.enum(["scheduled", "published", "slot"]),
    at: z.string(),
    post_id: z.string().nullable(),
    title: z.string().nullable(),
    status: z.enum(POST_STATUSES).nullable(),
  })),
}).openapi("Calendar");

export const createExampleBody = z.object({
  workspace_id: requiredId("workspace_id"),
  title: title.optional(),
  content: content(EXAMPLE_CONTENT_MAX).optional(),
  tags: tagsSchema.optional(),
}).openapi("CreateExampleRequest");

export const updateExampleBody = createExampleBody.openapi("UpdateExampleRequest");

/** Members a comment or reply mentions: each gets a `mentioned` DM (but the writer). */
const mentions = z.array(
  z.string({ error: "mentions must be user ids" }).trim().min(
    1,
    "mentions must not hold an empty id",
  )
    .max(ID_MAX, `mentions: each id is at most ${ID_MAX} characters`),
  { error: "mentions must be an array of user ids" },
).max(50, "mentions names at most 50 members").optional();

export const createCommentBody = z.object({
  workspace_id: requiredId("workspace_id"),
  body: nonBlank("body", COMMENT_BODY_MAX),
  mentions,
  mark_id: z.string({ error: "mark_id must be a string" }).max(
    MARK_ID_MAX,
    `mark_id is longer than ${MARK_ID_MAX} characters`,
  ).optional(),
  text_excerpt: z.string({ error: "text_excerpt must be a string" }).max(
    TEXT_EXCERPT_MAX,
    `text_excerpt is longer than ${TEXT_EXCERPT_MAX} characters`,
  ).optional(),
}).openapi("CreateCommentRequest");

export const workspaceBody = z.object({ workspace_id: requiredId("workspace_id") }).openapi(
  "WorkspaceRequest",
);

export const createReplyBody = z.object({
  workspace_id: requiredId("workspace_id"),
  body: nonBlank("body", COMMENT_BODY_MAX),
  mentions,
}).openapi("CreateReplyRequest");

const pathId = (name: string) =>
  z.string().min(1, `${name} is required`).max(
    ID_MAX,
    `${name} is longer than ${ID_MAX} characters`,
  )
    .openapi({ param: { name, in: "path" } });

export const postIdParam = z.object({ id: pathId("id") });
export const mediaParams = z.object({ id: pathId("id"), media_id: pathId("media_id") });
export const versionParams = z.object({ id: pathId("id"), version_id: pathId("version_id") });
export const commentParams = z.object({ id: pathId("id"), comment_id: pathId("comment_id") });
export const replyParams = z.object({
  id: pathId("id"),
  comment_id: pathId("comment_id"),
  reply_id: pathId("reply_id"),
});

// ---------------------------------------------------------------- internal requests

export const internalCreatePostBody = z.object({
  workspace_id: requiredId("workspace_id"),
  title: title.optional(),
  content: content(CONTENT_MAX).optional(),
  tags: tagsSchema.optional(),
  author_id: requiredId("author_id"),
  author_name: z.string().max(TITLE_MAX, "author_name is too long").optional(),
  source_idea_id: z.string().trim().max(ID_MAX, "source_idea_id is too long").nullable()
    .optional(),
});

export const internalFirstCommentBody = z.object({
  workspace_id: requiredId("workspace_id"),
  first_comment: z.string().max(
    FIRST_COMMENT_MAX,
    `first_comment is longer than ${FIRST_COMMENT_MAX} characters`,
  ).nullable(),
  /** who makes the change (the tool's caller) */
  actor_id: z.string().max(ID_MAX, "actor_id is too long").optional(),
});

export const internalContentBody = z.object({
  content: content(CONTENT_MAX),
  workspace_id: z.string().max(ID_MAX, "workspace_id is too long").optional(),
  /** who makes the change (the tool's caller) */
  actor_id: z.string().max(ID_MAX, "actor_id is too long").optional(),
});

// ---------------------------------------------------------------- responses

export const postListSchema = z.object({
  items: z.array(postSchema),
  count: z.number().int().openapi({ description: "the number of items (on this page)" }),
  next_cursor: nextCursorField,
}).openapi("PostList");
export const exampleListSchema = z.object({
  items: z.array(exampleSchema),
  count: z.number().int(),
}).openapi("ExamplePostList");
export const commentListSchema = z.object({
  items: z.array(commentSchema),
  count: z.number().int().openapi({ description: "the number of items (on this page)" }),
  next_cursor: nextCursorField,
}).openapi("CommentList");
export const deletedSchema = z.object({ deleted: z.literal(true) }).openapi("Deleted");
