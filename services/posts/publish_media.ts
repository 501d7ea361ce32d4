import type { Logger } from "../../shared/log.ts";
import type { LinkedInApi, LinkedInRefusal, PostContent } from "./linkedin.ts";
import { checkedMediaStream } from "./media_bytes.ts";
import type { MediaOperations } from "./media.ts";
import type { Media, PostRecord } from "./schemas.ts";

/** Why the media could not go up: a file that is not what it claims, or LinkedIn's answer. */
export type MediaUploadFailure =
  | { kind: "problem"; message: string }
  | { kind: "refused"; filename: string; refusal: LinkedInRefusal }
  | { kind: "unknown"; filename: string; error: string };

/**
 * Uploads a post's media through LinkedIn's Images and Documents APIs (initializeUpload, then
 * the bytes, streamed from the asset store) and answers the post body's `content`. Nothing is
 * posted here: an upload may be retried freely; only creating the post is at most once.
 */
export class MediaPublisher {
  constructor(
    private readonly deps: { linkedin: LinkedInApi; media: MediaOperations; logger: Logger },
  ) {}

  async upload(
    token: string,
    owner: string,
    post: PostRecord,
  ): Promise<{ content: PostContent | undefined } | { failure: MediaUploadFailure }> {
    if (post.media.length === 0) return { content: undefined };
    const urns: string[] = [];
    for (const item of post.media) {
      const uploaded = await this.#uploadOne(token, owner, post, item);
      if ("failure" in uploaded) return uploaded;
      urns.push(uploaded.urn);
    }
    const first = post.media[0];
    if (first.kind === "document") {
      return { content: { media: { id: urns[0], title: first.title || first.filename } } };
    }
    if (post.media.length === 1) {
      return { content: { media: { id: urns[0], ...alt(first) } } };
    }
    return {
      content: {
        multiImage: { images: post.media.map((m, i) => ({ id: urns[i], ...alt(m) })) },
      },
    };
  }

  async #uploadOne(
    token: string,
    owner: string,
    post: PostRecord,
    item: Media,
  ): Promise<{ urn: string } | { failure: MediaUploadFailure }> {
    const { linkedin, media } = this.deps;
    const body = await media.bytes(post, item);
    if (!body) {
      return { failure: { kind: "problem", message: `${item.filename} was never uploaded` } };
    }
    const checked = await checkedMediaStream(item, body);
    if ("problem" in checked) return { failure: { kind: "problem", message: checked.problem } };
    const init = await linkedin.initializeUpload(token, item.kind, owner);
    if (init.kind !== "ok") {
      await checked.stream.cancel().catch(() => {});
      return { failure: asFailure(item, init) };
    }
    const put = await linkedin.uploadBytes(token, init.value.uploadUrl, checked.stream, item.size);
    if (put.kind !== "ok") return { failure: asFailure(item, put) };
    this.deps.logger.info("media uploaded to LinkedIn", {
      post_id: post.post_id,
      urn: init.value.urn,
    });
    return { urn: init.value.urn };
  }
}

function alt(m: Media): { altText?: string } {
  return m.alt_text ? { altText: m.alt_text } : {};
}

function asFailure(
  item: Media,
  outcome: LinkedInRefusal | { kind: "unknown"; error: string },
): MediaUploadFailure {
  return outcome.kind === "status"
    ? { kind: "refused", filename: item.filename, refusal: outcome }
    : { kind: "unknown", filename: item.filename, error: outcome.error };
}
