/**
 * Remote cursors and selections, labelled with each editor's name, in the palette colours.
 *
 * y-codemirror.next's `yRemoteSelections` colours its widgets with `style="..."` attribute
 * strings, which our Content-Security-Policy (style-src 'self', no 'unsafe-inline') blocks: the
 * cursors would render colourless and every one would log a CSP violation. This extension does
 * the same work with classes only (`cp-cursor-N`, `cp-selection-N`; colours in editor.css from
 * `--cursor-N`). It also publishes the local cursor into awareness, as yRemoteSelections does.
 */
import * as Y from "yjs";
import type { Awareness } from "y-protocols/awareness.js";
import { Annotation, type Extension, type Range, RangeSet } from "@codemirror/state";
import {
  Decoration,
  type DecorationSet,
  EditorView,
  ViewPlugin,
  type ViewUpdate,
  WidgetType,
} from "@codemirror/view";
import { colorIndexForColor } from "./palette.ts";

const awarenessChanged = Annotation.define<true>();

/** After this long without a move, a remote caret's name label folds away (editor.css). */
export const CURSOR_IDLE_MS = 2000;

class CaretWidget extends WidgetType {
  constructor(readonly colorIndex: number, readonly name: string, readonly idle: boolean) {
    super();
  }

  override toDOM(): HTMLElement {
    const caret = document.createElement("span");
    caret.className = `cp-remote-caret cp-cursor-${this.colorIndex}${this.idle ? " is-idle" : ""}`;
    caret.setAttribute("aria-hidden", "true");
    caret.append("\u2060");
    const label = document.createElement("span");
    label.className = "cp-remote-caret-label";
    label.textContent = this.name;
    caret.append(label, "\u2060");
    return caret;
  }

  override eq(other: CaretWidget): boolean {
    return other.colorIndex === this.colorIndex && other.name === this.name &&
      other.idle === this.idle;
  }

  override ignoreEvent(): boolean {
    return true;
  }
}

interface UserState {
  name?: unknown;
  color?: unknown;
}
interface CursorState {
  anchor?: unknown;
  head?: unknown;
}

/** The remote-cursors extension for `ytext` with `awareness` (the provider's). */
export function remoteCursors(ytext: Y.Text, awareness: Awareness): Extension {
  const ydoc = ytext.doc!;
  return ViewPlugin.fromClass(
    class {
      decorations: DecorationSet = RangeSet.empty;
      /** Each remote caret's last position (JSON) and when it last moved. */
      private readonly moves = new Map<number, { at: string; since: number }>();
      private idleTimer: ReturnType<typeof setTimeout> | undefined;
      private readonly listener: (
        change: { added: number[]; updated: number[]; removed: number[] },
      ) => void;

      constructor(readonly view: EditorView) {
        this.listener = ({ added, updated, removed }) => {
          const ids = [...added, ...updated, ...removed];
          if (ids.some((id) => id !== ydoc.clientID)) {
            // Dispatching inside another update is not allowed: defer to a microtask.
            queueMicrotask(() => {
              if (this.view.dom.isConnected) {
                this.view.dispatch({ annotations: awarenessChanged.of(true) });
              }
            });
          }
        };
        awareness.on("change", this.listener);
        this.decorations = this.build(view);
      }

      destroy() {
        awareness.off("change", this.listener);
        clearTimeout(this.idleTimer);
      }

      /** Whether the caret of `clientId` (now at `at`) has been still for CURSOR_IDLE_MS. */
      private idleSince(clientId: number, at: string, now: number): number {
        const seen = this.moves.get(clientId);
        if (!seen || seen.at !== at) {
          this.moves.set(clientId, { at, since: now });
          return now;
        }
        return seen.since;
      }

      /** Rebuilds when the next moving caret turns idle, so its label folds without input. */
      private wakeAt(when: number) {
        clearTimeout(this.idleTimer);
        if (!Number.isFinite(when)) return;
        this.idleTimer = setTimeout(() => {
          if (this.view.dom.isConnected) {
            this.view.dispatch({ annotations: awarenessChanged.of(true) });
          }
        }, Math.max(0, when - Date.now()) + 20);
      }

      update(update: ViewUpdate) {
        this.publishLocal(update);
        if (
          update.docChanged || update.transactions.some((t) => t.annotation(awarenessChanged))
        ) {
          this.decorations = this.build(update.view);
        }
      }

      private publishLocal(update: ViewUpdate) {
        const local = awareness.getLocalState();
        if (local == null) return;
        const hasFocus = update.view.hasFocus && update.view.dom.ownerDocument.hasFocus();
        const current = local.cursor as CursorState | null | undefined;
        if (hasFocus) {
          const sel = update.state.selection.main;
          const anchor = Y.createRelativePositionFromTypeIndex(ytext, sel.anchor);
          const head = Y.createRelativePositionFromTypeIndex(ytext, sel.head);
          const same = current?.anchor != null && current?.head != null &&
            Y.compareRelativePositions(Y.createRelativePositionFromJSON(current.anchor), anchor) &&
            Y.compareRelativePositions(Y.createRelativePositionFromJSON(current.head), head);
          if (!same) awareness.setLocalStateField("cursor", { anchor, head });
        }
      }

      private build(view: EditorView): DecorationSet {
        const ranges: Range<Decoration>[] = [];
        const docLength = view.state.doc.length;
        const now = Date.now();
        let nextIdle = Infinity;
        const present = new Set<number>();
        awareness.getStates().forEach((state, clientId) => {
          if (clientId === ydoc.clientID) return;
          const cursor = state.cursor as CursorState | null | undefined;
          if (cursor?.anchor == null || cursor.head == null) return;
          let anchor, head;
          try {
            anchor = Y.createAbsolutePositionFromRelativePosition(
              Y.createRelativePositionFromJSON(cursor.anchor),
              ydoc,
            );
            head = Y.createAbsolutePositionFromRelativePosition(
              Y.createRelativePositionFromJSON(cursor.head),
              ydoc,
            );
          } catch {
            return;
          }
          if (!anchor || !head || anchor.type !== ytext || head.type !== ytext) return;
          const user = (state.user ?? {}) as UserState;
          const name = typeof user.name === "string" && user.name ? user.name : "Someone";
          const index = colorIndexForColor(user.color, clientId);
          const from = Math.min(anchor.index, head.index, docLength);
          const to = Math.min(Math.max(anchor.index, head.index), docLength);
          if (from < to) {
            ranges.push(
              Decoration.mark({ class: `cp-remote-selection cp-selection-${index}` }).range(
                from,
                to,
              ),
            );
          }
          const at = Math.min(head.index, docLength);
          present.add(clientId);
          // the relative position alone stays the same while its owner types at the end
          const where = JSON.stringify([cursor.anchor, cursor.head, anchor.index, head.index]);
          const since = this.idleSince(clientId, where, now);
          const idle = now - since >= CURSOR_IDLE_MS;
          if (!idle) nextIdle = Math.min(nextIdle, since + CURSOR_IDLE_MS);
          ranges.push(
            Decoration.widget({
              widget: new CaretWidget(index, name, idle),
              side: head.index - anchor.index > 0 ? -1 : 1,
            }).range(at),
          );
        });
        for (const id of [...this.moves.keys()]) if (!present.has(id)) this.moves.delete(id);
        this.wakeAt(nextIdle);
        return Decoration.set(ranges, true);
      }
    },
    { decorations: (v) => v.decorations },
  );
}
