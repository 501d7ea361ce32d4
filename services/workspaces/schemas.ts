import { z } from "@hono/zod-openapi";
import { isTimeZone } from "../../shared/time.ts";

/** The longest id accepted in a path or body; ids are ULIDs (26 characters). */
export const MAX_ID_LENGTH = 128;

export const workspaceRoleSchema = z.enum(["owner", "editor", "viewer"]).openapi("WorkspaceRole");
export type WorkspaceRole = z.infer<typeof workspaceRoleSchema>;

export const workspaceStatusSchema = z.enum(["active", "deleted"]);
export type WorkspaceStatus = z.infer<typeof workspaceStatusSchema>;

/** What the KV keeps of a workspace, and what Create, Update and the admin list answer. */
export const workspaceSchema = z.object({
  workspace_id: z.string(),
  name: z.string(),
  description: z.string(),
  owner_id: z.string(),
  status: workspaceStatusSchema,
  default_prompt_id: z.string().nullable(),
  publishing_slots: z.array(z.string()),
  /** A review approves a post before it is scheduled; default false */
  approval_required: z.boolean(),
  approvals_required: z.number().int().openapi({
    description: "How many distinct reviewers approve a post when approval is required (1 to 5)",
  }),
  /** The IANA zone the publishing slots are read in; default "UTC" */
  timezone: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  /** only on soft-deleted workspaces */
  deleted_at: z.string().optional(),
}).openapi("Workspace");
export type Workspace = z.infer<typeof workspaceSchema>;

export const workspaceWithRoleSchema = workspaceSchema.extend({
  member_role: workspaceRoleSchema,
}).openapi("WorkspaceWithRole");

export const workspaceDetailSchema = workspaceWithRoleSchema.extend({
  member_count: z.number().int(),
}).openapi("WorkspaceDetail");

export const workspaceListSchema = z.object({
  workspaces: z.array(workspaceWithRoleSchema),
}).openapi("WorkspaceList");

/** A membership as stored: `["memberships", workspace_id, user_id]`. */
export const membershipRecordSchema = z.object({
  workspace_id: z.string(),
  user_id: z.string(),
  role: workspaceRoleSchema,
  joined_at: z.string(),
}).openapi("WorkspaceMember");
export type MembershipRecord = z.infer<typeof membershipRecordSchema>;

export const memberWithProfileSchema = membershipRecordSchema.extend({
  email: z.string(),
  name: z.string(),
}).openapi("WorkspaceMemberWithProfile");

export const memberListSchema = z.object({
  members: z.array(memberWithProfileSchema),
}).openapi("WorkspaceMemberList");

/** A pending invite for an email that has no account yet. */
export const inviteRecordSchema = z.object({
  workspace_id: z.string(),
  email: z.string(),
  role: z.enum(["editor", "viewer"]),
  invited_by: z.string(),
  /** when the invite was made; every invite written here has it, older records may not */
  created_at: z.string().optional(),
});
export type InviteRecord = z.infer<typeof inviteRecordSchema>;

export const inviteResponseSchema = z.object({
  status: z.literal("invited"),
  email: z.string(),
  role: z.enum(["editor", "viewer"]),
}).openapi("WorkspaceInvite");

/** A pending invite as `GET /api/workspaces/{id}/invites` lists it. */
export const pendingInviteSchema = z.object({
  workspace_id: z.string(),
  email: z.string(),
  role: z.enum(["editor", "viewer"]),
  /** when the invite was made (its latest replacement); absent on records that lack it */
  invited_at: z.string().optional(),
  /** the user id of the member who made it */
  invited_by: z.string().optional(),
}).openapi("PendingInvite");
export type PendingInvite = z.infer<typeof pendingInviteSchema>;

export const pendingInviteListSchema = z.object({
  invites: z.array(pendingInviteSchema),
}).openapi("PendingInviteList");

/** A publishing slot: a weekday and a 24-hour time in the workspace's zone. */
export const SLOT_PATTERN = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) ([01]\d|2[0-3]):[0-5]\d$/;

/** A workspace stored before review and publishing existed reads with its defaults. */
export function withWorkspaceDefaults<T extends Workspace | null | undefined>(ws: T): T {
  if (!ws) return ws;
  return {
    ...ws,
    approval_required: ws.approval_required ?? false,
    approvals_required: ws.approvals_required ?? 1,
    timezone: ws.timezone ?? "UTC",
  };
}

const nameField = z.string()
  .trim()
  .min(1, "name is required")
  .max(100, "name must be at most 100 characters");
const descriptionField = z.string().max(5000, "description must be at most 5000 characters");

export const createWorkspaceBodySchema = z.object({
  name: nameField,
  description: descriptionField.optional(),
}).openapi("CreateWorkspaceRequest");

export const updateWorkspaceBodySchema = z.object({
  name: nameField.optional(),
  description: descriptionField.optional(),
  default_prompt_id: z.string()
    .max(MAX_ID_LENGTH, `default_prompt_id must be at most ${MAX_ID_LENGTH} characters`)
    .nullable()
    .optional(),
  publishing_slots: z.array(
    z.string().max(100, "must be at most 100 characters").regex(
      SLOT_PATTERN,
      'publishing_slots entries must look like "Mon 09:30" (Mon..Sun, 24-hour HH:MM)',
    ),
  )
    .max(50, "publishing_slots must have at most 50 items")
    .optional(),
  approval_required: z.boolean({ error: "approval_required must be a boolean" }).optional(),
  approvals_required: z.number({ error: "approvals_required must be a whole number from 1 to 5" })
    .int("approvals_required must be a whole number from 1 to 5")
    .min(1, "approvals_required must be a whole number from 1 to 5")
    .max(5, "approvals_required must be a whole number from 1 to 5").optional(),
  timezone: z.string({ error: "timezone must be a string" })
    .max(100, "timezone must be at most 100 characters")
    .refine(isTimeZone, "timezone is not a known IANA time zone")
    .openapi({
      description: "An IANA time zone name (the tz database's, such as `Europe/Zurich`, " +
        "`America/New_York` or `UTC`); any other value is refused",
      examples: ["Europe/Zurich", "UTC"],
    })
    .optional(),
  owner_id: z.string()
    .min(1, "owner_id must not be empty")
    .max(MAX_ID_LENGTH, `owner_id must be at most ${MAX_ID_LENGTH} characters`)
    .optional(),
}).openapi("UpdateWorkspaceRequest");
export type WorkspacePatch = z.infer<typeof updateWorkspaceBodySchema>;

/** Emails are compared trimmed and lower-cased everywhere. */
export const emailField = z.string()
  .trim()
  .toLowerCase()
  .min(1, "email is required")
  .max(254, "email must be at most 254 characters")
  .pipe(z.email({ message: "email is not a valid email address" }));

export const addMemberBodySchema = z.object({
  email: emailField,
  role: z.enum(["editor", "viewer"], {
    error: (iss) =>
      iss.input === "owner"
        ? "role cannot be owner: a workspace has exactly one owner, and ownership moves only by transfer"
        : "role must be editor or viewer",
  }).default("viewer"),
}).openapi("AddMemberRequest");

export const idParamSchema = z.object({
  id: z.string().min(1).max(MAX_ID_LENGTH, `id must be at most ${MAX_ID_LENGTH} characters`)
    .openapi({ param: { name: "id", in: "path" } }),
});

export const memberParamSchema = idParamSchema.extend({
  userId: z.string().min(1).max(
    MAX_ID_LENGTH,
    `userId must be at most ${MAX_ID_LENGTH} characters`,
  ).openapi({ param: { name: "userId", in: "path" } }),
});

/** `{id}` and `{email}`: the email trimmed, lower-cased and length-checked before any KV key. */
export const inviteParamSchema = idParamSchema.extend({
  email: emailField.openapi({ param: { name: "email", in: "path" } }),
});

/** An audience or language list item. */
export const listItemSchema = z.object({
  id: z.string().max(200, "must be at most 200 characters"),
  name: z.string().max(100, "must be at most 100 characters"),
}).openapi("ListItem");
export type ListItem = z.infer<typeof listItemSchema>;

export const itemListSchema = z.array(listItemSchema).max(30, "must have at most 30 items");

export const itemsResponseSchema = z.object({ items: z.array(listItemSchema) }).openapi(
  "ListItems",
);

const workspaceIdField = (name: string) =>
  z.string()
    .trim()
    .min(1, `${name} is required`)
    .max(MAX_ID_LENGTH, `${name} must be at most ${MAX_ID_LENGTH} characters`);

export const workspaceQuerySchema = z.object({
  workspaceId: workspaceIdField("workspaceId").openapi({
    param: { name: "workspaceId", in: "query" },
  }),
});

export type ListKind = "audiences" | "languages";

/** The PUT body of each list: the workspace and the list under the kind's own name. */
export const putListBodySchemas = {
  audiences: z.object({
    workspace_id: workspaceIdField("workspace_id"),
    audiences: itemListSchema,
  }).openapi("PutAudiencesRequest"),
  languages: z.object({
    workspace_id: workspaceIdField("workspace_id"),
    languages: itemListSchema,
  }).openapi("PutLanguagesRequest"),
};

/** The spec's defaults, returned for a workspace that has never saved a list. */
export const DEFAULT_LISTS: Record<ListKind, readonly ListItem[]> = {
  audiences: ["CEO", "CTO", "System Admins", "Architects", "Developers", "Business People"]
    .map((n) => ({ id: n, name: n })),
  languages: ["German", "SwissGerman", "English", "French", "Italian", "Spanish"]
    .map((n) => ({ id: n, name: n })),
};

// Internal API (peers only).

export const membershipAnswerSchema = z.object({
  workspace_id: z.string(),
  user_id: z.string(),
  role: workspaceRoleSchema.nullable(),
  workspace_status: workspaceStatusSchema.nullable(),
  owner_id: z.string().nullable(),
});

export const acceptInvitesBodySchema = z.object({
  email: emailField,
  user_id: z.string().min(1).max(
    MAX_ID_LENGTH,
    `user_id must be at most ${MAX_ID_LENGTH} characters`,
  ),
});
