import type { ScreenProps } from "../routes.ts";

/** Create an account: name, email and password. (placeholder: the screen's helper fills it in) */
export default function SignupScreen(_: ScreenProps) {
  return (
    <section class="stack">
      <h1>Sign up</h1>
      <p>Create an account: name, email and password.</p>
    </section>
  );
}
