/**
 * bench:publish -- publishing big media without holding it: wall time and the service's peak RSS.
 *
 * Starts the service as `deno task start` runs it, in its own process, with the loopback fake of
 * LinkedIn (tests/fakes/linkedin.ts, in this process: its memory is not the service's), connects
 * LinkedIn, and publishes two posts: one with 20 images of 5 MiB, one with a 50 MiB PDF. The
 * bytes are uploaded through the media upload URLs first. For each publication: the wall time
 * from `POST /publish` to `published`, and the service's peak RSS while it ran against its RSS at
 * rest just before. Goal: the peak grows by less than 64 MiB over rest, whatever the media size.
 *
 * Env: BENCH_IMAGES (20), BENCH_IMAGE_MIB (5), BENCH_DOCUMENT_MIB (50); BENCH_ROOT and the
 * others of service_process.ts.
 */
import { startFakeLinkedIn } from "../../tests/fakes/linkedin.ts";
import {
  Api,
  MiB,
  mib,
  peakDuring,
  restingRss,
  sleep,
  startService,
  stopService,
} from "./service_process.ts";

const num = (name: string, fallback: number) => Number(Deno.env.get(name) ?? fallback);
const IMAGES = num("BENCH_IMAGES", 20);
const IMAGE_MIB = num("BENCH_IMAGE_MIB", 5);
const DOCUMENT_MIB = num("BENCH_DOCUMENT_MIB", 50);
const GOAL_MIB = 64;

/** A PNG of `size` bytes: a real 1×1 header, then filler LinkedIn never looks into. */
function pngHeader(): Uint8Array {
  return Uint8Array.from(
    atob(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    ),
    (c) => c.charCodeAt(0),
  );
}

/** `size` bytes starting with `head`, generated 1 MiB at a time (never whole in memory). */
function bytesOf(head: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= size) return controller.close();
      const chunk = new Uint8Array(Math.min(MiB, size - sent));
      if (sent === 0) chunk.set(head.subarray(0, chunk.length));
      else crypto.getRandomValues(chunk.subarray(0, Math.min(chunk.length, 65_536)));
      sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
}

async function addMedia(
  api: Api,
  wsId: string,
  postId: string,
  filename: string,
  contentType: string,
  size: number,
  head: Uint8Array,
): Promise<void> {
  const media = await api.call("POST", `/api/posts/${postId}/media`, {
    workspace_id: wsId,
    filename,
    contentType,
    size,
  });
  const res = await fetch(media.uploadUrl, {
    method: "PUT",
    headers: { "content-type": contentType, "content-length": String(size) },
    body: bytesOf(head, size),
  });
  await res.body?.cancel();
  if (res.status !== 200) throw new Error(`upload of ${filename}: ${res.status}`);
}

/** Connects the workspace's LinkedIn through the fake's consent, as a browser would. */
async function connect(api: Api, wsId: string): Promise<void> {
  const started = await fetch(`${api.url}/api/workspaces/${wsId}/linkedin/connect`, {
    method: "POST",
    headers: { authorization: `Bearer ${api.token}` },
  });
  const { authorize_url } = await started.json();
  const cookie = started.headers.getSetCookie().find((c) => c.startsWith("cp_linkedin_connect="))!
    .split(";")[0];
  const consent = await fetch(authorize_url, { redirect: "manual" });
  await consent.body?.cancel();
  const back = await fetch(consent.headers.get("location")!, {
    redirect: "manual",
    headers: { cookie },
  });
  await back.body?.cancel();
  if (back.status !== 302) throw new Error(`LinkedIn connect: ${back.status}`);
}

async function publish(api: Api, wsId: string, postId: string): Promise<void> {
  await api.call("POST", `/api/posts/${postId}/publish`, { workspace_id: wsId }, [202]);
  while (true) {
    const post = await api.call("GET", `/api/posts/${postId}?workspaceId=${wsId}`);
    if (post.status === "published") return;
    if (post.publish_error) throw new Error(`publishing failed: ${post.publish_error}`);
    await sleep(100);
  }
}

async function main() {
  const fake = startFakeLinkedIn();
  const dataDir = await Deno.makeTempDir({ prefix: "bench-publish-" });
  const service = await startService(dataDir, {
    LINKEDIN_CLIENT_ID: fake.clientId,
    LINKEDIN_CLIENT_SECRET: fake.clientSecret,
    LINKEDIN_AUTH_URL: fake.authUrl,
    LINKEDIN_API_URL: fake.apiUrl,
  });
  const results: Record<string, number> = {};
  try {
    const api = new Api(service.url);
    await api.login();
    const ws = await api.call("POST", "/api/workspaces", { name: "Bench publishing" });
    const wsId = ws.workspace_id;
    await connect(api, wsId);
    const post = async (content: string) =>
      (await api.call("POST", "/api/posts", { workspace_id: wsId, content })).post_id as string;
    const gallery = await post("Twenty pictures");
    for (let i = 0; i < IMAGES; i++) {
      await addMedia(api, wsId, gallery, `p${i}.png`, "image/png", IMAGE_MIB * MiB, pngHeader());
    }
    const deck = await post("A big deck");
    const pdfHead = new TextEncoder().encode("%PDF-1.7\n");
    await addMedia(api, wsId, deck, "deck.pdf", "application/pdf", DOCUMENT_MIB * MiB, pdfHead);
    for (const [name, id] of [["images", gallery], ["document", deck]] as const) {
      // At rest: the uploads' buffers collected, the password hasher's worker gone.
      const rest = await restingRss(service.pid);
      const run = await peakDuring(service.pid, () => publish(api, wsId, id));
      const grew = run.peak - rest;
      results[`${name}_seconds`] = Number(run.seconds.toFixed(2));
      results[`${name}_rest_rss_mib`] = Math.round(rest / MiB);
      results[`${name}_peak_rss_mib`] = Math.round(run.peak / MiB);
      results[`${name}_growth_mib`] = Math.round(grew / MiB);
      const label = name === "images"
        ? `${IMAGES} images of ${IMAGE_MIB} MiB`
        : `a ${DOCUMENT_MIB} MiB PDF`;
      console.log(
        `${label}: published in ${run.seconds.toFixed(2)} s; RSS at rest ${mib(rest)}, ` +
          `peak ${mib(run.peak)} (+${mib(grew)}; goal < ${GOAL_MIB} MiB)`,
      );
    }
    const uploaded = fake.uploads.reduce((sum, u) => sum + u.bytes, 0);
    console.log(`LinkedIn received ${fake.uploads.length} uploads, ${mib(uploaded)} in all`);
    console.log(JSON.stringify(results));
  } finally {
    await stopService(service);
    await fake.close();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
}

await main();
