import { UPLOAD_ID } from "../../shared/assets/upload_urls.ts";
import { z } from "@hono/zod-openapi";
import { nextCursorField, pageQueryFields } from "../../shared/http/page_query.ts";

export const ACTION_STATUSES = ["open", "in_progress", "completed", "cancelled"] as const;
export type ActionStatus = typeof ACTION_STATUSES[number];
export const ASSIGNEE_RESPONSES = ["pending", "accepted", "declined"] as const;
export const ALLOWED_EXTENSIONS = ["png", "jpg", "jpeg", "svg", "webp", "pdf"] as const;

/** Attachments one action may carry (the action and its list must fit one KV value). */
export const MAX_ATTACHMENTS = 20;
export const MAX_TITLE = 500;
export const MAX_DESCRIPTION = 10_000;

/** Ids that end up in KV keys are bounded, so an oversized one is a 400, never a KV error. */
const id = (name: string) =>
  z.string({ error: `${name} is required` }).trim().min(1, `${name} is required`).max(
    100,
    `${name} is longer than 100 characters`,
  );
const shortText = (name: string) =>
  z.string().max(200, `${name} is longer than 200 characters`).nullable();

export const attachmentSchema = z.object({
  key: z.string(),
  filename: z.string(),
  uploaded_at: z.string(),
  uploaded_by: z.string(),
}).openapi("Attachment");
export type Attachment = z.infer<typeof attachmentSchema>;

export const actionSchema = z.object({
  action_id: z.string(),
  workspace_id: z.string(),
  title: z.string(),
  description: z.string(),
  assignee_id: z.string(),
  assignee_name: z.string(),
  assignee_response: z.enum(ASSIGNEE_RESPONSES),
  linked_post_id: z.string().nullable(),
  status: z.enum(ACTION_STATUSES),
  priority: z.string().nullable(),
  due_date: z.string().nullable(),
  attachments: z.array(attachmentSchema),
  created_by: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  completed_at: z.string().nullable(),
}).openapi("Action");
export type Action = z.infer<typeof actionSchema>;

/** A title of 1 to MAX_TITLE characters once trimmed; `empty` is the message when it is blank. */
const title = (text: z.ZodString, empty: string) =>
  text.trim().min(1, empty).max(MAX_TITLE, `title is longer than ${MAX_TITLE} characters`);

/** The optional fields that create and update both take, with the same limits. */
const optionalFields = {
  description: z.string().max(
    MAX_DESCRIPTION,
    `description is longer than ${MAX_DESCRIPTION} characters`,
  ).optional(),
  linked_post_id: z.string().max(100, "linked_post_id is longer than 100 characters").nullable()
    .optional(),
  priority: shortText("priority").optional(),
  due_date: shortText("due_date").optional(),
};

export const createActionBody = z.object({
  workspace_id: id("workspace_id"),
  title: title(z.string({ error: "title is required" }), "title is required"),
  assignee_id: id("assignee_id"),
  ...optionalFields,
}).openapi("CreateActionRequest");

export const updateActionBody = z.object({
  workspace_id: id("workspace_id"),
  title: title(z.string(), "title must not be empty").optional(),
  ...optionalFields,
  assignee_id: id("assignee_id").optional(),
}).openapi("UpdateActionRequest");

export const statusBody = z.object({
  workspace_id: id("workspace_id"),
  status: z.enum(ACTION_STATUSES, {
    error: `status must be one of ${ACTION_STATUSES.join(", ")}`,
  }),
}).openapi("ActionStatusRequest");

export const responseBody = z.object({
  workspace_id: id("workspace_id"),
  response: z.enum(["accepted", "declined"], {
    error: "response must be accepted or declined",
  }),
}).openapi("ActionResponseRequest");

/**
 * A file name ending in an allowed extension, in any case (`photo.PNG`), once trimmed: the
 * pattern the document states is the one the route checks.
 */
export const ALLOWED_FILENAME = new RegExp(
  `\\.(?:${
    ALLOWED_EXTENSIONS.map((ext) => [...ext].map((ch) => `[${ch}${ch.toUpperCase()}]`).join(""))
      .join("|")
  })\\s*$`,
);

export const addAttachmentBody = z.object({
  workspace_id: id("workspace_id"),
  filename: z.string({ error: "filename is required" }).trim().min(1, "filename is required").max(
    255,
    "filename is longer than 255 characters",
  ).regex(ALLOWED_FILENAME, `filename must end in one of: ${ALLOWED_EXTENSIONS.join(", ")}`)
    .openapi({ examples: ["photo.png"] }),
  contentType: z.string().trim().min(1, "contentType must not be empty").max(
    200,
    "contentType is longer than 200 characters",
  ).regex(/^[\x21-\x7e][\x20-\x7e]*$/, "contentType must be a MIME type such as image/png")
    .openapi({
      description: "The filename extension's own type (`image/png` for a `.png`...), in any " +
        "case and without parameters; the extension's type when left out",
      examples: ["image/png"],
    })
    .optional(),
}).openapi("AddAttachmentRequest");

export const workspaceQuery = z.object({
  workspaceId: id("workspaceId"),
});

/** The name the actions list's cursors carry (a cursor of another list is refused). */
export const ACTIONS_LIST = "actions";

export const listQuery = z.object({
  workspaceId: id("workspaceId"),
  status: z.string().optional(),
  assigneeId: z.string().optional(),
  linkedPostId: z.string().optional(),
  createdBy: z.string().optional().openapi({
    description: "the creator's user id: the actions they created",
  }),
  ...pageQueryFields(ACTIONS_LIST),
});

export const deleteAttachmentQuery = z.object({
  workspaceId: id("workspaceId"),
  key: z.string({ error: "key is required" }).min(1, "key is required").max(
    1024,
    "key is longer than 1024 characters",
  ),
});

export const actionIdParam = z.object({
  id: z.string().min(1).max(100, "id is longer than 100 characters").openapi({
    param: { name: "id", in: "path" },
  }),
});

export const uploadUrlSchema = z.object({
  uploadUrl: z.string(),
  key: z.string(),
  expiresIn: z.number().int(),
}).openapi("AttachmentUploadUrl");

export const attachmentListSchema = z.object({
  items: z.array(attachmentSchema.extend({ downloadUrl: z.string() })),
  count: z.number().int(),
}).openapi("AttachmentList");

export const actionListSchema = z.object({
  items: z.array(actionSchema),
  count: z.number().int().openapi({ description: "the number of items (on this page)" }),
  next_cursor: nextCursorField,
}).openapi("ActionList");

export const deletedSchema = z.object({ deleted: z.literal(true) });

/** The basename of a client-given filename and its lower-cased extension. */
export function splitFilename(filename: string): { basename: string; extension: string } {
  const basename = filename.split(/[/\\]/).pop()!.trim();
  const dot = basename.lastIndexOf(".");
  return { basename, extension: dot >= 0 ? basename.slice(dot + 1).toLowerCase() : "" };
}

export const CONTENT_TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  svg: "image/svg+xml",
  webp: "image/webp",
  pdf: "application/pdf",
};

/** `POST /internal/attachments/claim`: the key and upload id a single-use upload URL signs. */
export const claimUploadBody = z.object({
  key: z.string().min(1).max(1024),
  upload_id: z.string().regex(UPLOAD_ID, "upload_id is malformed"),
});
