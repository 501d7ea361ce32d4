/**
 * One media of a post in the editor: its thumbnail (an image) or document tile, its upload
 * progress while the bytes are on their way, its alt text (an image) or title (the document),
 * saved shortly after typing stops and on leaving the field, and the buttons that move it
 * earlier or later and remove it. The thumbnail is the handle to drag it elsewhere in the list.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import {
  ALT_TEXT_MAX,
  DOCUMENT_TITLE_MAX,
  type PostMedia,
  type PostRef,
  setMediaText,
  type Upload,
} from "../state/post_media.ts";
import type { Schemas } from "../state/api.ts";
import { ErrorMessage } from "./error_message.tsx";

type Post = Schemas["Post"];

const SAVE_AFTER_MS = 700;
export const ALT_WARNING = "Add alt text so everyone can read this image";
const TITLE_WARNING = "Add a title: LinkedIn shows it above the document";

const nf = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1 });

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${nf.format(bytes / 1024)} KB`;
  return `${nf.format(bytes / 1024 / 1024)} MB`;
}

/** The move and remove buttons an item has; the list focuses them after a move or removal. */
export type ItemAction = "earlier" | "later" | "remove";

/**
 * A text of the media (alt text or title) that saves itself: shortly after typing stops and on
 * leaving the field. While it is being edited, a fresher post does not overwrite it.
 */
function useSavedText(
  post: PostRef,
  mediaId: string,
  field: "alt_text" | "title",
  saved: string,
  onSaved: (post: Post) => void,
) {
  const [value, setValue] = useState(saved);
  const [error, setError] = useState<unknown>(null);
  const dirty = useRef(false);
  const focused = useRef(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const latest = useRef(value);
  latest.current = value;

  useEffect(() => {
    if (!dirty.current && !focused.current) setValue(saved);
  }, [saved]);

  const save = async () => {
    clearTimeout(timer.current);
    if (!dirty.current) return;
    dirty.current = false;
    setError(null);
    const text = latest.current;
    try {
      const patch = field === "alt_text" ? { alt_text: text } : { title: text };
      onSaved(await setMediaText(post, mediaId, patch));
    } catch (err) {
      dirty.current = true;
      setError(err);
    }
  };
  // Leaving the editor saves what was typed.
  useEffect(() => () => void save(), []);

  return {
    value,
    error,
    retry: () => void save(),
    input(text: string) {
      setValue(text);
      dirty.current = true;
      clearTimeout(timer.current);
      timer.current = setTimeout(() => void save(), SAVE_AFTER_MS);
    },
    focus() {
      focused.current = true;
    },
    blur() {
      focused.current = false;
      void save();
    },
  };
}

export interface MediaItemProps {
  post: PostRef;
  media: PostMedia;
  index: number;
  count: number;
  thumbnail: string | null;
  upload: Upload | null;
  /** where a dragged item would land, shown as a line before or after this one */
  dropSide: "before" | "after" | null;
  onSaved: (post: Post) => void;
  onMove: (mediaId: string, to: number, by: ItemAction) => void;
  onRemove: (mediaId: string) => void;
  onDragStart: (mediaId: string) => void;
  onDragEnd: () => void;
  onDragOverItem: (mediaId: string, side: "before" | "after") => void;
  onDropOnItem: (mediaId: string, side: "before" | "after") => void;
}

/** The MIME type of a dragged media, so a drop tells it from files dragged in. */
export const MEDIA_DRAG_TYPE = "application/x-cp-post-media";

/**
 * Which side of the item under the pointer a drop lands on: left or right half in a grid,
 * upper or lower half when the items are stacked one per row (a phone).
 */
function sideOf(e: DragEvent): "before" | "after" {
  const item = e.currentTarget as HTMLElement;
  const box = item.getBoundingClientRect();
  const stacked = box.width > (item.parentElement?.clientWidth ?? Infinity) * 0.6;
  return stacked
    ? e.clientY < box.top + box.height / 2 ? "before" : "after"
    : e.clientX < box.left + box.width / 2
    ? "before"
    : "after";
}

export function MediaItem(p: MediaItemProps) {
  const { media, index, count, upload } = p;
  const isImage = media.kind === "image";
  const text = useSavedText(
    p.post,
    media.media_id,
    isImage ? "alt_text" : "title",
    isImage ? media.alt_text : media.title ?? "",
    p.onSaved,
  );
  const [broken, setBroken] = useState(false);
  const id = `media-${media.media_id}`;
  const name = media.filename;
  const empty = text.value.trim() === "";
  const dragging = (e: DragEvent) => e.dataTransfer?.types.includes(MEDIA_DRAG_TYPE) ?? false;

  return (
    <li
      class={`media-item media-item-${media.kind}${p.dropSide ? ` is-drop-${p.dropSide}` : ""}`}
      data-media-id={media.media_id}
      onDragOver={(e) => {
        if (!dragging(e)) return;
        e.preventDefault();
        e.dataTransfer!.dropEffect = "move";
        p.onDragOverItem(media.media_id, sideOf(e));
      }}
      onDrop={(e) => {
        if (!dragging(e)) return;
        e.preventDefault();
        e.stopPropagation();
        p.onDropOnItem(media.media_id, sideOf(e));
      }}
    >
      <div
        class="media-thumb"
        draggable={count > 1}
        title={count > 1 ? "Drag to reorder" : undefined}
        onDragStart={(e) => {
          e.dataTransfer!.setData(MEDIA_DRAG_TYPE, media.media_id);
          e.dataTransfer!.effectAllowed = "move";
          p.onDragStart(media.media_id);
        }}
        onDragEnd={p.onDragEnd}
      >
        {isImage && p.thumbnail && !broken
          ? <img src={p.thumbnail} alt="" draggable={false} onError={() => setBroken(true)} />
          : (
            <span class="media-tile-icon" aria-hidden="true">
              {isImage ? "IMG" : "PDF"}
            </span>
          )}
        {count > 1 && <span class="media-position" aria-hidden="true">{index + 1}</span>}
        {upload && (
          <div class="media-progress">
            <progress
              max={100}
              value={Math.round(upload.progress * 100)}
              aria-label={`Uploading ${name}`}
            />
            <span aria-hidden="true">{Math.round(upload.progress * 100)}%</span>
          </div>
        )}
      </div>
      <div class="media-body">
        <p class="media-name">
          <span id={`${id}-name`} class="media-filename" title={name}>{name}</span>
          <span class="wa-muted">{isImage ? "" : "PDF · "}{formatSize(media.size)}</span>
        </p>
        <div class="media-text-field">
          <label for={`${id}-text`}>
            {isImage ? "Alt text" : "Document title"}
            <span class="visually-hidden">{` for ${name}`}</span>
          </label>
          {isImage
            ? (
              <textarea
                id={`${id}-text`}
                rows={2}
                maxLength={ALT_TEXT_MAX}
                value={text.value}
                placeholder="Describe the image"
                aria-describedby={empty ? `${id}-warning` : undefined}
                onInput={(e) => text.input(e.currentTarget.value)}
                onFocus={text.focus}
                onBlur={text.blur}
              />
            )
            : (
              <input
                id={`${id}-text`}
                maxLength={DOCUMENT_TITLE_MAX}
                value={text.value}
                placeholder="e.g. Our 2025 roadmap"
                aria-describedby={empty ? `${id}-warning` : undefined}
                onInput={(e) => text.input(e.currentTarget.value)}
                onFocus={text.focus}
                onBlur={text.blur}
              />
            )}
          {empty && (
            <p id={`${id}-warning`} class="media-warning">
              {isImage ? ALT_WARNING : TITLE_WARNING}
            </p>
          )}
          <ErrorMessage error={text.error} onRetry={text.retry} />
        </div>
        <div class="media-actions">
          {count > 1 && (
            <>
              <button
                type="button"
                class="button secondary wa-small media-icon-button"
                data-action="earlier"
                aria-label={`Move ${name} earlier`}
                title="Move earlier"
                disabled={index === 0}
                onClick={() => p.onMove(media.media_id, index - 1, "earlier")}
              >
                <span aria-hidden="true">←</span>
              </button>
              <button
                type="button"
                class="button secondary wa-small media-icon-button"
                data-action="later"
                aria-label={`Move ${name} later`}
                title="Move later"
                disabled={index === count - 1}
                onClick={() => p.onMove(media.media_id, index + 1, "later")}
              >
                <span aria-hidden="true">→</span>
              </button>
            </>
          )}
          <button
            type="button"
            class="button secondary wa-small media-remove"
            data-action="remove"
            aria-label={`Remove ${name}`}
            onClick={() => p.onRemove(media.media_id)}
          >
            Remove
          </button>
        </div>
      </div>
    </li>
  );
}
