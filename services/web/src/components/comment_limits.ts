/** The API's limits on comments (services/posts/schemas.ts). */
export const TEXT_EXCERPT_MAX = 2_000;
