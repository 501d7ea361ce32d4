/**
 * A read-only picture of a post as LinkedIn's feed shows it, from plain data (the review page
 * has no editor session): the author line, the text with its line breaks cut after three lines
 * or 210 characters behind "…see more", hashtags and links in the feed's blue, the images in
 * the feed's 1/2/3/4+ grid or a PDF's title card, and the first comment under the post.
 */
import { useState } from "preact/hooks";
import type { Schemas } from "../state/api.ts";
import { feedCut } from "./feed_cut.ts";

type Media = Schemas["PostMediaWithUrl"];

/** The feed's grid shows four images at most; the fourth says how many more there are. */
const GRID_MAX = 4;

const TOKEN = /(https?:\/\/[^\s]+|#[\p{L}\p{N}_]+)/gu;

/** The text with hashtags and links set apart, as the feed colours them. */
function FeedText({ text }: { text: string }) {
  const parts = text.split(TOKEN);
  return (
    <>
      {parts.map((part, i) =>
        i % 2 === 1
          ? (
            <span key={i} class={part.startsWith("#") ? "pp-hashtag" : "pp-link"}>
              {part}
            </span>
          )
          : part
      )}
    </>
  );
}

function initials(name: string): string {
  return name.split(/\s+/).filter(Boolean).slice(0, 2).map((p) => p[0]!.toUpperCase()).join("") ||
    "?";
}

export interface PreviewPost {
  content: string;
  media: Media[];
  first_comment: string | null;
}

export function ReviewPostPreview({ author, post }: { author: string; post: PreviewPost }) {
  const [expanded, setExpanded] = useState(false);
  const { shown, cut } = feedCut(post.content);
  const images = post.media.filter((m) => m.kind === "image");
  const pdf = post.media.find((m) => m.kind === "document");
  return (
    <article class="pp-card" aria-label={`Post by ${author}`}>
      <header class="pp-author">
        <span class="pp-avatar" aria-hidden="true">{initials(author)}</span>
        <span class="pp-author-text">
          <strong class="pp-author-name">{author}</strong>
          <span class="pp-author-sub">Now · Public</span>
        </span>
      </header>
      <div class="pp-text">
        {post.content.trim() === "" ? <p class="pp-empty">This post has no text.</p> : (
          <p>
            <FeedText text={expanded || !cut ? post.content.trimEnd() : shown} />
            {cut && !expanded && (
              <>
                {" "}
                <button type="button" class="pp-more" onClick={() => setExpanded(true)}>
                  …see more
                </button>
              </>
            )}
          </p>
        )}
        {cut && expanded && (
          <button
            type="button"
            class="pp-more"
            onClick={() => setExpanded(false)}
          >
            …see less
          </button>
        )}
      </div>
      {images.length > 0 && <ImageGrid images={images} />}
      {pdf && <DocumentCard document={pdf} />}
      <div class="pp-actions" aria-hidden="true">
        <span>Like</span>
        <span>Comment</span>
        <span>Repost</span>
        <span>Send</span>
      </div>
      {post.first_comment && (
        <section class="pp-comment" aria-label="First comment">
          <span class="pp-avatar pp-avatar-small" aria-hidden="true">{initials(author)}</span>
          <div class="pp-comment-bubble">
            <strong class="pp-author-name">{author}</strong>
            <p>
              <FeedText text={post.first_comment} />
            </p>
          </div>
        </section>
      )}
    </article>
  );
}

function ImageGrid({ images }: { images: Media[] }) {
  const shown = images.slice(0, GRID_MAX);
  const more = images.length - shown.length;
  return (
    <ul class={`pp-grid pp-grid-${shown.length}`} aria-label={`${images.length} images`}>
      {shown.map((m, i) => (
        <li key={m.media_id} class="pp-grid-item">
          {m.downloadUrl
            ? <img src={m.downloadUrl} alt={m.alt_text || m.filename} loading="lazy" />
            : <span class="pp-missing">{m.alt_text || m.filename}</span>}
          {more > 0 && i === shown.length - 1 && (
            <span class="pp-grid-more">
              +{more}
              <span class="visually-hidden">more images</span>
            </span>
          )}
        </li>
      ))}
    </ul>
  );
}

function DocumentCard({ document }: { document: Media }) {
  const title = document.title || document.filename;
  return (
    <div class="pp-document">
      <div class="pp-document-bar">
        <strong>{title}</strong>
        <span class="pp-document-kind">PDF</span>
      </div>
      <div class="pp-document-page" aria-hidden="true">
        <span class="pp-document-icon">PDF</span>
      </div>
      {document.downloadUrl && (
        <a class="pp-document-open" href={document.downloadUrl} target="_blank" rel="noopener">
          Open the document “{title}”
          <span class="visually-hidden">(opens in a new tab)</span>
        </a>
      )}
    </div>
  );
}
