/**
 * Keeps the keyboard focus on a control while it is disabled for its own request.
 *
 * Buttons across the app are disabled while their request runs (Saving…, Publishing…). The
 * browser moves the focus off a control that becomes disabled, to the page itself, so a keyboard
 * user who pressed Save went on from the top of the page, and a screen reader lost its place.
 * This puts the focus back on the control when it is enabled again, unless the person has moved
 * the focus somewhere else meanwhile (or the control is gone).
 */
export function keepFocusThroughBusy(root: Node = document.body): () => void {
  let lost: Element | null = null;
  const observer = new MutationObserver((records) => {
    for (const record of records) {
      const el = record.target as Element & { disabled?: boolean; focus(o?: object): void };
      if (typeof el.disabled !== "boolean") continue;
      if (el.disabled) {
        // the focus is still on it now; the browser moves it away right after
        if (el === document.activeElement) lost = el;
      } else if (el === lost) {
        lost = null;
        const active = document.activeElement;
        if (el.isConnected && (active === null || active === document.body)) {
          el.focus({ preventScroll: true });
        }
      }
    }
  });
  observer.observe(root, { subtree: true, attributes: true, attributeFilter: ["disabled"] });
  return () => observer.disconnect();
}
