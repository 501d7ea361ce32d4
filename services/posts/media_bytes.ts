/**
 * What a post's media bytes really are. An image must parse as the type it claims (its header,
 * read by `image-size`, a maintained parser of image headers, rather than hand-written magic
 * numbers), and a document must start with `%PDF-`. The bytes are checked from their first
 * chunks and then streamed on whole: never held in memory.
 */
import { imageSize } from "image-size";
import type { Media } from "./schemas.ts";

/** What is read first to find a file's header: PNG, GIF and most JPEGs need far less. */
const FIRST_BYTES = 64 * 1024;
/** The most read to find it (a JPEG's frame header may follow large EXIF blocks). */
const HEAD_BYTES = 1024 * 1024;

const IMAGE_TYPE_OF: Record<string, string> = {
  jpg: "image/jpeg",
  png: "image/png",
  gif: "image/gif",
};

const LABEL: Record<string, string> = {
  "image/jpeg": "a JPEG image",
  "image/png": "a PNG image",
  "image/gif": "a GIF image",
  "application/pdf": "a PDF document",
};

/** `mediaProblem`'s answer when the header may lie past the bytes read so far. */
const MORE = "\u0000more";

/** Why `head` (a file's first bytes; `complete` when it is the whole file) is not `type`. */
export function mediaProblem(
  filename: string,
  type: string,
  head: Uint8Array,
  complete: boolean,
): string | null {
  const refusal = `${filename} is not ${LABEL[type] ?? type}`;
  if (type === "application/pdf") {
    const magic = new TextDecoder().decode(head.subarray(0, 5));
    return magic === "%PDF-" ? null : refusal;
  }
  try {
    const found = imageSize(head);
    if (IMAGE_TYPE_OF[found.type ?? ""] !== type) return refusal;
    return found.width && found.height ? null : refusal;
  } catch {
    // A JPEG's frame header may lie past `head`: read on before refusing it. PNG and GIF
    // headers come first, so they are refused at once.
    const readOn = !complete && type === "image/jpeg" && head.length < HEAD_BYTES;
    return readOn ? MORE : refusal;
  }
}

/**
 * Checks `body` (the stored bytes of `media`) from its first chunks and answers a stream of the
 * whole of it, or the problem; the stream is cancelled when there is one.
 */
export async function checkedMediaStream(
  media: Pick<Media, "filename" | "content_type">,
  body: ReadableStream<Uint8Array>,
): Promise<{ stream: ReadableStream<Uint8Array> } | { problem: string }> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let done = false;
  let head: Uint8Array = new Uint8Array(0);
  let problem: string | null = null;
  for (let want = FIRST_BYTES;; want = HEAD_BYTES) {
    while (size < want) {
      const next = await reader.read();
      if (next.done) {
        done = true;
        break;
      }
      chunks.push(next.value);
      size += next.value.byteLength;
    }
    head = concat(chunks, size);
    problem = size === 0
      ? `${media.filename} is empty`
      : mediaProblem(media.filename, media.content_type, head, done);
    if (problem !== MORE || want === HEAD_BYTES) break;
  }
  chunks.length = 0;
  if (problem) {
    await reader.cancel().catch(() => {});
    return { problem };
  }
  let headSent = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headSent) {
        headSent = true;
        controller.enqueue(head);
        if (done) controller.close();
        return;
      }
      const next = await reader.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
  return { stream };
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}
