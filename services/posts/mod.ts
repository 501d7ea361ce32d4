import { openAssetStore } from "../../shared/assets/config.ts";
import { UploadUrls } from "../../shared/assets/upload_urls.ts";
import { createDeliverer } from "../../shared/delivery/mod.ts";
import { createServiceApp, mountServiceInternals } from "../../shared/http/service_app.ts";
import { KEY_FAMILIES } from "./keys.ts";
import { openServiceKv } from "../../shared/kv/kv.ts";
import { queueDriver, ServiceQueue } from "../../shared/queue/queue.ts";
import { type ServiceFactory, startListening } from "../../shared/service/service.ts";
import { errorMessage, type Logger } from "../../shared/log.ts";
import { AuthClient } from "../auth/client.ts";
import { IdeasClient } from "../ideas/client.ts";
import { WorkspacesClient } from "../workspaces/client.ts";
import { mountCommentRoutes } from "./comment_routes.ts";
import { parsePostsConfig } from "./config.ts";
import { mountPostsInternal } from "./internal_routes.ts";
import { postsJobHandlers, postsJobSchema } from "./jobs.ts";
import { collabLiveDocs, type LiveDocs } from "./live_docs.ts";
import { LiveTextCheck } from "./live_text_check.ts";
import { PostOperations } from "./operations.ts";
import { LinkedInApi } from "./linkedin.ts";
import { LinkedInConnections } from "./linkedin_connections.ts";
import { FirstCommentPublisher } from "./first_comment_job.ts";
import { MediaOperations } from "./media.ts";
import { mountMediaRoutes } from "./media_routes.ts";
import { mountPlanningRoutes } from "./planning_routes.ts";
import { VersionOperations } from "./versions.ts";
import { ReviewLinkOperations } from "./review_links.ts";
import { mountReviewLinkRoutes } from "./review_link_routes.ts";
import { PublishJob } from "./publish_job.ts";
import { MediaPublisher } from "./publish_media.ts";
import { Scheduling } from "./scheduling.ts";
import { mountPublishingRoutes } from "./publishing_routes.ts";
import { ReviewOperations, textFingerprint } from "./review.ts";
import { TokenCipher } from "./token_crypto.ts";
import { mountReviewRoutes } from "./review_routes.ts";
import { mountPostRoutes } from "./routes.ts";
import { mountExampleRoutes } from "./example_routes.ts";
import { PostsStore } from "./store.ts";

/**
 * The posts service: posts (whose live text is collab's document), example posts, and comment
 * threads with their DMs and real-time broadcasts, both sent through this service's KV queue.
 */
export const createPostsService: ServiceFactory = async ({ env, base, directory, logger }) => {
  const config = parsePostsConfig(env, base);
  const kv = await openServiceKv(base.dataDir, "posts");
  const store = new PostsStore(kv);
  // Migration: posts stored before the paged list's indexes existed are indexed once, here.
  await store.lists.build();
  const queue = new ServiceQueue(queueDriver(kv, logger), postsJobSchema, logger);
  const auth = new AuthClient(directory, base.internalSecret);
  const deliverer = createDeliverer({
    kv,
    logger,
    ...config.delivery,
    keep: (message, id) => auth.keepNotification(message, id),
  });
  const liveDocs = collabLiveDocs(directory, base.internalSecret);
  const workspaces = new WorkspacesClient(directory, base.internalSecret);
  const posts = new PostOperations({
    store,
    liveDocs,
    ideas: new IdeasClient(directory, base.internalSecret),
    queue,
    logger,
  });
  const review = new ReviewOperations({
    store,
    posts,
    workspaces,
    auth,
    queue,
    logger,
    publicUrl: base.publicUrl,
  });
  posts.afterTextChange = async (postId, content, actorId) =>
    await review.textChanged(postId, await textFingerprint(content), actorId);
  const linkedin = new LinkedInApi(config.linkedin, `${base.publicUrl}/oauth/linkedin/callback`);
  const cipher = await TokenCipher.open({
    keyBase64: config.linkedin.tokenKey,
    dataDir: base.dataDir,
  });
  const connections = new LinkedInConnections({
    kv,
    workspaces,
    review,
    linkedin,
    cipher,
    logger,
    publicUrl: base.publicUrl,
  });
  const scheduling = new Scheduling({
    store,
    posts,
    review,
    workspaces,
    queue,
    connections,
    logger,
  });
  const assets = config.assets ? await openAssetStore(config.assets) : null;
  const media = new MediaOperations({
    store,
    posts,
    review,
    queue,
    assets,
    uploads: config.assets ? await UploadUrls.fromConfig(config.assets) : null,
    uploadUrlTtl: config.uploadUrlTtl,
    cleanupMargin: config.cleanupMargin,
    logger,
  });
  review.uploadedMedia = (post) => media.uploadedIds(post);
  const links = new ReviewLinkOperations({
    store,
    posts,
    review,
    workspaces,
    media,
    publicUrl: base.publicUrl,
  });
  review.outdateLinks = (postId, textFingerprint) => links.outdate(postId, textFingerprint);
  const firstComment = new FirstCommentPublisher({
    store,
    review,
    queue,
    linkedin,
    connections,
    cipher,
    logger,
  });
  const publishJob = new PublishJob({
    store,
    posts,
    review,
    queue,
    linkedin,
    connections,
    cipher,
    config: config.linkedin,
    logger,
    mediaPublisher: new MediaPublisher({ linkedin, media, logger }),
  });
  const liveTextCheck = new LiveTextCheck({
    store,
    liveDocs,
    review,
    links,
    logger,
    intervalMs: config.liveTextCheckMs,
  });
  let expiryTimer: ReturnType<typeof setInterval> | null = null;
  const remind = () =>
    connections.remindExpiring().catch((err) =>
      logger.warn("the LinkedIn expiry check failed", { error: String(err) })
    );
  const app = createServiceApp({ logger, internalSecret: base.internalSecret });
  let ready = false;
  mountServiceInternals(app, () => ready, {
    kv,
    keys: KEY_FAMILIES,
    afterImport: async (startedAt) => {
      // The list's indexes are derived (not in the archive): built first, from the posts.
      await store.lists.build();
      await scheduling.afterRestore(startedAt);
      await store.indexApprovedTexts(true);
      await tellCollabWorkspaces(store, liveDocs, logger);
    },
  });
  mountPostsInternal(app, { store, posts, review, scheduling });
  mountPostRoutes(app, { store, posts, workspaces, review, media, connections, scheduling });
  mountMediaRoutes(app, { media, workspaces });
  mountReviewLinkRoutes(app, {
    links,
    workspaces,
  });
  mountPlanningRoutes(app, {
    store,
    review,
    workspaces,
    versions: new VersionOperations({ store, posts, review, workspaces, assets }),
  });
  mountReviewRoutes(app, { store, posts, review, workspaces });
  mountPublishingRoutes(app, { connections, scheduling }, { secureCookie: base.stage !== "dev" });
  mountCommentRoutes(app, {
    store,
    queue,
    auth,
    workspaces,
    logger,
    publicUrl: base.publicUrl,
  });
  mountExampleRoutes(app, { store, posts, workspaces });
  return {
    name: "posts",
    fetch: app.fetch,
    start: async () => {
      await startListening(
        () =>
          queue.listen(
            postsJobHandlers({
              store,
              liveDocs,
              deliverer,
              logger,
              publish: (job) => publishJob.run(job),
              firstComment: (job) => firstComment.run(job),
              media,
            }),
          ),
        logger,
      );
      // The 7-day reminder: checked at start and then every LINKEDIN_EXPIRY_CHECK_MS on every
      // instance; each expiry date is reminded once (an atomic check on the connection).
      void remind();
      expiryTimer = setInterval(remind, config.linkedin.expiryCheckMs);
      await store.indexApprovedTexts();
      liveTextCheck.start();
      // Posts that existed before collab kept their workspace, or whose creation could not
      // tell it, are told now (idempotent; in the background, start-up does not wait).
      void tellCollabWorkspaces(store, liveDocs, logger);
      ready = true;
    },
    close: async () => {
      if (expiryTimer !== null) clearInterval(expiryTimer);
      await liveTextCheck.stop();
      await queue.close(); // jobs in flight (publishing, broadcasts to collab) finish first
      kv.close();
    },
  };
};

/** Tells collab the workspace of every post, a page at a time (best effort, logged). */
async function tellCollabWorkspaces(
  store: PostsStore,
  liveDocs: LiveDocs,
  logger: Logger,
): Promise<void> {
  try {
    for await (const page of store.postWorkspaces()) await liveDocs.setWorkspaces(page);
  } catch (err) {
    logger.warn("could not tell collab the posts' workspaces", { error: errorMessage(err) });
  }
}
