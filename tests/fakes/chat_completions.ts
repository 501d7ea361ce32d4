/**
 * A fake OpenAI-compatible Chat Completions server on loopback: `POST /v1/chat/completions`.
 * Answers are scripted (status, delay, content), one per request in order, then the default;
 * every request body is recorded so a test can assert on what the service sent.
 */
export interface FakeAnswer {
  /** HTTP status; 200 (the default) sends a completion with `content`. */
  status?: number;
  /** Milliseconds to wait before answering. */
  delayMs?: number;
  /** The assistant's text; defaults to `Fake title for: <last user message>` (first 40 chars). */
  content?: string;
  /**
   * The body's `error` object of a non-200 answer, as OpenAI and Ollama send it (for example
   * `{message: 'model "x" not found, try pulling it first'}`); a generic one by default.
   */
  error?: { message: string; type?: string; code?: string | null };
  /** The headers of a non-200 answer; by default `retry-after-ms: 1`, as OpenAI sends one. */
  headers?: Record<string, string>;
}

export interface RecordedChatRequest {
  model: string;
  messages: { role: string; content: string }[];
  authorization: string | null;
  body: Record<string, unknown>;
  at: number;
}

export interface FakeChatCompletions {
  /** The base URL to give as `OPENAI_BASE_URL` (ends in `/v1`). */
  baseUrl: string;
  requests: RecordedChatRequest[];
  /** Queues answers for the next requests, in order. */
  script(...answers: FakeAnswer[]): void;
  /** The answer used once the script is exhausted. */
  setDefault(answer: FakeAnswer): void;
  /** Forgets recorded requests and queued answers, and restores the default answer. */
  reset(): void;
  close(): Promise<void>;
}

export function startFakeChatCompletions(
  options: { defaultAnswer?: FakeAnswer } = {},
): FakeChatCompletions {
  const initialDefault: FakeAnswer = options.defaultAnswer ?? {};
  let defaultAnswer = initialDefault;
  let queue: FakeAnswer[] = [];
  const requests: RecordedChatRequest[] = [];
  const aborts = new AbortController();

  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {}, signal: aborts.signal },
    async (req) => {
      const url = new URL(req.url);
      if (req.method !== "POST" || url.pathname !== "/v1/chat/completions") {
        return Response.json({ error: { message: "not found", type: "invalid_request_error" } }, {
          status: 404,
        });
      }
      const body = await req.json().catch(() => ({})) as Record<string, unknown>;
      const messages = Array.isArray(body.messages)
        ? body.messages as { role: string; content: string }[]
        : [];
      requests.push({
        model: String(body.model ?? ""),
        messages,
        authorization: req.headers.get("authorization"),
        body,
        at: Date.now(),
      });
      const answer = queue.shift() ?? defaultAnswer;
      if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
      const status = answer.status ?? 200;
      if (status !== 200) {
        const type = status === 429 ? "rate_limit_exceeded" : "server_error";
        const error = answer.error ?? { message: `fake error ${status}`, type, code: type };
        return Response.json({ error }, {
          status,
          headers: answer.headers ?? { "retry-after-ms": "1" },
        });
      }
      const lastUser = [...messages].reverse().find((m) => m.role === "user")?.content ?? "";
      const content = answer.content ?? `Fake title for: ${String(lastUser).slice(0, 40)}`;
      return Response.json({
        id: `chatcmpl-${crypto.randomUUID()}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: String(body.model ?? "fake-model"),
        choices: [{
          index: 0,
          message: { role: "assistant", content },
          finish_reason: "stop",
          logprobs: null,
        }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      });
    },
  );

  return {
    baseUrl: `http://127.0.0.1:${server.addr.port}/v1`,
    requests,
    script: (...answers) => {
      queue.push(...answers);
    },
    setDefault: (answer) => {
      defaultAnswer = answer;
    },
    reset: () => {
      requests.length = 0;
      queue = [];
      defaultAnswer = initialDefault;
    },
    async close() {
      aborts.abort();
      await server.finished;
    },
  };
}

/** The service's settings that point its AI backend at `fake`. */
export function fakeAiEnv(fake: FakeChatCompletions): Record<string, string> {
  return { OPENAI_BASE_URL: fake.baseUrl, OPENAI_API_KEY: "test-key", OPENAI_MODEL: "fake-model" };
}
