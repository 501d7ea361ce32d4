import type { z } from "@hono/zod-openapi";
import type { AssetStore } from "../../shared/assets/store.ts";
import type { UploadUrls } from "../../shared/assets/upload_urls.ts";
import { AppError, badRequest, conflict, notFound } from "../../shared/http/app_error.ts";
import type { Caller } from "../../shared/http/identity.ts";
import type { ServiceQueue } from "../../shared/queue/queue.ts";
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
import type { WorkspacesClient } from "../workspaces/client.ts";

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

/** Where an action's attachment bytes live in the asset store. */
export function actionAssetPrefix(workspaceId: string, actionId: string): string {
  return `workspaces/${workspaceId}/actions/${actionId}/`;
}

/**
 * An action's attachments: the entries live on the action, the bytes in the shared asset store
 * under `workspaces/{workspace}/actions/{action}/{filename}`. An entry is recorded when its
 * upload URL is handed out. The URL is single-use: the gateway claims it here before it takes
 * the bytes, and the claim is refused once used, once its entry is gone or requested again, and
 * once its uploader has left the workspace. A delayed job removes the entry if the upload never
 * arrives, and any bytes of the action that have no entry.
 */
export class AttachmentOperations {
  constructor(
    private readonly deps: {
      actions: ActionOperations;
      store: ActionStore;
      queue: ServiceQueue<ActionsJob>;
      /** null when ASSETS_URL is empty: the routes answer 500 and the cleanup does nothing */
      assets: AssetStore | null;
      /** Signs the single-use upload URLs (null with `assets`) */
      uploads: UploadUrls | null;
      workspaces: Pick<WorkspacesClient, "requireMember">;
      /** seconds an upload URL lives, and how long after that an absent upload is dropped */
      uploadUrlTtl: number;
      cleanupMargin: number;
    },
  ) {}

  /**
   * Records the entry and answers a single-use URL to PUT the bytes to, with the one
   * Content-Type the filename's extension has (compared case-insensitively, no parameters), so
   * a `.png` is stored as `image/png` and nothing else. Refuses a bad name or type (400) before
   * the membership and the action (403, 404).
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
    const contentType = (input.contentType ?? expectedType).trim().toLowerCase();
    if (contentType !== expectedType) {
      throw badRequest(`contentType must be ${expectedType} for a .${extension} file`);
    }
    await this.deps.actions.require(caller, workspaceId, actionId);
    this.requireAssets();
    const uploads = this.deps.uploads!;
    const { store, queue, uploadUrlTtl, cleanupMargin } = this.deps;
    const key = actionAssetPrefix(workspaceId, actionId) + basename;
    const uploadId = uploads.newUploadId();
    let uploadUrl: string;
    try {
      uploadUrl = await uploads.sign(key, expectedType, uploadUrlTtl, uploadId);
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
        store.addUploadGrant(op, uploadId, {
          ...cleanup,
          uploaded_by: caller.user_id,
          expires_at: Date.now() + uploadUrlTtl * 1000,
          claimed: false,
        });
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
   * Lets the gateway take the bytes of upload URL `uploadId` for `key`, once: 409 when the URL
   * was used already or the same name was requested again since, 404 when its entry or action
   * is gone or the URL is unknown or expired, 403 when its uploader is no longer a member.
   */
  async claimUpload(key: string, uploadId: string): Promise<void> {
    const { store, workspaces } = this.deps;
    const grant = await store.getUploadGrant(uploadId);
    if (grant && !grant.claimed && grant.key === key) {
      await workspaces.requireMember(grant.workspace_id, grant.uploaded_by);
    }
    const outcome = await store.claimUpload(uploadId, key);
    switch (outcome.kind) {
      case "claimed":
        return;
      case "claimed_already":
        throw conflict("This upload URL has been used already: request a new one");
      case "superseded":
        throw conflict("A newer upload URL was requested for this attachment");
      case "entry_gone":
        throw notFound("Attachment not found");
      case "unknown":
        throw notFound("No upload is waiting for this URL: request a new one");
    }
  }

  /**
   * The `attachment_cleanup` job, run once `upload`'s URL has expired: removes its entry if its
   * bytes never arrived and the entry is still that request's (a later request of the same name
   * has its own job), then removes the action's stored bytes that have no entry (an upload that
   * raced a delete of its entry or action). Answers what it removed.
   */
  async cleanUp(upload: PendingUpload): Promise<{ dropped: boolean; orphans: string[] }> {
    return {
      dropped: await this.dropIfNeverUploaded(upload),
      orphans: await this.removeOrphans(upload.workspace_id, upload.action_id),
    };
  }

  private async dropIfNeverUploaded(upload: PendingUpload): Promise<boolean> {
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

  /**
   * Deletes the objects under the action's prefix that no entry of it names (all of them once
   * the action is gone). The objects are listed before the entries are read, so bytes whose
   * entry was recorded meanwhile are kept.
   */
  private async removeOrphans(workspaceId: string, actionId: string): Promise<string[]> {
    const { store, assets } = this.deps;
    if (!assets) return [];
    const objects = await assets.list(actionAssetPrefix(workspaceId, actionId));
    if (objects.length === 0) return [];
    const action = await store.get(workspaceId, actionId);
    const named = new Set(action?.attachments.map((a) => a.key) ?? []);
    const orphans = objects.map((o) => o.key).filter((key) => !named.has(key));
    for (const key of orphans) await assets.delete(key);
    return orphans;
  }

  private requireAssets(): AssetStore {
    if (!this.deps.assets) throw new AppError(500, "Asset storage not configured");
    return this.deps.assets;
  }
}
