import { Link } from "../router.tsx";
import type { ScreenProps } from "../screen_props.ts";

/** Any URL the app does not know. */
export default function NotFoundScreen(_: ScreenProps) {
  return (
    <section class="stack">
      <h1>Page not found</h1>
      <p>
        There is nothing at this address. <Link href="/">Go to your workspace</Link>
      </p>
    </section>
  );
}
