import type { z } from "@hono/zod-openapi";
import type { AssetStore } from "../../shared/assets/store.ts";
import { AppError, badRequest, notFound } from "../../shared/http/app_error.ts";
import type { Caller } from "../../shared/http/identity.ts";
import type { ServiceQueue } from "../../shared/queue.ts";
import { nowIso } from "../../shared/time.ts";
import type { ActionsJob, PendingUpload } from "./jobs.ts";
import { type ActionOperations, written } from "./operations.ts";
import {
  type Action,
  type addAttachmentBody,
  ALLOWED_EXTENSIONS,
  type Attachment,
  type attachmentListSchema,
  CONTENT_TYPES,
  MAX_ATTACHMENTS,
  splitFilename,
  type uploadUrlSchema,
} from "./schemas.ts";
import type { ActionStore } from "./store.ts";

/** Lifetime of a download URL in the attachment list (spec: 1 hour). */
const DOWNLOAD_URL_TTL = 3600;

export type AttachmentRequest = Omit<z.infer<typeof addAttachmentBody>, "workspace_id">;
export type UploadUrl = z.infer<typeof uploadUrlSchema>;
export type AttachmentWithUrl = z.infer<typeof attachmentListSchema>["items"][number];

/**
 * The action without the entries `match` picks, or null when it has none (nothing to write).
 * Changes `action` in place (the store hands `change` a copy).
 */
function without(action: Action, match: (entry: Attachment) => boolean): Action | null {
  if (!action.attachments.some(match)) return null;
  action.attachments = action.attachments.filter((entry) => !match(entry));
  return action;
}

/**
 * An action's attachments: the entries live on the action, the bytes in the shared asset store
 * under `workspaces/{workspace}/actions/{action}/{filename}`. An entry is recorded when its
 * upload URL is handed out, and removed by a delayed job if the upload never arrives.
 */
export class AttachmentOperations {
  constructor(
    private readonly deps: {
      actions: ActionOperations;
      store: ActionStore;
      queue: ServiceQueue<ActionsJob>;
      /** null when ASSETS_URL is empty: the routes answer 500 and the cleanup does nothing */
      assets: AssetStore | null;
      /** seconds an upload URL lives, and how long after that an absent upload is dropped */
      uploadUrlTtl: number;
      cleanupMargin: number;
    },
  ) {}

  /**
   * Records the entry and answers a URL to PUT the bytes to, with the Content-Type that the
   * filename's extension says (so a `.png` can never be served as HTML or script). Refuses a
   * bad name or type (400) before the membership and the action (403, 404).
   */
  async requestUpload(
    caller: Caller,
    workspaceId: string,
    actionId: string,
    input: AttachmentRequest,
  ): Promise<UploadUrl> {
    const { basename, extension } = splitFilename(input.filename);
    if (!basename) throw badRequest("filename is required");
    if (!(ALLOWED_EXTENSIONS as readonly string[]).includes(extension)) {
      throw badRequest(`filename must end in one of: ${ALLOWED_EXTENSIONS.join(", ")}`);
    }
    const expectedType = CONTENT_TYPES[extension];
    const contentType = input.contentType ?? expectedType;
    if (contentType.split(";")[0].trim().toLowerCase() !== expectedType) {
      throw badRequest(`contentType must be ${expectedType} for a .${extension} file`);
    }
    await this.deps.actions.require(caller, workspaceId, actionId);
    const assets = this.requireAssets();
    const { store, queue, uploadUrlTtl, cleanupMargin } = this.deps;
    const key = `workspaces/${workspaceId}/actions/${actionId}/${basename}`;
    let uploadUrl: string;
    try {
      uploadUrl = await assets.presignPut(key, contentType, uploadUrlTtl);
    } catch (err) {
      if (err instanceof RangeError) throw badRequest("filename cannot be used as a storage key");
      throw err;
    }
    const entry = { key, filename: basename, uploaded_at: nowIso(), uploaded_by: caller.user_id };
    const cleanup: PendingUpload = {
      workspace_id: workspaceId,
      action_id: actionId,
      key,
      uploaded_at: entry.uploaded_at,
    };
    written(
      await store.update(workspaceId, actionId, (action) => {
        // A new upload of the same name replaces its entry rather than adding one.
        const others = action.attachments.filter((a) => a.key !== key);
        if (others.length >= MAX_ATTACHMENTS) {
          throw badRequest(`An action can have at most ${MAX_ATTACHMENTS} attachments`);
        }
        action.attachments = [...others, entry];
        action.updated_at = entry.uploaded_at;
        return action;
      }, (op) => {
        queue.enqueue(op, { type: "attachment_cleanup", ...cleanup }, {
          delay: (uploadUrlTtl + cleanupMargin) * 1000,
        });
      }),
    );
    return { uploadUrl, key, expiresIn: uploadUrlTtl };
  }

  /** The entries, each with a freshly signed download URL (1 hour). */
  async list(caller: Caller, workspaceId: string, actionId: string): Promise<AttachmentWithUrl[]> {
    const action = await this.deps.actions.require(caller, workspaceId, actionId);
    const assets = this.requireAssets();
    return await Promise.all(action.attachments.map(async (a) => ({
      ...a,
      downloadUrl: await assets.presignGet(a.key, DOWNLOAD_URL_TTL),
    })));
  }

  /** Deletes the stored object, then the entry (404 when the action has no such entry). */
  async delete(caller: Caller, workspaceId: string, actionId: string, key: string): Promise<void> {
    const action = await this.deps.actions.require(caller, workspaceId, actionId);
    const isIt = (a: Attachment) => a.key === key;
    if (!action.attachments.some(isIt)) throw notFound("Attachment not found");
    await this.requireAssets().delete(key);
    written(
      await this.deps.store.update(workspaceId, actionId, (current) => {
        const next = without(current, isIt);
        if (next) next.updated_at = nowIso();
        return next;
      }),
    );
  }

  /**
   * The `attachment_cleanup` job: removes the entry of `upload` if its bytes never arrived and
   * the entry is still that request's (a later request of the same name has its own job).
   * Answers whether it removed one.
   */
  async dropIfNeverUploaded(upload: PendingUpload): Promise<boolean> {
    const { store, assets } = this.deps;
    if (!assets) return false;
    const isIt = (a: Attachment) => a.key === upload.key && a.uploaded_at === upload.uploaded_at;
    const action = await store.get(upload.workspace_id, upload.action_id);
    if (!action?.attachments.some(isIt)) return false;
    if (await assets.exists(upload.key)) return false;
    const outcome = await store.update(
      upload.workspace_id,
      upload.action_id,
      (current) => without(current, isIt),
    );
    return outcome.kind === "updated";
  }

  private requireAssets(): AssetStore {
    if (!this.deps.assets) throw new AppError(500, "Asset storage not configured");
    return this.deps.assets;
  }
}
