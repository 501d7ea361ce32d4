/**
 * A notification as a sentence a person reads ("Bob mentioned you on “Launch day”"), with the
 * detail under it (the excerpt, the note, the reason), and the app path it opens: the path of
 * its `data.url` (the same deep links emails use), else one built from its ids.
 */

export interface NotificationLike {
  template: string;
  data: Record<string, unknown>;
}

/** The first of `keys` whose value is a non-blank string or a number, trimmed. */
function pick(data: Record<string, unknown>, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = data[key];
    if (typeof value === "number" && Number.isFinite(value)) return String(value);
    if (typeof value === "string" && value.trim()) return value.trim();
  }
  return undefined;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}

function quoted(title: string | undefined, fallback: string): string {
  return title ? `“${oneLine(title, 80)}”` : fallback;
}

export interface NotificationSentence {
  text: string;
  detail?: string;
}

/** Every template the services send, as a sentence; an unknown one still reads sensibly. */
export function describeNotification(n: NotificationLike): NotificationSentence {
  const d = n.data ?? {};
  const post = quoted(pick(d, "post_title", "title"), "a post");
  const actor = (...more: string[]) => oneLine(pick(d, "actor_name", ...more) ?? "Someone", 60);
  const excerpt = pick(d, "excerpt", "body", "comment");
  const note = pick(d, "note");
  const withDetail = (text: string, detail?: string): NotificationSentence =>
    detail ? { text, detail: oneLine(detail, 160) } : { text };
  switch (n.template) {
    case "mentioned":
      return withDetail(`${actor()} mentioned you on ${post}`, excerpt);
    case "post_comment_added":
      return withDetail(
        `${actor("commenter_name", "author_name")} commented on your post ${post}`,
        excerpt,
      );
    case "post_comment_reply":
      return withDetail(
        `${
          actor("replier_name", "commenter_name", "author_name")
        } replied to your comment on ${post}`,
        excerpt,
      );
    case "review_requested":
      return pick(d, "reason") === "approved_text_changed"
        ? withDetail(`${post} changed after it was approved and needs your review again`, note)
        : withDetail(`${actor("requester_name")} asked you to review ${post}`, note);
    case "review_decided":
      return pick(d, "decision") === "approve"
        ? withDetail(`${actor("reviewer_name")} approved ${post}`, note)
        : withDetail(`${actor("reviewer_name")} requested changes to ${post}`, note);
    case "post_published":
      return { text: `${post} is live on LinkedIn` };
    case "publish_failed":
      return pick(d, "part") === "first_comment"
        ? withDetail(
          `${post} is on LinkedIn, but its first comment could not be posted`,
          pick(d, "error", "publish_error"),
        )
        : withDetail(`${post} could not be published`, pick(d, "error", "publish_error"));
    case "linkedin_expiring": {
      const where = pick(d, "workspace_name", "workspace");
      return {
        text: `The LinkedIn connection${where ? ` of ${oneLine(where, 60)}` : ""} expires soon`,
      };
    }
    case "member_added": {
      const where = pick(d, "workspace_name", "workspace");
      const role = pick(d, "role");
      return {
        text: `${actor()} added you to ${where ? `“${oneLine(where, 60)}”` : "a workspace"}${
          role ? ` as ${role}` : ""
        }`,
      };
    }
    case "account_pending": {
      const name = pick(d, "name");
      const email = pick(d, "email");
      const who = name && email ? `${name} (${email})` : name ?? email ?? "A new account";
      return { text: `${oneLine(who, 80)} confirmed their email and awaits approval` };
    }
    case "user_approved":
      return { text: "Your account was approved" };
    case "action_created":
    case "action_assigned":
    case "action_completed":
    case "action_response": {
      const title = quoted(pick(d, "action_title", "title"), "an action");
      const who = actor("by_name", "creator_name", "assignee_name");
      if (n.template === "action_created") return { text: `${who} created the action ${title}` };
      if (n.template === "action_assigned") return { text: `${who} assigned you ${title}` };
      if (n.template === "action_completed") return { text: `${who} completed ${title}` };
      const response = pick(d, "response", "assignee_response")?.toLowerCase();
      const verb = response === "accepted" || response === "declined" ? response : "responded to";
      return { text: `${who} ${verb} ${title}` };
    }
    default:
      return { text: "You have a new message" };
  }
}

/** The in-app path (with its query) of an absolute or root-relative URL; null otherwise. */
function appPath(url: string): string | null {
  try {
    const parsed = new URL(url, "http://app.invalid");
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return null;
    const path = parsed.pathname + parsed.search + parsed.hash;
    return path.startsWith("/") && !path.startsWith("//") ? path : null;
  } catch {
    return null;
  }
}

/** Where a notification leads in the app; null when it names nothing to open. */
export function notificationHref(n: NotificationLike): string | null {
  const d = n.data ?? {};
  const url = pick(d, "url");
  const fromUrl = url ? appPath(url) : null;
  if (fromUrl) return fromUrl;
  const ws = pick(d, "workspace_id");
  const enc = encodeURIComponent;
  if (n.template === "account_pending") return "/admin?tab=pending";
  if (ws && pick(d, "post_id")) {
    const comment = pick(d, "comment_id");
    return `/workspaces/${enc(ws)}/posts/${enc(pick(d, "post_id")!)}${
      comment ? `?comment=${enc(comment)}` : ""
    }`;
  }
  if (ws && pick(d, "action_id")) {
    return `/workspaces/${enc(ws)}/actions?action=${enc(pick(d, "action_id")!)}`;
  }
  if (ws && n.template === "linkedin_expiring") return `/workspaces/${enc(ws)}/settings`;
  if (ws) return `/workspaces/${enc(ws)}/ideas`;
  return null;
}
