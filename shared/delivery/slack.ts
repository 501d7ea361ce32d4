/**
 * The two Slack Web API methods a direct message needs: `users.lookupByEmail` to find the
 * recipient and `chat.postMessage` with the user id as the channel (Slack opens the DM).
 */

export const DEFAULT_SLACK_API_URL = "https://slack.com/api";

export interface SlackClientOptions {
  token: string;
  /** The Web API base, `https://slack.com/api` unless pointed elsewhere (tests). */
  apiUrl?: string;
  timeoutMs?: number;
}

/** The outcome of one DM: sent, or no Slack user has that email (permanent, not retried). */
export type SlackDmResult = { status: "sent"; userId: string; ts?: string } | {
  status: "user_not_found";
};

/** A Slack failure worth retrying (rate limit, server error, network) or a misconfiguration. */
export class SlackError extends Error {
  constructor(
    message: string,
    readonly method: string,
    readonly code: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = "SlackError";
  }
}

interface SlackAnswer {
  ok?: boolean;
  error?: string;
  [key: string]: unknown;
}

export class SlackClient {
  private readonly apiUrl: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: SlackClientOptions) {
    this.apiUrl = (options.apiUrl ?? DEFAULT_SLACK_API_URL).replace(/\/+$/, "");
    this.timeoutMs = options.timeoutMs ?? 15_000;
  }

  private async call(
    method: string,
    body: { form: Record<string, string> } | { json: Record<string, unknown> },
  ): Promise<SlackAnswer> {
    const headers = new Headers({ authorization: `Bearer ${this.options.token}` });
    let payload: string;
    if ("form" in body) {
      headers.set("content-type", "application/x-www-form-urlencoded");
      payload = new URLSearchParams(body.form).toString();
    } else {
      headers.set("content-type", "application/json; charset=utf-8");
      payload = JSON.stringify(body.json);
    }
    let res: Response;
    try {
      res = await fetch(`${this.apiUrl}/${method}`, {
        method: "POST",
        headers,
        body: payload,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw new SlackError(
        `Slack ${method} failed: ${err instanceof Error ? err.message : String(err)}`,
        method,
        "network_error",
      );
    }
    const retryAfter = Number(res.headers.get("retry-after")) || undefined;
    const text = await res.text();
    if (res.status === 429) {
      throw new SlackError(
        `Slack ${method} failed: ratelimited`,
        method,
        "ratelimited",
        retryAfter,
      );
    }
    if (!res.ok) {
      throw new SlackError(
        `Slack ${method} failed: HTTP ${res.status} ${text.slice(0, 200)}`,
        method,
        `http_${res.status}`,
      );
    }
    let answer: SlackAnswer;
    try {
      answer = JSON.parse(text);
    } catch {
      throw new SlackError(`Slack ${method} failed: answer is not JSON`, method, "invalid_answer");
    }
    if (typeof answer !== "object" || answer === null) {
      throw new SlackError(`Slack ${method} failed: answer is not an object`, method, "invalid");
    }
    return answer;
  }

  private fail(method: string, answer: SlackAnswer): never {
    const code = typeof answer.error === "string" ? answer.error : "unknown_error";
    throw new SlackError(`Slack ${method} failed: ${code}`, method, code);
  }

  /** The Slack user id for `email`, or null when Slack knows no such user. */
  async lookupUserByEmail(email: string): Promise<string | null> {
    const answer = await this.call("users.lookupByEmail", { form: { email } });
    if (answer.ok === true) {
      const user = answer.user as { id?: unknown } | undefined;
      if (typeof user?.id === "string" && user.id) return user.id;
      throw new SlackError(
        "Slack users.lookupByEmail failed: answer has no user id",
        "users.lookupByEmail",
        "invalid_answer",
      );
    }
    if (answer.error === "users_not_found") return null;
    this.fail("users.lookupByEmail", answer);
  }

  /** Posts `text` to `channel` (a user id opens the DM with that user). */
  async postMessage(channel: string, text: string): Promise<{ ts?: string }> {
    const answer = await this.call("chat.postMessage", { json: { channel, text } });
    if (answer.ok !== true) this.fail("chat.postMessage", answer);
    return { ts: typeof answer.ts === "string" ? answer.ts : undefined };
  }

  /** Looks the recipient up by email and sends the DM; throws on any retryable failure. */
  async sendDirectMessage(email: string, text: string): Promise<SlackDmResult> {
    const userId = await this.lookupUserByEmail(email);
    if (!userId) return { status: "user_not_found" };
    const { ts } = await this.postMessage(userId, text);
    return { status: "sent", userId, ts };
  }
}
