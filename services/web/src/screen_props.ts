/** What the router hands every screen; routes.ts and the screens both import it from here. */
export interface ScreenProps {
  /** The `:name` parts of the pattern. */
  params: Record<string, string>;
}
