/**
 * A post's media in the editor: images (JPEG, PNG or GIF) or one PDF document, in publishing
 * order. Adding a file asks the API for a single-use upload URL and then PUTs the bytes there
 * with XMLHttpRequest, which reports upload progress (a `fetch` body stream would need HTTP/2).
 * Alt texts, a document's title, the order and removal are plain API calls answering the post.
 *
 * Thumbnails keep the first URL seen for each media (the local file while it uploads, else the
 * signed download URL of a Get): only a Get signs URLs, and a fresh signature would reload the
 * picture, so answers without one (and later Gets) do not change what is shown.
 */
import { type Signal, signal } from "@preact/signals";
import { ApiError, call, client, errorMessage, type Schemas } from "./api.ts";
import { getPost } from "./posts.ts";

type Post = Schemas["Post"];
/** The post a media call is about. */
export type PostRef = Pick<Post, "workspace_id" | "post_id">;
export type PostMedia = Schemas["PostMediaWithUrl"];

export const IMAGE_TYPES: readonly string[] = ["image/jpeg", "image/png", "image/gif"];
export const DOCUMENT_TYPE = "application/pdf";
const MiB = 1024 * 1024;
export const IMAGE_MAX_BYTES = 10 * MiB;
export const DOCUMENT_MAX_BYTES = 100 * MiB;
export const IMAGES_MAX = 20;
export const ALT_TEXT_MAX = 1_000;
export const DOCUMENT_TITLE_MAX = 200;
/** What the file picker offers. */
export const ACCEPT = [...IMAGE_TYPES, DOCUMENT_TYPE, ".jpg", ".jpeg", ".png", ".gif", ".pdf"]
  .join(",");

const BY_EXTENSION: Record<string, string> = {
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  png: "image/png",
  gif: "image/gif",
  pdf: DOCUMENT_TYPE,
};

/** The Content-Type a file is sent with: the browser's, or its extension's when it gave none. */
export function mediaTypeOf(file: { name: string; type: string }): string {
  if (file.type) return file.type.toLowerCase();
  const dot = file.name.lastIndexOf(".");
  return BY_EXTENSION[dot >= 0 ? file.name.slice(dot + 1).toLowerCase() : ""] ?? "";
}

/**
 * Why `file` cannot be added, in words, or null. Only what the file alone breaks (its type, its
 * size) is checked here, before anything is sent; the server refuses the rest (how many images,
 * a document beside images) with its own words.
 */
export function refusalOf(file: { name: string; type: string; size: number }): string | null {
  if (file.size === 0) return "The file is empty";
  const type = mediaTypeOf(file);
  if (type === DOCUMENT_TYPE) {
    return file.size > DOCUMENT_MAX_BYTES ? "A document can be at most 100 MiB" : null;
  }
  if (!IMAGE_TYPES.includes(type)) {
    return "Only JPEG, PNG or GIF images, or one PDF document, can be added";
  }
  return file.size > IMAGE_MAX_BYTES ? "An image can be at most 10 MiB" : null;
}

export function setMediaText(
  post: PostRef,
  mediaId: string,
  patch: { alt_text: string } | { title: string },
): Promise<Post> {
  return call(
    client().PATCH("/api/posts/{id}/media/{media_id}", {
      params: { path: { id: post.post_id, media_id: mediaId } },
      body: { workspace_id: post.workspace_id, ...patch },
    }),
  );
}

/** Each post's reorder in flight: the next one is sent once it has been answered. */
const reordersInFlight = new Map<string, Promise<unknown>>();

/**
 * Saves the publishing order. Orders of one post go one after another: two sent at once (two
 * quick moves) could reach the server in either order and leave the older one saved while the
 * newer one shows.
 */
export function reorderMedia(post: PostRef, mediaIds: string[]): Promise<Post> {
  const before = reordersInFlight.get(post.post_id) ?? Promise.resolve();
  const sent = before.catch(() => {}).then(() =>
    call(
      client().PUT("/api/posts/{id}/media", {
        params: { path: { id: post.post_id } },
        body: { workspace_id: post.workspace_id, media_ids: mediaIds },
      }),
    )
  );
  reordersInFlight.set(post.post_id, sent);
  const done = () => {
    if (reordersInFlight.get(post.post_id) === sent) reordersInFlight.delete(post.post_id);
  };
  sent.then(done, done);
  return sent;
}

export async function removeMedia(post: PostRef, mediaId: string): Promise<void> {
  await call(
    client().DELETE("/api/posts/{id}/media/{media_id}", {
      params: {
        path: { id: post.post_id, media_id: mediaId },
        query: { workspaceId: post.workspace_id },
      },
    }),
  );
}

/**
 * `next` (a write's answer, which carries no download URLs: only a Get signs them) with the
 * download URLs `prev` had for the same media, so the pictures on the screen stay.
 */
export function keepDownloadUrls(next: Post, prev: Post): Post {
  const urls = new Map((prev.media ?? []).map((m) => [m.media_id, m.downloadUrl]));
  let kept = false;
  const media = (next.media ?? []).map((m) => {
    const url = m.downloadUrl ? undefined : urls.get(m.media_id);
    if (!url) return m;
    kept = true;
    return { ...m, downloadUrl: url };
  });
  return kept ? { ...next, media } : next;
}

/** `media` moved from index `from` to index `to` (the others keep their order). */
export function moved<T>(media: readonly T[], from: number, to: number): T[] {
  const next = media.slice();
  const [item] = next.splice(from, 1);
  next.splice(Math.max(0, Math.min(to, next.length)), 0, item);
  return next;
}

/**
 * The media as the editor shows them while changes are on their way: without those being
 * removed, and in the order asked for (media it does not name, added meanwhile, after it). A
 * post read meanwhile (the editor's poll) still has the order from before, and showing it
 * would move items back and forth under the keyboard's focus.
 */
export function arranged<T extends { media_id: string }>(
  media: readonly T[],
  order: readonly string[] | null,
  removing: ReadonlySet<string>,
): T[] {
  const kept = media.filter((m) => !removing.has(m.media_id));
  if (!order) return kept;
  const rank = new Map(order.map((id, i) => [id, i]));
  const at = (m: T) => rank.get(m.media_id) ?? order.length + kept.indexOf(m);
  return kept.slice().sort((a, b) => at(a) - at(b));
}

/** PUTs `body` to `url` with its Content-Type, reporting the share sent (0..1). */
export type PutBytes = (
  url: string,
  body: Blob,
  contentType: string,
  onProgress: (share: number) => void,
  signal: AbortSignal,
) => Promise<void>;

/** What an upload cancelled by `MediaUploader.cancel` rejects with. */
export class UploadCancelled extends Error {
  constructor() {
    super("The upload was cancelled");
    this.name = "UploadCancelled";
  }
}

/** The browser's upload: XMLHttpRequest, whose `upload` events say how much has been sent. */
export const putWithProgress: PutBytes = (url, body, contentType, onProgress, signal) =>
  new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    signal.addEventListener("abort", () => xhr.abort());
    xhr.onabort = () => reject(new UploadCancelled());
    xhr.open("PUT", url);
    xhr.setRequestHeader("Content-Type", contentType);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(1);
        resolve();
        return;
      }
      let message = `The upload failed (${xhr.status})`;
      try {
        const answer = JSON.parse(xhr.responseText) as { error?: unknown };
        if (typeof answer.error === "string" && answer.error) message = answer.error;
      } catch {
        // not JSON: keep the status
      }
      reject(new ApiError(xhr.status, message));
    };
    xhr.onerror = () =>
      reject(new ApiError(0, "The upload did not reach the server. Check your connection"));
    xhr.send(body);
  });

/** A file on its way: asking for its URL (`mediaId` null), then sending its bytes. */
export interface Upload {
  id: string;
  mediaId: string | null;
  filename: string;
  kind: "image" | "document";
  /** the share of the bytes sent, 0..1 */
  progress: number;
}

/** A file that was not added, and why, in words. */
export interface Refusal {
  filename: string;
  message: string;
}

export interface MediaUploaderOptions {
  workspaceId: string;
  postId: string;
  /** Each fresh post: the Get after new media arrived, or after a failed upload was taken back. */
  onPost: (post: Post) => void;
  put?: PutBytes;
  /** A URL showing the local file (an object URL), or null */
  preview?: (file: Blob) => string | null;
  revoke?: (url: string) => void;
  /** Uploads sent at once; the rest wait (the page's API calls share the connections). */
  parallel?: number;
}

export interface MediaUploader {
  uploads: Signal<Upload[]>;
  refusals: Signal<Refusal[]>;
  /** The last thing to tell a screen reader (the live region's text). */
  announcement: Signal<string>;
  /** Adds `files` in their order; resolves when every upload has ended. */
  add(files: File[]): Promise<void>;
  /** Stops the upload of `mediaId` without a word (its entry is being removed). */
  cancel(mediaId: string): void;
  /** Reads the post again and hands it on (after a failed change). */
  refresh(): Promise<void>;
  /** The URL to show `media` with, the first one seen for it. */
  thumbnail(media: PostMedia): string | null;
  /** Notes the download URLs of a post read by someone else (the editor's poll). */
  noteUrls(post: Post): void;
  announce(text: string): void;
  dismissRefusals(): void;
  /** Whether any file is still on its way (a page leaving now would lose it). */
  busy(): boolean;
  dispose(): void;
}

let nextUploadId = 0;

export function createMediaUploader(o: MediaUploaderOptions): MediaUploader {
  const put = o.put ?? putWithProgress;
  const preview = o.preview ?? ((file: Blob) => URL.createObjectURL(file));
  const revoke = o.revoke ?? ((url: string) => URL.revokeObjectURL(url));
  const parallel = o.parallel ?? 2;
  const uploads = signal<Upload[]>([]);
  const refusals = signal<Refusal[]>([]);
  const announcement = signal("");
  const thumbs = new Map<string, string>();
  const local: string[] = [];
  let live = true;
  let sending = 0;
  const waiting: (() => void)[] = [];
  const aborts = new Map<string, AbortController>();

  const patch = (id: string, change: Partial<Upload>) => {
    uploads.value = uploads.value.map((u) => u.id === id ? { ...u, ...change } : u);
  };
  const drop = (id: string) => {
    uploads.value = uploads.value.filter((u) => u.id !== id);
  };
  const refuse = (filename: string, message: string) => {
    refusals.value = [...refusals.value, { filename, message }];
  };
  const announce = (text: string) => {
    // The same words twice in a row would not be read again: vary them invisibly.
    announcement.value = text === announcement.value.trimEnd() ? `${text}\u00a0` : text;
  };
  const noteUrls = (post: Post) => {
    for (const m of post.media) {
      if (m.downloadUrl && !thumbs.has(m.media_id)) thumbs.set(m.media_id, m.downloadUrl);
    }
  };
  const refresh = async () => {
    try {
      const read = await getPost(o.workspaceId, o.postId);
      // A media whose bytes are still on their way has no picture yet: a URL asked for now
      // would be remembered as broken (the same URL again, within the second, stays broken).
      const sending = new Set(uploads.value.map((u) => u.mediaId));
      const fresh = {
        ...read,
        media: read.media.map((m) => {
          if (!sending.has(m.media_id)) return m;
          const { downloadUrl: _, ...rest } = m;
          return rest;
        }),
      };
      noteUrls(fresh);
      if (live) o.onPost(fresh);
    } catch {
      // the editor's poll brings the post later
    }
  };
  const slot = async () => {
    while (sending >= parallel) await new Promise<void>((r) => waiting.push(r));
    sending++;
  };
  const release = () => {
    sending--;
    waiting.shift()?.();
  };

  async function send(upload: Upload, mediaId: string, url: string, file: File, type: string) {
    const abort = new AbortController();
    aborts.set(mediaId, abort);
    await slot();
    try {
      if (abort.signal.aborted) throw new UploadCancelled();
      await put(url, file, type, (share) => patch(upload.id, { progress: share }), abort.signal);
      drop(upload.id);
      announce(`${upload.filename} uploaded`);
    } catch (err) {
      drop(upload.id);
      if (err instanceof UploadCancelled) return;
      refuse(upload.filename, errorMessage(err));
      announce(`${upload.filename} was not uploaded`);
      // Take the entry back: its bytes will never come.
      await removeMedia({ workspace_id: o.workspaceId, post_id: o.postId }, mediaId)
        .catch(() => {});
      await refresh();
    } finally {
      aborts.delete(mediaId);
      release();
    }
  }

  async function add(files: File[]) {
    refusals.value = [];
    const started: Promise<void>[] = [];
    // One after another, so the post's order is the files' order and each rule the server
    // checks (how many, a document beside images) sees the files before it.
    for (const file of files) {
      const refusal = refusalOf(file);
      if (refusal) {
        refuse(file.name, refusal);
        continue;
      }
      const type = mediaTypeOf(file);
      const upload: Upload = {
        id: `upload-${++nextUploadId}`,
        mediaId: null,
        filename: file.name,
        kind: type === DOCUMENT_TYPE ? "document" : "image",
        progress: 0,
      };
      uploads.value = [...uploads.value, upload];
      try {
        const { media_id, uploadUrl } = await call(
          client().POST("/api/posts/{id}/media", {
            params: { path: { id: o.postId } },
            body: {
              workspace_id: o.workspaceId,
              filename: file.name,
              contentType: type as "image/jpeg" | "image/png" | "image/gif" | "application/pdf",
              size: file.size,
            },
          }),
        );
        if (upload.kind === "image") {
          const url = preview(file);
          if (url) {
            local.push(url);
            thumbs.set(media_id, url);
          }
        }
        patch(upload.id, { mediaId: media_id });
        started.push(send(upload, media_id, uploadUrl, file, type));
      } catch (err) {
        drop(upload.id);
        refuse(file.name, errorMessage(err));
      }
    }
    if (refusals.value.length > 0) {
      const n = refusals.value.length;
      announce(`${n} ${n === 1 ? "file was" : "files were"} not added`);
    }
    if (started.length === 0) return;
    await refresh();
    await Promise.all(started);
    // Read once more: a picture asked for before its bytes arrived (the feed preview) needs a
    // fresh URL to be asked for again.
    await refresh();
  }

  return {
    uploads,
    refusals,
    announcement,
    add,
    thumbnail: (media) => thumbs.get(media.media_id) ?? media.downloadUrl ?? null,
    noteUrls,
    announce,
    cancel: (mediaId) => aborts.get(mediaId)?.abort(),
    refresh,
    dismissRefusals: () => void (refusals.value = []),
    busy: () => uploads.value.length > 0,
    dispose() {
      // Uploads on their way go on (their entries are already on the post); only the page's
      // own previews are let go.
      live = false;
      for (const url of local) revoke(url);
      local.length = 0;
    },
  };
}
