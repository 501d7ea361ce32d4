/**
 * What the ZIP writer and reader share: the record signatures, the limits (no Zip64: an
 * archive is limited to 4 GiB and 65,535 entries) and the reading of a stream into reused
 * buffers.
 */

export const LOCAL_HEADER = 0x04034b50;
export const CENTRAL_HEADER = 0x02014b50;
export const END_OF_CENTRAL = 0x06054b50;
export const UTF8_FLAG = 0x0800;
export const MAX_U32 = 0xffff_ffff;
export const MAX_ENTRIES = 0xffff;

/** Raised when an archive would pass the format's limits. */
export class ZipLimitError extends Error {}

/** Raised when the bytes are not a ZIP this reader can follow. */
export class ZipFormatError extends Error {}

/** Size of the reused buffers a stream or file is read into. */
export const CHUNK = 64 * 1024;

/**
 * A stream's chunks, read into `buffers` reused buffers where it is a byte stream (a file, a
 * fetch body): each chunk is lent, valid until `buffers` more have been read (its buffer is
 * then detached, so a view kept longer reads as empty, never as other bytes). Any other stream
 * gives its own chunks.
 */
export async function* lentChunks(
  stream: ReadableStream<Uint8Array>,
  buffers: 1 | 2,
): AsyncGenerator<Uint8Array> {
  let byob: ReadableStreamBYOBReader | null = null;
  try {
    byob = stream.getReader({ mode: "byob" });
  } catch { /* not a byte stream */ }
  if (!byob) {
    yield* stream;
    return;
  }
  let finished = false;
  try {
    const pool = Array.from({ length: buffers }, () => new Uint8Array(CHUNK));
    for (let i = 0;; i = (i + 1) % buffers) {
      const { value, done } = await byob.read(pool[i]);
      if (done || !value) {
        finished = true;
        break;
      }
      pool[i] = new Uint8Array(value.buffer);
      yield value;
    }
  } finally {
    if (!finished) await byob.cancel().catch(() => {});
    byob.releaseLock();
  }
}
