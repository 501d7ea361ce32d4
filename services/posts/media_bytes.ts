/**
 * What a post's media bytes really are. An image must parse as the type it claims (its header,
 * read by `image-size`, a maintained parser of image headers, rather than hand-written magic
 * numbers), and a document must start with `%PDF-`. The bytes are checked from their first
 * chunks and then streamed on whole: never held in memory.
 */
import { imageSize } from "image-size";
import type { Media } from "./schemas.ts";

/** Enough of a file to read its header (a JPEG's frame header may follow large EXIF blocks). */
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
    // A header cut by the end of `head` is unreadable only because `head` is short.
    return complete || head.length < HEAD_BYTES ? refusal : `${filename} could not be read`;
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
  while (size < HEAD_BYTES) {
    const next = await reader.read();
    if (next.done) {
      done = true;
      break;
    }
    chunks.push(next.value);
    size += next.value.byteLength;
  }
  const head = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    head.set(chunk, at);
    at += chunk.byteLength;
  }
  chunks.length = 0;
  const problem = size === 0
    ? `${media.filename} is empty`
    : mediaProblem(media.filename, media.content_type, head, done);
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
