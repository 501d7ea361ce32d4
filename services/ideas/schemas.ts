import { z } from "@hono/zod-openapi";
import { nextCursorField, pageQueryFields } from "../../shared/http/page_query.ts";

/** Ids end up in KV keys (2 KiB at most), so they are length-checked first. */
export const ID_MAX = 200;
export const IDEA_TITLE_MAX = 500;
/** The free-form capture text, stored as `description`. */
export const DESCRIPTION_MAX = 20_000;
export const SOURCE_URL_MAX = 2_048;
export const TAG_MAX = 200;
export const TAGS_MAX = 100;

export const IDEA_STATUSES = ["new", "converted"] as const;
export type IdeaStatus = typeof IDEA_STATUSES[number];

const requiredId = (field: string) =>
  z.string().trim().min(1, `${field} is required`).max(ID_MAX, `${field} is too long`);

export const tagsSchema = z.array(
  z.string().max(TAG_MAX, `each tag is at most ${TAG_MAX} characters`),
)
  .max(TAGS_MAX, `tags: at most ${TAGS_MAX} tags`);

export const ideaSchema = z.object({
  idea_id: z.string(),
  workspace_id: z.string(),
  title: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  source_url: z.string(),
  status: z.enum(IDEA_STATUSES),
  created_by: z.string(),
  linked_post_id: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
}).openapi("Idea");
export type Idea = z.infer<typeof ideaSchema>;

export const createIdeaBody = z.object({
  workspace_id: requiredId("workspace_id"),
  title: z.string().trim().min(1, "title is required").max(
    DESCRIPTION_MAX,
    `title is at most ${DESCRIPTION_MAX} characters`,
  ).openapi({ description: "the free-form text; stored as `description`, the title is generated" }),
  tags: tagsSchema.default([]),
  source_url: z.string().max(SOURCE_URL_MAX, "source_url is too long").default(""),
}).openapi("CreateIdea");

export const updateIdeaBody = z.object({
  workspace_id: requiredId("workspace_id"),
  title: z.string().trim().min(1, "title must be 1 to 500 characters").max(
    IDEA_TITLE_MAX,
    "title must be 1 to 500 characters",
  ).optional(),
  description: z.string().max(DESCRIPTION_MAX, "description is too long").optional(),
  source_url: z.string().max(SOURCE_URL_MAX, "source_url is too long").optional(),
  tags: tagsSchema.optional(),
}).openapi("UpdateIdea");
export type IdeaPatch = Omit<z.infer<typeof updateIdeaBody>, "workspace_id">;

export const statusBody = z.object({
  workspace_id: requiredId("workspace_id"),
  status: z.preprocess(
    (v) => (typeof v === "string" ? v.trim() : v),
    z.enum(IDEA_STATUSES, {
      error: (iss) =>
        iss.input === undefined || iss.input === ""
          ? "status is required"
          : "status must be one of: converted, new",
    }),
  ),
}).openapi("IdeaStatusChange");

export const workspaceQuery = z.object({
  workspaceId: requiredId("workspaceId"),
});

/** The name the ideas list's cursors carry (a cursor of another list is refused). */
export const IDEAS_LIST = "ideas";

export const listQuery = z.object({
  workspaceId: requiredId("workspaceId"),
  /** A blank `status` is no filter, as a blank `authorId` is. */
  status: z.preprocess(
    (v) => (typeof v === "string" && v.trim() === "" ? undefined : v),
    z.enum(IDEA_STATUSES, { message: "status must be one of: converted, new" }).optional(),
  ),
  tags: z.string().max(4_000, "tags is too long").optional().openapi({
    description: "comma-separated; keeps ideas carrying every listed tag",
  }),
  authorId: z.string().max(ID_MAX, "authorId is too long").optional(),
  ...pageQueryFields(IDEAS_LIST),
});

export const idParam = z.object({ id: requiredId("id") });

export const ideaListSchema = z.object({
  items: z.array(ideaSchema),
  count: z.number().int().openapi({ description: "the number of items (on this page)" }),
  next_cursor: nextCursorField,
}).openapi("IdeaList");

export const deletedSchema = z.object({ deleted: z.literal(true) });

// Quick capture

export const captureTokenBody = z.object({
  workspace_id: requiredId("workspace_id"),
}).openapi("CreateCaptureToken");

export const captureTokenSchema = z.object({
  token: z.string(),
  api_url: z.string(),
  token_id: z.string().openapi({
    description: "the token's id in `GET /api/quick-capture/tokens`, for revoking it",
  }),
}).openapi("CaptureToken");

export const captureTokenInfoSchema = z.object({
  token_id: z.string(),
  workspace_id: z.string(),
  created_at: z.string(),
  last_used_at: z.string().nullable().openapi({
    description: "the last capture with it, to the minute; null when never used",
  }),
  active: z.boolean().openapi({
    description: "the caller's latest token, the one `DELETE /api/quick-capture/token` deletes",
  }),
}).openapi("CaptureTokenInfo");

export const captureTokenListSchema = z.object({
  items: z.array(captureTokenInfoSchema),
  count: z.number().int(),
}).openapi("CaptureTokenList");

export const tokenIdParam = z.object({ token_id: requiredId("token_id") });

/** Read by hand after the token checks (the documented order puts the title last). */
export const captureBody = z.object({
  title: z.string().trim().min(1, "title is required").max(
    DESCRIPTION_MAX,
    `title is at most ${DESCRIPTION_MAX} characters`,
  ),
  tags: tagsSchema.default([]),
}).openapi("QuickCapture");

export const captureResultSchema = z.object({
  idea_id: z.string(),
  status: z.literal("created"),
}).openapi("QuickCaptureResult");

export interface CaptureToken {
  /** A ULID; absent on tokens stored before ids, until `indexCaptureTokens` gives one. */
  token_id: string;
  token_hash: string;
  workspace_id: string;
  user_id: string;
  revoked: boolean;
  created_at: string;
  /** Moved at most once a minute (`LAST_USED_EVERY_MS`); null until the first capture. */
  last_used_at: string | null;
}

// Internal (peers only)

export const internalCreateBody = z.object({
  workspace_id: requiredId("workspace_id"),
  // MCP create_idea stores the title literally (spec): checked for blankness, never trimmed.
  title: z.string().refine((v) => v.trim() !== "", "title is required").pipe(
    z.string().max(IDEA_TITLE_MAX, "title is too long"),
  ),
  description: z.string().max(DESCRIPTION_MAX, "description is too long").default(""),
  tags: tagsSchema.nullish().transform((v) => v ?? []),
  created_by: requiredId("created_by"),
});

export const internalConvertBody = z.object({
  post_id: requiredId("post_id"),
  workspace_id: requiredId("workspace_id").optional(),
});

export const internalMcpUpdateBody = z.object({
  workspace_id: requiredId("workspace_id"),
  status: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z.enum(IDEA_STATUSES, { message: "status must be one of: converted, new" }).optional(),
  ),
  tags: tagsSchema.nullish(),
});
