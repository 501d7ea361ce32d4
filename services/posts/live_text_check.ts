import { errorMessage, type Logger } from "../../shared/log.ts";
import type { LiveDocs } from "./live_docs.ts";
import type { ReviewOperations } from "./review.ts";
import type { ReviewLinkOperations } from "./review_links.ts";
import type { PostsStore } from "./store.ts";

/** How often the live texts of approved and scheduled posts are compared with their approval. */
export const LIVE_TEXT_CHECK_MS = 2_000;

/**
 * An approval covers one text: a live edit (over the WebSocket, in the collab service) of an
 * approved or scheduled post sends it back to review within seconds. Every interval, the posts
 * whose approval holds a fingerprint are read from their index (one list read, nothing more
 * when there are none), collab is asked for the SHA-256 of their live texts in one call per
 * thousand posts, and each that differs goes through `ReviewOperations.textChanged`
 * (idempotent, so several instances checking the same post send one set of DMs). A review
 * link dies the same way: the live texts of the posts with live links are compared with what
 * each link was made for.
 */
export class LiveTextCheck {
  #timer: ReturnType<typeof setInterval> | null = null;
  #running: Promise<number> | null = null;

  constructor(
    private readonly deps: {
      store: PostsStore;
      liveDocs: LiveDocs;
      review: ReviewOperations;
      links?: ReviewLinkOperations;
      logger: Logger;
      intervalMs?: number;
    },
  ) {}

  start(): void {
    if (this.#timer !== null) return;
    this.#timer = setInterval(() => {
      this.#running ??= this.runOnce().finally(() => this.#running = null);
    }, this.deps.intervalMs ?? LIVE_TEXT_CHECK_MS);
  }

  async stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.#running;
  }

  /** One comparison of every approved text with its live text; answers how many were sent back. */
  async runOnce(): Promise<number> {
    const { store, liveDocs, review, links, logger } = this.deps;
    try {
      if (!liveDocs.available()) return 0;
      let sentBack = 0;
      for await (const approved of store.approvedTexts()) {
        const live = await liveDocs.fingerprints([...approved.keys()]);
        for (const [postId, { fingerprint }] of approved) {
          const now = live.get(postId);
          if (now === undefined || now === fingerprint) continue;
          if (await review.textChanged(postId, now)) sentBack++;
        }
      }
      await links?.outdateEdited((ids) => liveDocs.fingerprints(ids));
      return sentBack;
    } catch (err) {
      logger.warn("could not compare the live texts with their approvals", {
        error: errorMessage(err),
      });
      return 0;
    }
  }
}
