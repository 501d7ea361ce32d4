/**
 * The post as LinkedIn's feed shows it, live as the text changes: the author (the connected
 * member, or the page it is published as) with a picture placeholder, the text with its line
 * breaks cut after three lines or 210 characters behind "…see more", hashtags, mentions and
 * links styled, the images in the feed's 1/2/3/4+ grid or a PDF's first-page placeholder, and
 * the first comment under it; at a desktop feed's width or a phone's. It reads the editor's
 * live `Y.Text`: nothing goes over the network per keystroke.
 */
import { memo } from "preact/compat";
import { useCallback, useState } from "preact/hooks";
import type { Schemas } from "../state/api.ts";
import { loadLinkedIn } from "../state/linkedin.ts";
import type { EditorSession } from "../editor/session.ts";
import { feedCut, type FeedToken, feedTokens } from "../editor/feed_text.ts";
import { useResource } from "./use_resource.ts";
import { useLiveText } from "./use_live_text.ts";

type Post = Schemas["Post"];
type Media = Post["media"][number];

function initials(name: string): string {
  return name.split(/\s+/).filter(Boolean).slice(0, 2).map((p) => p[0]!.toUpperCase()).join("");
}

export function LinkedInPreview({ session, post }: { session: EditorSession; post: Post }) {
  const text = useLiveText(session);
  const [width, setWidth] = useState<"desktop" | "phone">("desktop");
  const [expanded, setExpanded] = useState(false);
  const expand = useCallback(() => setExpanded(true), []);
  const connection = useResource(() => loadLinkedIn(post.workspace_id), [post.workspace_id]);
  const page = post.publish_as !== "member"
    ? connection.data?.organizations.find((o) => o.urn === post.publish_as)
    : undefined;
  const author = page?.name ?? connection.data?.name ?? "Your LinkedIn name";
  const cut = feedCut(text);
  const shown = expanded || !cut.cut ? text.trimEnd() : cut.shown;
  const media = post.media ?? [];
  return (
    <section class="lp" aria-label="LinkedIn preview">
      <div class="lp-head">
        <h2 class="lp-title">LinkedIn preview</h2>
        <div class="lp-widths" role="group" aria-label="Preview width">
          {(["desktop", "phone"] as const).map((w) => (
            <button
              key={w}
              type="button"
              class="lp-width"
              aria-pressed={width === w}
              onClick={() => setWidth(w)}
            >
              {w === "desktop" ? "Desktop" : "Phone"}
            </button>
          ))}
        </div>
      </div>
      <article class={`lp-card is-${width}`} aria-label={`Post by ${author}`}>
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
        {post.first_comment && (
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
              <FeedText text={post.first_comment} more={null} />
            </div>
          </div>
        )}
      </article>
    </section>
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
