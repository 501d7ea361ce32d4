import * as Y from "yjs";

type Struct = Y.Item | Y.GC | Y.Skip;

/** What a root text's length would be after an update: at least `min`, at most `max`. */
export interface LengthBounds {
  min: number;
  max: number;
}

/**
 * Bounds of the length the root text `name` of `doc` would have once `update` is applied,
 * read from the update and the items of `doc` it refers to, without applying it: the cost is
 * the update's size (and the items it deletes), not the document's. Null when the document
 * holds structs or deletions waiting for missing updates (which this update may release).
 *
 * `max` counts every countable item the update adds, whatever it belongs to. `min` counts
 * those that Yjs integrates now into the text itself: the update's own earlier structs and
 * the document hold everything they refer to, they are not deleted by the update, and they
 * come in order for their client. Both take away the visible characters of the text the
 * update deletes.
 */
export function textLengthBounds(
  doc: Y.Doc,
  name: string,
  update: Uint8Array,
): LengthBounds | null {
  const store = doc.store;
  if (store.pendingStructs !== null || store.pendingDs !== null) return null;
  const text = doc.getText(name);
  const { structs, ds } = Y.decodeUpdate(update);

  // The update's structs per client, in clock order (a client given twice: undecidable).
  const byClient = new Map<number, Struct[]>();
  let lastClient = -1;
  for (const struct of structs) {
    const client = struct.id.client;
    if (client !== lastClient && byClient.has(client)) return null;
    lastClient = client;
    const list = byClient.get(client);
    if (list) list.push(struct);
    else byClient.set(client, [struct]);
  }
  const landed = integrated(store, text, name, byClient);

  // The deleted ranges per client, sorted and merged (an update may give them in any order).
  const deletes = new Map<number, { clock: number; end: number }[]>();
  for (const [client, ranges] of ds.clients) {
    const merged: { clock: number; end: number }[] = [];
    for (const { clock, len } of [...ranges].sort((a, b) => a.clock - b.clock)) {
      const last = merged[merged.length - 1];
      if (last && clock <= last.end) last.end = Math.max(last.end, clock + len);
      else merged.push({ clock, end: clock + len });
    }
    deletes.set(client, merged);
  }
  const deleted = (client: number, clock: number, length: number): boolean => {
    const ranges = deletes.get(client) ?? [];
    let lo = 0;
    let hi = ranges.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (ranges[mid].end <= clock) lo = mid + 1;
      else if (ranges[mid].clock >= clock + length) hi = mid - 1;
      else return true;
    }
    return false;
  };

  let maxAdded = 0;
  let minAdded = 0;
  for (const [client, list] of byClient) {
    const state = Y.getState(store, client);
    for (const struct of list) {
      if (!(struct instanceof Y.Item) || !struct.content.isCountable()) continue;
      const end = struct.id.clock + struct.length;
      if (end <= state) continue;
      const fresh = end - Math.max(state, struct.id.clock);
      maxAdded += fresh;
      // Partly known already: left to the upper bound.
      if (struct.id.clock < state || deleted(client, struct.id.clock, struct.length)) continue;
      if (landed.get(struct) === true) minAdded += fresh;
    }
  }

  // The text's visible characters among the document's items the update deletes.
  let removed = 0;
  for (const [client, ranges] of deletes) {
    const items = store.clients.get(client);
    if (!items) continue;
    const state = Y.getState(store, client);
    for (const range of ranges) {
      const clock = range.clock;
      const end = Math.min(range.end, state);
      if (clock >= end) continue;
      for (let i = Y.findIndexSS(items, clock); i < items.length; i++) {
        const item = items[i];
        if (item.id.clock >= end) break;
        if (
          !(item instanceof Y.Item) || item.deleted || !item.countable ||
          item.parent !== text || item.parentSub !== null
        ) continue;
        removed += Math.min(end, item.id.clock + item.length) - Math.max(clock, item.id.clock);
      }
    }
  }

  const length = text.length;
  return { min: length + minAdded - removed, max: length + maxAdded - removed };
}

/**
 * Which of the update's structs Yjs integrates now, found as Yjs's own integration finds them
 * (yjs `integrateStructs`: clients from the highest id down, a struct waiting on another
 * client's next struct through a stack, a gap or a missing client sending the whole stack and
 * the rest of its clients to the pending structs), without changing the document. Answers,
 * per integrated struct, whether it is an item of the root text `text` (true) or not (false).
 */
function integrated(
  store: Y.Doc["store"],
  text: Y.Text,
  name: string,
  byClient: Map<number, Struct[]>,
): Map<Struct, boolean> {
  const out = new Map<Struct, boolean>();
  /** per client: the next struct to take, and whether the rest of it went pending */
  const cursors = new Map<number, { i: number; stopped: boolean }>();
  for (const client of byClient.keys()) cursors.set(client, { i: 0, stopped: false });
  const order = [...byClient.keys()].sort((a, b) => a - b);
  const state = new Map<number, number>();
  const clockOf = (client: number) => {
    let clock = state.get(client);
    if (clock === undefined) state.set(client, clock = Y.getState(store, client));
    return clock;
  };

  /** An id in the document or among the structs integrated so far: in the text, elsewhere, or garbage. */
  const lookup = (id: Y.ID): "text" | "other" | "gc" => {
    if (id.clock < Y.getState(store, id.client)) {
      const item = Y.getItem(store, id);
      if (!(item instanceof Y.Item)) return "gc";
      return item.parent === text && item.parentSub === null ? "text" : "other";
    }
    const list = byClient.get(id.client) ?? [];
    let lo = 0;
    let hi = list.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const s = list[mid];
      if (id.clock < s.id.clock) hi = mid - 1;
      else if (id.clock >= s.id.clock + s.length) lo = mid + 1;
      else {
        const inText = out.get(s);
        if (inText === undefined || !(s instanceof Y.Item)) return "gc";
        return inText ? "text" : garbage.has(s) ? "gc" : "other";
      }
    }
    return "gc";
  };
  /** integrated items that became garbage (their left or right was garbage) */
  const garbage = new Set<Struct>();

  /** As yjs `Item.getMissing`: the client a struct waits for, or null. */
  const missing = (s: Struct): number | null => {
    if (!(s instanceof Y.Item)) return null;
    for (const ref of [s.origin, s.rightOrigin, s.parent instanceof Y.ID ? s.parent : null]) {
      if (ref && ref.client !== s.id.client && ref.clock >= clockOf(ref.client)) return ref.client;
    }
    return null;
  };

  /** As yjs `Item.getMissing` then `integrate`: where an item lands. */
  const place = (s: Y.Item): boolean => {
    const left = s.origin ? lookup(s.origin) : null;
    const right = s.rightOrigin ? lookup(s.rightOrigin) : null;
    let inText: boolean | null;
    if (left === "gc" || right === "gc") inText = null;
    else if (s.parent === null) {
      inText = left !== null ? left === "text" : right !== null ? right === "text" : null;
    } else if (typeof s.parent === "string") inText = s.parent === name;
    else inText = lookup(s.parent as Y.ID) === "gc" ? null : false;
    if (inText === null) garbage.add(s);
    return inText === true && s.parentSub === null;
  };

  const next = (): Struct | null => {
    while (order.length > 0) {
      const client = order[order.length - 1];
      const cursor = cursors.get(client)!;
      const list = byClient.get(client)!;
      if (!cursor.stopped && cursor.i < list.length) return list[cursor.i++];
      order.pop();
    }
    return null;
  };
  const stack: Struct[] = [];
  const stopStack = () => {
    for (const s of stack) cursors.get(s.id.client)!.stopped = true;
    stack.length = 0;
  };
  let head = next();
  while (head !== null) {
    if (!(head instanceof Y.Skip)) {
      const offset = clockOf(head.id.client) - head.id.clock;
      if (offset < 0) {
        stack.push(head);
        stopStack();
      } else {
        const waitsFor = missing(head);
        if (waitsFor !== null) {
          stack.push(head);
          const cursor = cursors.get(waitsFor);
          const list = byClient.get(waitsFor);
          if (!cursor || cursor.stopped || !list || cursor.i >= list.length) stopStack();
          else {
            head = list[cursor.i++];
            continue;
          }
        } else if (offset < head.length) {
          out.set(head, head instanceof Y.Item ? place(head) : false);
          state.set(head.id.client, head.id.clock + head.length);
        }
      }
    }
    head = stack.pop() ?? next();
  }
  return out;
}
