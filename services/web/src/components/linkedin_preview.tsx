/**
 * The post as LinkedIn's feed shows it, live as the text changes (the card itself is
 * linkedin_post_card.tsx): the connected member, or the page it is published as, and the
 * post's media and first comment; at a desktop feed's width or a phone's. It reads the editor's
 * live `Y.Text`: nothing goes over the network per keystroke.
 */
import { useState } from "preact/hooks";
import type { Schemas } from "../state/api.ts";
import { loadLinkedIn } from "../state/linkedin.ts";
import type { EditorSession } from "../editor/session.ts";
import { useResource } from "./use_resource.ts";
import { useLiveText } from "./use_live_text.ts";
import { LinkedInPostCard } from "./linkedin_post_card.tsx";

type Post = Schemas["Post"];

export function LinkedInPreview({ session, post }: { session: EditorSession; post: Post }) {
  const text = useLiveText(session);
  const [width, setWidth] = useState<"desktop" | "phone">("desktop");
  const connection = useResource(() => loadLinkedIn(post.workspace_id), [post.workspace_id]);
  const page = post.publish_as !== "member"
    ? connection.data?.organizations.find((o) => o.urn === post.publish_as)
    : undefined;
  const author = page?.name ?? connection.data?.name ?? "Your LinkedIn name";
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
      <LinkedInPostCard
        author={author}
        page={!!page}
        text={text}
        media={post.media ?? []}
        firstComment={post.first_comment}
        width={width}
      />
    </section>
  );
}
