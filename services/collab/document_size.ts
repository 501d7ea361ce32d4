import * as Y from "yjs";
import type { CollabLimits } from "./limits.ts";
import { type LengthBounds, textLengthBounds } from "./text_bounds.ts";

/**
 * A room's document against the text and byte limits. `bytes` is an upper bound of the
 * encoded document's size: measured at load and compaction, plus every update applied since.
 * Only when an update would take it past the limit is the real size computed.
 */
export class DocumentSize {
  bytes = 0;

  constructor(
    private readonly limits: CollabLimits,
    private readonly field: string,
  ) {}

  /**
   * Why `update` may not be applied to `doc` (it would take the text past `maxTextChars`
   * characters or the encoded document past `maxDocBytes` bytes), or null when it may. An
   * update cannot add more characters than it has bytes, so far from the limits nothing more
   * is checked. Near the text limit the update is read against the document
   * (`textLengthBounds`, costing the update's size, not the document's): most updates are
   * then settled, and a writer refused at the limit costs no more than its update. Only what
   * that leaves open (an update both adding and removing text across the limit, one near the
   * byte limit, or while the document holds updates still missing a dependency) is applied to
   * a copy of the document. An update that shrinks a document already over a limit is let
   * through.
   */
  refusal(doc: Y.Doc, update: Uint8Array): string | null {
    const { maxTextChars, maxDocBytes } = this.limits;
    const length = doc.getText(this.field).length;
    const bytesFit = this.bytes + update.byteLength <= maxDocBytes;
    const waiting = doc.store.pendingStructs !== null || doc.store.pendingDs !== null;
    if (length + update.byteLength <= maxTextChars && bytesFit && !waiting) return null;
    const bounds = waiting ? null : this.#textBounds(doc, update);
    if (bounds && bounds.min > maxTextChars && bounds.min > length) {
      return `Document over ${maxTextChars} characters`;
    }
    if (bounds && (bounds.max <= maxTextChars || bounds.max <= length) && bytesFit) return null;
    const state = Y.encodeStateAsUpdate(doc);
    const trial = new Y.Doc({ gc: doc.gc });
    try {
      Y.applyUpdate(trial, state);
      Y.applyUpdate(trial, update);
      const after = trial.getText(this.field).length;
      if (after > maxTextChars && after > length) {
        return `Document over ${maxTextChars} characters`;
      }
      const bytes = Y.encodeStateAsUpdate(trial).byteLength;
      if (bytes > maxDocBytes && bytes > state.byteLength) {
        return `Document over ${maxDocBytes} bytes`;
      }
      // Measured: the update itself is added when it is applied.
      this.bytes = state.byteLength;
      return null;
    } finally {
      trial.destroy();
    }
  }

  /** textLengthBounds of the text; null (the exact check) when it cannot read it. */
  #textBounds(doc: Y.Doc, update: Uint8Array): LengthBounds | null {
    try {
      return textLengthBounds(doc, this.field, update);
    } catch {
      return null;
    }
  }
}
