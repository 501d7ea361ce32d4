import type { ScreenProps } from "../routes.ts";

/** We email you a code to reset your password. (placeholder: the screen's helper fills it in) */
export default function ForgotScreen(_: ScreenProps) {
  return (
    <section class="stack">
      <h1>Forgot password</h1>
      <p>We email you a code to reset your password.</p>
    </section>
  );
}
