/**
 * Byte streams over lent chunks: chunks that stay valid only until the producer is asked for
 * the next one (views into one reused buffer). The stream copies each chunk into the reader's
 * own buffer (a BYOB reader, e.g. the file store's) or, for a default reader, into a fresh
 * chunk, so a reader that reads into one buffer makes a backup or a restore allocate nothing
 * per chunk: what keeps their memory flat without `--expose-gc`.
 */

/** `next` answers the next lent chunk, or null at the end; it is only called once the previous one is copied. */
export function lentStream(
  next: () => Promise<Uint8Array | null>,
  cancel?: (reason: unknown) => void | Promise<void>,
): ReadableStream<Uint8Array> {
  let rest: Uint8Array | null = null;
  return new ReadableStream({
    type: "bytes",
    async pull(controller) {
      while (rest === null || rest.length === 0) {
        const chunk = await next();
        if (chunk === null) {
          controller.close();
          controller.byobRequest?.respond(0);
          return;
        }
        rest = chunk;
      }
      const request = controller.byobRequest;
      if (request?.view) {
        const view = new Uint8Array(
          request.view.buffer,
          request.view.byteOffset,
          request.view.byteLength,
        );
        const n = Math.min(view.length, rest.length);
        view.set(rest.subarray(0, n));
        rest = rest.subarray(n);
        request.respond(n);
      } else {
        controller.enqueue(rest.slice());
        rest = null;
      }
    },
    cancel: (reason) => cancel?.(reason),
  });
}

/** A lent stream over a generator of lent chunks (each valid until the generator resumes). */
export function lentStreamFrom(chunks: AsyncGenerator<Uint8Array>): ReadableStream<Uint8Array> {
  return lentStream(
    async () => {
      const step = await chunks.next();
      return step.done ? null : step.value;
    },
    async () => void await chunks.return(undefined),
  );
}

/**
 * A sink whose chunks become the body `consume` reads: `write` resolves once the consumer has
 * taken all of the chunk (so the caller may reuse its memory), and fails as soon as the
 * consumer does, or finishes before `close`.
 */
export function handoffSink(consume: (body: ReadableStream<Uint8Array>) => Promise<unknown>) {
  let ask = Promise.withResolvers<(chunk: Uint8Array | null) => void>();
  const body = lentStream(() => new Promise((give) => ask.resolve(give)));
  const done = consume(body);
  const early = done.then(() => {
    throw new Error("The receiver finished before the data was sent");
  });
  early.catch(() => {});
  done.catch(() => {});
  const offer = async (chunk: Uint8Array | null) => {
    const give = await Promise.race([ask.promise, early]);
    ask = Promise.withResolvers();
    give(chunk);
  };
  return {
    async write(chunk: Uint8Array) {
      if (chunk.length === 0) return;
      await offer(chunk);
      // The stream asks again only once it has copied all of the chunk.
      await Promise.race([ask.promise, early]);
    },
    async close() {
      await offer(null);
      await done;
    },
  };
}
