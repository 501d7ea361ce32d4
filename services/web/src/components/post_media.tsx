/**
 * The post's media in the editor: a drop zone with a file picker (images or one PDF), the
 * files' upload progress, what was refused and why, and the media in publishing order, each
 * moved by dragging its thumbnail or with its "Move earlier"/"Move later" buttons. Focus stays
 * on the moved item (or goes to the next one after a removal), and a live region says what
 * happened (uploaded, moved, removed) for those who cannot see it.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import type { Schemas } from "../state/api.ts";
import {
  ACCEPT,
  arranged,
  createMediaUploader,
  IMAGES_MAX,
  moved,
  type PostMedia,
  removeMedia,
  reorderMedia,
  type Upload,
} from "../state/post_media.ts";
import { ErrorMessage } from "./error_message.tsx";
import { type ItemAction, MediaItem } from "./post_media_item.tsx";

type Post = Schemas["Post"];

const INPUT_ID = "post-media-input";

function summary(media: PostMedia[]): string {
  if (media.length === 0) return "No images or document yet";
  if (media[0].kind === "document") return "1 document";
  return `${media.length} of ${IMAGES_MAX} images`;
}

function hasFiles(e: DragEvent): boolean {
  return e.dataTransfer?.types.includes("Files") ?? false;
}

/** Where the focus goes after the list changes: a control of an item, or the file picker. */
type FocusTarget = { mediaId: string; action: ItemAction } | { picker: true };

export function PostMedia({ post, onChange }: { post: Post; onChange: (post: Post) => void }) {
  const workspaceId = post.workspace_id;
  const postId = post.post_id;
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;
  const uploader = useMemo(
    () => createMediaUploader({ workspaceId, postId, onPost: (p) => onChangeRef.current(p) }),
    [workspaceId, postId],
  );
  useEffect(() => () => uploader.dispose(), [uploader]);
  uploader.noteUrls(post);

  // A page left while files are on their way would lose them: the browser asks first.
  useEffect(() => {
    const guard = (e: BeforeUnloadEvent) => {
      if (uploader.busy()) e.preventDefault();
    };
    globalThis.addEventListener("beforeunload", guard);
    return () => globalThis.removeEventListener("beforeunload", guard);
  }, [uploader]);

  // Files dropped beside the drop zone would make the browser open them, leaving the editor:
  // elsewhere on the page such a drop does nothing.
  useEffect(() => {
    const stray = (e: DragEvent) => {
      if (!hasFiles(e) || e.defaultPrevented) return;
      e.preventDefault();
      if (e.type === "dragover") e.dataTransfer!.dropEffect = "none";
    };
    document.addEventListener("dragover", stray);
    document.addEventListener("drop", stray);
    return () => {
      document.removeEventListener("dragover", stray);
      document.removeEventListener("drop", stray);
    };
  }, []);

  const [dropActive, setDropActive] = useState(false);
  const dragDepth = useRef(0);
  const [dragged, setDragged] = useState<string | null>(null);
  const [dropAt, setDropAt] = useState<{ mediaId: string; side: "before" | "after" } | null>(
    null,
  );
  const [error, setError] = useState<unknown>(null);
  const focusNext = useRef<FocusTarget | null>(null);
  const list = useRef<HTMLOListElement>(null);
  const picker = useRef<HTMLInputElement>(null);
  const reorders = useRef(0);
  const latest = useRef(post);
  latest.current = post;
  // The order asked for and the media being removed, shown until their answers arrive.
  const [order, setOrder] = useState<string[] | null>(null);
  const [removing, setRemoving] = useState<ReadonlySet<string>>(new Set());

  const media = useMemo(() => arranged(post.media, order, removing), [post.media, order, removing]);
  const uploads = uploader.uploads.value;
  const uploadOf = (mediaId: string): Upload | null =>
    uploads.find((u) => u.mediaId === mediaId) ?? null;
  const pending = uploads.filter((u) => !u.mediaId || !media.some((m) => m.media_id === u.mediaId));
  const refusals = uploader.refusals.value;

  // In the same task as the change reaches the page, so the focus is never left on the body
  // (a button just disabled, an item just removed) for a screen reader to announce.
  useLayoutEffect(() => {
    const target = focusNext.current;
    if (!target) return;
    focusNext.current = null;
    if ("picker" in target) {
      picker.current?.focus();
      return;
    }
    const item = list.current?.querySelector(`[data-media-id="${target.mediaId}"]`);
    if (!item) return;
    // A move to either end disables the button used: the other one keeps the focus.
    const order: ItemAction[] = target.action === "earlier"
      ? ["earlier", "later", "remove"]
      : target.action === "later"
      ? ["later", "earlier", "remove"]
      : ["remove"];
    for (const action of order) {
      const button = item.querySelector<HTMLButtonElement>(`[data-action="${action}"]`);
      if (button && !button.disabled) {
        button.focus();
        return;
      }
    }
  });

  function addFiles(files: FileList | null | undefined) {
    const chosen = Array.from(files ?? []);
    if (chosen.length === 0) return;
    setError(null);
    void uploader.add(chosen);
  }

  async function move(mediaId: string, to: number, by: ItemAction | null) {
    const from = media.findIndex((m) => m.media_id === mediaId);
    if (from < 0 || to < 0 || to >= media.length || from === to) return;
    const next = moved(media, from, to).map((m) => m.media_id);
    if (by) focusNext.current = { mediaId, action: by };
    setError(null);
    setOrder(next);
    uploader.announce(`Moved ${media[from].filename} to position ${to + 1} of ${media.length}`);
    const mine = ++reorders.current;
    try {
      const answer = await reorderMedia(post, next);
      if (mine !== reorders.current) return;
      onChange(answer);
      setOrder(null);
    } catch (err) {
      if (mine !== reorders.current) return;
      setOrder(null);
      setError(err);
      await uploader.refresh();
    }
  }

  async function remove(mediaId: string) {
    const at = media.findIndex((m) => m.media_id === mediaId);
    if (at < 0) return;
    const gone = media[at];
    const neighbour = media[at + 1] ?? media[at - 1];
    focusNext.current = neighbour
      ? { mediaId: neighbour.media_id, action: "remove" }
      : { picker: true };
    setError(null);
    uploader.cancel(mediaId);
    setRemoving((r) => new Set([...r, mediaId]));
    uploader.announce(`Removed ${gone.filename}`);
    try {
      await removeMedia(post, mediaId);
      // 204: gone; the post as shown now, without it.
      const now = latest.current;
      onChange({ ...now, media: now.media.filter((m) => m.media_id !== mediaId) });
    } catch (err) {
      setError(err);
      await uploader.refresh();
    } finally {
      setRemoving((r) => new Set([...r].filter((id) => id !== mediaId)));
    }
  }

  function dropOn(mediaId: string, side: "before" | "after") {
    const id = dragged;
    setDragged(null);
    setDropAt(null);
    if (!id || id === mediaId) return;
    const from = media.findIndex((m) => m.media_id === id);
    let to = media.findIndex((m) => m.media_id === mediaId) + (side === "after" ? 1 : 0);
    if (from < to) to--;
    void move(id, to, null);
  }

  return (
    <section
      class="post-media"
      aria-labelledby="post-media-heading"
      onDragEnter={(e) => {
        if (!hasFiles(e)) return;
        dragDepth.current++;
        setDropActive(true);
      }}
      onDragOver={(e) => {
        if (!hasFiles(e)) return;
        e.preventDefault();
        e.dataTransfer!.dropEffect = "copy";
      }}
      onDragLeave={(e) => {
        if (!hasFiles(e)) return;
        dragDepth.current = Math.max(0, dragDepth.current - 1);
        if (dragDepth.current === 0) setDropActive(false);
      }}
      onDrop={(e) => {
        if (!hasFiles(e)) return;
        e.preventDefault();
        dragDepth.current = 0;
        setDropActive(false);
        addFiles(e.dataTransfer?.files);
      }}
    >
      <div class="post-section-head">
        <h2 id="post-media-heading" class="post-section-title">Media</h2>
        <p class="field-hint">{summary(media)}</p>
      </div>
      {post.status === "published" && (
        <p class="review-line review-warning" role="note">
          This post is on LinkedIn already: changing its media here changes nothing there.
        </p>
      )}
      <div class={`media-drop${dropActive ? " is-active" : ""}`}>
        <input
          ref={picker}
          id={INPUT_ID}
          class="media-file-input"
          type="file"
          multiple
          accept={ACCEPT}
          aria-describedby="post-media-rules"
          onChange={(e) => {
            addFiles(e.currentTarget.files);
            e.currentTarget.value = "";
          }}
        />
        <label for={INPUT_ID} class="button secondary media-pick">Add images or a PDF</label>
        <span class="media-drop-text">
          {dropActive ? "Drop the files to add them" : "or drag them here"}
        </span>
        <p id="post-media-rules" class="field-hint media-rules">
          Up to {IMAGES_MAX} images (JPEG, PNG or GIF, 10 MiB each) or one PDF document (100 MiB).
        </p>
      </div>
      {refusals.length > 0 && (
        <div class="error-message media-refusals" role="alert">
          <p>
            {refusals.length === 1 ? "This file was not added:" : "These files were not added:"}
          </p>
          <ul>
            {refusals.map((r, i) => (
              <li key={i}>
                <strong>{r.filename}</strong>: {r.message}
              </li>
            ))}
          </ul>
          <button
            type="button"
            class="button secondary wa-small"
            onClick={() => uploader.dismissRefusals()}
          >
            Dismiss
          </button>
        </div>
      )}
      <ErrorMessage error={error} />
      {(media.length > 0 || pending.length > 0) && (
        <ol
          ref={list}
          class={`media-list${media[0]?.kind === "document" ? " has-document" : ""}`}
          aria-label="Media, in publishing order"
          onDragLeave={(e) => {
            if (!(e.currentTarget as Node).contains(e.relatedTarget as Node | null)) {
              setDropAt(null);
            }
          }}
        >
          {media.map((m, i) => (
            <MediaItem
              key={m.media_id}
              post={post}
              media={m}
              index={i}
              count={media.length}
              thumbnail={uploader.thumbnail(m)}
              upload={uploadOf(m.media_id)}
              dropSide={dragged && dragged !== m.media_id && dropAt?.mediaId === m.media_id
                ? dropAt.side
                : null}
              onSaved={onChange}
              onMove={(id, to, by) => void move(id, to, by)}
              onRemove={(id) => void remove(id)}
              onDragStart={setDragged}
              onDragEnd={() => {
                setDragged(null);
                setDropAt(null);
              }}
              onDragOverItem={(mediaId, side) =>
                setDropAt((d) => d?.mediaId === mediaId && d.side === side ? d : { mediaId, side })}
              onDropOnItem={dropOn}
            />
          ))}
          {pending.map((u) => (
            <li key={u.id} class="media-item media-item-pending">
              <div class="media-thumb">
                <span class="media-tile-icon" aria-hidden="true">
                  {u.kind === "image" ? "IMG" : "PDF"}
                </span>
                <div class="media-progress">
                  <progress
                    max={100}
                    value={Math.round(u.progress * 100)}
                    aria-label={`Uploading ${u.filename}`}
                  />
                  <span aria-hidden="true">{Math.round(u.progress * 100)}%</span>
                </div>
              </div>
              <div class="media-body">
                <p class="media-name">
                  <span class="media-filename">{u.filename}</span>
                </p>
                <p class="wa-muted media-pending-note">
                  {u.mediaId ? "Uploading…" : "Preparing the upload…"}
                </p>
              </div>
            </li>
          ))}
        </ol>
      )}
      <p class="visually-hidden" role="status" aria-live="polite" aria-label="Media updates">
        {uploader.announcement.value}
      </p>
    </section>
  );
}
