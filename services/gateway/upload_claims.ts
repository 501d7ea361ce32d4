import type { ClaimUpload } from "../../shared/assets/upload_urls.ts";
import type { ServiceDirectory } from "../../shared/service/service_directory.ts";
import { ActionsClient } from "../actions/client.ts";
import { POST_MEDIA_KEY, PostsClient } from "../posts/client.ts";

/**
 * Who claims a single-use upload URL before the gateway takes its bytes: posts for a post's
 * media (its answer bounds the upload to the size declared), actions for an attachment.
 */
export function uploadClaims(directory: ServiceDirectory, secret: string): ClaimUpload {
  const actions = new ActionsClient(directory, secret);
  const posts = new PostsClient(directory, secret);
  return (key, upload) =>
    POST_MEDIA_KEY.test(key)
      ? posts.claimMediaUpload(key, upload)
      : actions.claimUpload(key, upload);
}
