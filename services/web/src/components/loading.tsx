import { useEffect, useState } from "preact/hooks";

/**
 * A loading state: says nothing for the first 100 ms (fast answers do not flicker), then a
 * spinner with its label for screen readers.
 */
export function Loading({ label = "Loading" }: { label?: string }) {
  const [shown, setShown] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setShown(true), 100);
    return () => clearTimeout(timer);
  }, []);
  return (
    <div class="loading" role="status" aria-live="polite">
      {shown && (
        <>
          <span class="spinner" aria-hidden="true" />
          <span>{label}…</span>
        </>
      )}
    </div>
  );
}
