import type { ScreenProps } from "../routes.ts";

/** A capture token, a bookmarklet and a curl line. (placeholder: the screen's helper fills it in) */
export default function CaptureScreen(_: ScreenProps) {
  return (
    <section class="stack">
      <h1>Quick capture</h1>
      <p>A capture token, a bookmarklet and a curl line.</p>
    </section>
  );
}
