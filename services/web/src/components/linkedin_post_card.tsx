/**
 * The feed's card of a post, as LinkedIn shows it: the author (a member, or a page) with a
 * picture placeholder, the text with its line breaks cut after three lines or 210 characters
 * behind "…see more", hashtags, mentions and links styled, the images in the feed's 1/2/3/4+
 * grid or a PDF's first-page placeholder, and the first comment under it. Plain data in: the
 * editor's live preview (linkedin_preview.tsx) and the review page (screens/review.tsx) both
 * show it.
 */
import { memo } from "preact/compat";
import { useCallback, useState } from "preact/hooks";
import type { Schemas } from "../state/api.ts";
import { feedCut, type FeedToken, feedTokens } from "../editor/feed_text.ts";

type Media = Schemas["PostMediaWithUrl"];

function initials(name: string): string {
  return name.split(/\s+/).filter(Boolean).slice(0, 2).map((p) => p[0]!.toUpperCase()).join("");
}

export interface LinkedInPostCardProps {
  author: string;
  /** Published as an organization page (a square picture, "Page"). */
  page: boolean;
  text: string;
  media: Media[];
  firstComment: string | null;
  /** The feed's width to show it at; none: as wide as its place allows (up to the feed's). */
  width?: "desktop" | "phone";
}

export function LinkedInPostCard(
  { author, page, text, media, firstComment, width }: LinkedInPostCardProps,
) {
  const [expanded, setExpanded] = useState(false);
  const expand = useCallback(() => setExpanded(true), []);
  const cut = feedCut(text);
  const shown = expanded || !cut.cut ? text.trimEnd() : cut.shown;
  return (
    <article class={width ? `lp-card is-${width}` : "lp-card"} aria-label={`Post by ${author}`}>
      <header class="lp-author">
        <span class={page ? "lp-avatar is-page" : "lp-avatar"} aria-hidden="true">
          {initials(author)}
        </span>
        <span class="lp-author-text">
          <strong class="lp-author-name">{author}</strong>
          <span class="lp-author-sub">{page ? "Page" : "Member"} · Now</span>
        </span>
      </header>
      <div class="lp-text">
        {text.trim() === "" ? <p class="lp-empty">The post's text shows here.</p> : (
          <FeedText
            text={shown}
            more={cut.cut && !expanded ? expand : null}
          />
        )}
        {cut.cut && expanded && (
          <button
            type="button"
            class="lp-more"
            onClick={() => setExpanded(false)}
          >
            …see less
          </button>
        )}
      </div>
      {media.length > 0 && <FeedMedia media={media} />}
      <div class="lp-actions" aria-hidden="true">
        <span>Like</span>
        <span>Comment</span>
        <span>Repost</span>
        <span>Send</span>
      </div>
      {firstComment && (
        <div class="lp-comment">
          <span
            class={page ? "lp-avatar is-page is-small" : "lp-avatar is-small"}
            aria-hidden="true"
          >
            {initials(author)}
          </span>
          <div class="lp-comment-body">
            <strong class="lp-author-name">{author}</strong>
            <span class="visually-hidden">First comment:</span>
            <FeedText text={firstComment} more={null} />
          </div>
        </div>
      )}
    </article>
  );
}

function Token({ token }: { token: FeedToken }) {
  if (token.kind === "text") return <>{token.text}</>;
  return <span class={`lp-${token.kind}`}>{token.text}</span>;
}

/**
 * One paragraph (`dir="auto"`: a right-to-left line reads right to left). Memoised on its text,
 * so a keystroke re-renders the one line it changed, not the whole post.
 */
const FeedLine = memo(
  function FeedLine({ line, more }: { line: string; more: (() => void) | null }) {
    return (
      <p class="lp-line" dir="auto">
        {line === "" ? <br /> : feedTokens(line).map((t, j) => <Token key={j} token={t} />)}
        {more && (
          <>
            {" "}
            <button type="button" class="lp-more" aria-expanded="false" onClick={more}>
              …see more
            </button>
          </>
        )}
      </p>
    );
  },
);

/** Paragraphs as the feed breaks them, "…see more" after the last when the text is cut. */
function FeedText({ text, more }: { text: string; more: (() => void) | null }) {
  const lines = text.split("\n");
  return (
    <>
      {lines.map((line, i) => (
        <FeedLine key={i} line={line} more={i === lines.length - 1 ? more : null} />
      ))}
    </>
  );
}

/** Images in the feed's grid (one; two side by side; one over two; one over three, "+N"). */
function FeedMedia({ media }: { media: Media[] }) {
  const doc = media.find((m) => m.kind === "document");
  if (doc) {
    return (
      <div class="lp-document">
        <div class="lp-document-page" aria-hidden="true">PDF</div>
        <p class="lp-document-title">{doc.title || doc.filename}</p>
      </div>
    );
  }
  const shown = media.slice(0, 4);
  const more = media.length - shown.length;
  return (
    <div class={`lp-images lp-grid-${shown.length}`}>
      {shown.map((m, i) => (
        <div key={m.media_id} class="lp-image">
          {m.downloadUrl
            ? <img src={m.downloadUrl} alt={m.alt_text} loading="lazy" />
            : <span class="lp-image-missing">{m.filename}</span>}
          {more > 0 && i === shown.length - 1 && <span class="lp-image-more">+{more}</span>}
        </div>
      ))}
    </div>
  );
}
