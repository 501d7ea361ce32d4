/**
 * `/capture/new` (public, bare): the small window the quick-capture bookmarklet opens. It reads
 * the token, page title, address and selection from the URL fragment (never sent to a server),
 * drops the fragment from the address bar and history, posts the capture with
 * `X-Capture-Token`, shows "Captured ✓" and closes itself.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "../state/api.ts";
import { captureIdea } from "../state/capture_tokens.ts";
import { captureText, parseCaptureFragment } from "../components/capture_bookmarklet.ts";
import { ErrorMessage } from "../components/error_message.tsx";
import type { ScreenProps } from "../screen_props.ts";

type State = "saving" | "done" | "error";

const CLOSE_AFTER_MS = 1200;

export default function CaptureNewScreen(_: ScreenProps) {
  const [page] = useState(() => parseCaptureFragment(location.hash));
  const [state, setState] = useState<State>("saving");
  const [error, setError] = useState<unknown>(null);
  const [closeFailed, setCloseFailed] = useState(false);
  const started = useRef(false);
  const text = captureText(page);

  const save = async () => {
    setState("saving");
    setError(null);
    try {
      await captureIdea(page.token, text);
      setState("done");
    } catch (err) {
      setError(err);
      setState("error");
    }
  };

  useEffect(() => {
    // The token must not linger in the address bar or the history.
    if (location.hash) history.replaceState(null, "", location.pathname);
    if (started.current || !page.token || !text) return;
    started.current = true;
    void save();
  }, []);

  useEffect(() => {
    if (state !== "done") return;
    const t = setTimeout(() => {
      globalThis.close();
      // Still here: the window was not opened by a script (a direct visit).
      setTimeout(() => setCloseFailed(true), 300);
    }, CLOSE_AFTER_MS);
    return () => clearTimeout(t);
  }, [state]);

  if (!page.token || !text) {
    return (
      <section class="capture-new card stack">
        <h1>Quick capture</h1>
        <p>
          This window is opened by the quick-capture bookmarklet. Get yours on the{" "}
          <a href="/capture">Quick capture</a>{" "}
          page, drag it to your bookmarks bar and click it on any page.
        </p>
      </section>
    );
  }

  const rejected = error instanceof ApiError && (error.status === 401 || error.status === 403);
  return (
    <section class="capture-new card stack" aria-busy={state === "saving"}>
      <div role="status" aria-live="polite">
        <h1 class={`capture-new-state capture-new-${state}`}>
          {state === "saving" ? "Capturing…" : state === "done" ? "Captured ✓" : "Not captured"}
        </h1>
      </div>
      <div class="capture-new-preview">
        {page.title && <p class="capture-new-title">{page.title}</p>}
        {page.text && <blockquote>{page.text}</blockquote>}
        {page.url && <p class="capture-new-url">{page.url}</p>}
      </div>
      {state === "done" && (
        <p class="capture-muted">
          {closeFailed
            ? "Saved to your ideas. You can close this window."
            : "Saved to your ideas with an AI title. This window closes by itself."}
        </p>
      )}
      {state === "error" && (
        <>
          <ErrorMessage error={error} />
          {rejected && (
            <p>
              Get a fresh bookmarklet on the <a href="/capture" target="_blank">Quick capture</a>
              {" "}
              page.
            </p>
          )}
          <div class="capture-actions">
            <button type="button" class="button" onClick={() => void save()}>Try again</button>
            <button type="button" class="button secondary" onClick={() => globalThis.close()}>
              Close
            </button>
          </div>
        </>
      )}
    </section>
  );
}
