import type { OutgoingMessage, TemplateName } from "./message.ts";

/**
 * The data each template reads. Every field is optional: a missing one is replaced by a neutral
 * phrase, so a message is always readable. Aliases are accepted so that callers can pass the
 * record they already have (an action's `title`, a user's `name`).
 *
 * - `confirm_email`: `code` (the 6-digit code), `name`, `url` (the confirm screen)
 * - `password_reset`: `code` (the 6-digit code, valid 30 minutes), `name`, `url` (the reset screen)
 * - `action_created`, `action_assigned`, `action_completed`, `action_response`:
 *   `action_title` (or `title`), `workspace_name` (or `workspace`), `actor_name` (who did it;
 *   or `by_name`, `creator_name`, `assignee_name`), `response` (`accepted` | `declined`, for
 *   `action_response`), `description`, `due_date`, `url`
 * - `user_approved`: `name`, `login_url`
 * - `post_comment_added`, `post_comment_reply`: `post_title`, `commenter_name` (or
 *   `replier_name`, `actor_name`, `author_name`), `excerpt` (or `body`, `comment`),
 *   `workspace_name`, `url`
 * - `review_requested`: `post_title`, `actor_name` (who asked), `note`, `reason`
 *   (`approved_text_changed` when an approval was withdrawn by an edit), `url`
 * - `review_decided`: `post_title`, `actor_name` (the reviewer), `decision` (`approve` |
 *   `request_changes`), `note`, `url`
 * - `post_published`: `post_title`, `linkedin_post_url`, `url`
 * - `publish_failed`: `post_title`, `error` (the post's `publish_error`), `url`, and `part`
 *   (`first_comment` when the post went out and its first comment did not)
 * - `linkedin_expiring`: `member_name`, `workspace_name`, `expires_at`, `url` (the settings)
 * - `mentioned`: `post_title`, `actor_name` (who mentioned), `excerpt`, `post_id`, `comment_id`,
 *   `url`
 * - `member_added`: `workspace_name`, `actor_name` (who added), `role`, `url`
 * - `account_pending`: `name`, `email` (the account), `url` (the admin screen)
 */
export type TemplateData = Record<string, unknown>;

export interface RenderedMessage {
  subject: string;
  text: string;
}

const SIGNATURE = "\n\n-- \nContent Pipeline";
const EXCERPT_LIMIT = 280;
const SUBJECT_TITLE_LIMIT = 120;

/** The first of `keys` whose value in `data` is a non-blank string or a number. */
function pick(data: TemplateData, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = data[key];
    if (typeof value === "number" && Number.isFinite(value)) return String(value);
    if (typeof value === "string" && value.trim()) return value.trim();
  }
  return undefined;
}

/** One line: line breaks and runs of blanks collapsed, cut at a word boundary to `max`. */
function oneLine(text: string, max: number): string {
  return cut(text.replace(/\s+/g, " ").trim(), max);
}

function cut(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  const head = chars.slice(0, max - 1).join("");
  const space = head.lastIndexOf(" ");
  return (space > max / 2 ? head.slice(0, space) : head).trimEnd() + "…";
}

/** A quoted excerpt, each line prefixed with `> `. */
function quote(text: string): string {
  return cut(text.trim(), EXCERPT_LIMIT).split(/\r?\n/).map((l) => `> ${l}`.trimEnd()).join(
    "\n",
  );
}

function greeting(data: TemplateData): string {
  const name = pick(data, "name", "recipient_name");
  return name ? `Hello ${oneLine(name, 100)},` : "Hello,";
}

function actionParts(data: TemplateData) {
  const title = oneLine(pick(data, "action_title", "title") ?? "an action", SUBJECT_TITLE_LIMIT);
  const workspace = pick(data, "workspace_name", "workspace");
  return {
    title,
    where: workspace ? ` in the workspace "${oneLine(workspace, 100)}"` : "",
    who: oneLine(
      pick(data, "actor_name", "by_name", "creator_name", "assignee_name", "who") ?? "A teammate",
      100,
    ),
  };
}

function actionDetails(data: TemplateData): string {
  const lines: string[] = [];
  const description = pick(data, "description");
  const due = pick(data, "due_date");
  const url = pick(data, "url");
  if (description) lines.push(`\n\nDescription:\n${quote(description)}`);
  if (due) lines.push(`\n\nDue: ${oneLine(due, 60)}`);
  if (url) lines.push(`\n\nOpen it here: ${url}`);
  return lines.join("");
}

function commentParts(data: TemplateData) {
  const postTitle = oneLine(pick(data, "post_title", "title") ?? "your post", SUBJECT_TITLE_LIMIT);
  const who = oneLine(
    pick(data, "commenter_name", "replier_name", "actor_name", "author_name") ?? "A teammate",
    100,
  );
  const excerpt = pick(data, "excerpt", "body", "comment");
  const workspace = pick(data, "workspace_name", "workspace");
  const url = pick(data, "url");
  return {
    postTitle,
    who,
    where: workspace ? ` in the workspace "${oneLine(workspace, 100)}"` : "",
    tail: (excerpt ? `:\n\n${quote(excerpt)}` : ".") + (url ? `\n\nOpen the post: ${url}` : ""),
  };
}

function postTitleOf(data: TemplateData): string {
  return oneLine(pick(data, "post_title", "title") ?? "a post", SUBJECT_TITLE_LIMIT);
}

function openPost(data: TemplateData): string {
  const url = pick(data, "url");
  return url ? `\n\nOpen the post: ${url}` : "";
}

function noteOf(data: TemplateData): string {
  const note = pick(data, "note");
  return note ? `\n\nNote:\n${quote(note)}` : "";
}

const RENDERERS: Record<TemplateName, (data: TemplateData) => RenderedMessage> = {
  review_requested(data) {
    const title = postTitleOf(data);
    const who = oneLine(pick(data, "actor_name", "requester_name") ?? "A teammate", 100);
    const changed = pick(data, "reason") === "approved_text_changed";
    return {
      subject: `Review requested: ${title}`,
      text:
        (changed
          ? `The text of "${title}" changed after it was approved, so it needs your review again.`
          : `${who} asked you to review the post "${title}".`) +
        noteOf(data) + openPost(data) +
        SIGNATURE,
    };
  },
  review_decided(data) {
    const title = postTitleOf(data);
    const who = oneLine(pick(data, "actor_name", "reviewer_name") ?? "A reviewer", 100);
    const approved = pick(data, "decision") === "approve";
    return {
      subject: approved ? `Approved: ${title}` : `Changes requested: ${title}`,
      text: `${who} ${approved ? "approved" : "requested changes to"} your post "${title}".` +
        noteOf(data) + openPost(data) + SIGNATURE,
    };
  },
  post_published(data) {
    const title = postTitleOf(data);
    const link = pick(data, "linkedin_post_url");
    return {
      subject: `Published on LinkedIn: ${title}`,
      text: `The post "${title}" is live on LinkedIn.` +
        (link ? `\n\nSee it on LinkedIn: ${link}` : "") + openPost(data) + SIGNATURE,
    };
  },
  publish_failed(data) {
    const title = postTitleOf(data);
    const error = pick(data, "error", "publish_error");
    if (pick(data, "part") === "first_comment") {
      return {
        subject: `First comment failed: ${title}`,
        text: `The post "${title}" is published on LinkedIn, but its first comment could not ` +
          "be posted." + (error ? `\n\nReason: ${oneLine(error, 500)}` : "") + openPost(data) +
          SIGNATURE,
      };
    }
    return {
      subject: `Publishing failed: ${title}`,
      text: `The post "${title}" could not be published on LinkedIn.` +
        (error ? `\n\nReason: ${oneLine(error, 500)}` : "") + openPost(data) + SIGNATURE,
    };
  },
  linkedin_expiring(data) {
    const member = pick(data, "member_name", "name");
    const workspace = pick(data, "workspace_name", "workspace");
    const expires = pick(data, "expires_at");
    const url = pick(data, "url");
    return {
      subject: "Your LinkedIn connection expires soon",
      text: `The LinkedIn connection${member ? ` of ${oneLine(member, 100)}` : ""}` +
        `${workspace ? ` in the workspace "${oneLine(workspace, 100)}"` : ""} expires` +
        `${expires ? ` on ${oneLine(expires, 60)}` : " in 7 days"}. Scheduled posts cannot be ` +
        "published after that; connect LinkedIn again to renew it." +
        (url ? `\n\nOpen the settings: ${url}` : "") + SIGNATURE,
    };
  },
  confirm_email(data) {
    const code = pick(data, "code") ?? "";
    return {
      subject: "Confirm your email address",
      text: `${greeting(data)}\n\nThank you for signing up for Content Pipeline. ` +
        `Your confirmation code is:\n\n    ${code}\n\n` +
        "Enter this code to confirm your email address" +
        (pick(data, "url") ? ` at ${pick(data, "url")}` : "") +
        ". If you did not sign up, you can ignore this message." + SIGNATURE,
    };
  },
  password_reset(data) {
    const code = pick(data, "code") ?? "";
    return {
      subject: "Reset your password",
      text: `${greeting(data)}\n\nSomeone asked to reset the password of your Content Pipeline ` +
        `account. Your reset code is:\n\n    ${code}\n\n` +
        "Enter this code with your new password" +
        (pick(data, "url") ? ` at ${pick(data, "url")}` : "") +
        "; it is valid for 30 minutes. Resetting signs " +
        "you out everywhere. If you did not ask for this, you can ignore this message: your " +
        "password stays as it is." + SIGNATURE,
    };
  },
  action_created(data) {
    const { title, where, who } = actionParts(data);
    return {
      subject: `New action for you: ${title}`,
      text: `${who} created the action "${title}" for you${where}.` + actionDetails(data) +
        SIGNATURE,
    };
  },
  action_assigned(data) {
    const { title, where, who } = actionParts(data);
    return {
      subject: `Action assigned to you: ${title}`,
      text: `${who} assigned the action "${title}" to you${where}.` + actionDetails(data) +
        SIGNATURE,
    };
  },
  action_completed(data) {
    const { title, where, who } = actionParts(data);
    const url = pick(data, "url");
    return {
      subject: `Action completed: ${title}`,
      text: `${who} completed the action "${title}"${where}.` +
        (url ? `\n\nOpen it here: ${url}` : "") + SIGNATURE,
    };
  },
  action_response(data) {
    const { title, where, who } = actionParts(data);
    const response = pick(data, "response", "assignee_response")?.toLowerCase();
    const verb = response === "accepted"
      ? "accepted"
      : response === "declined"
      ? "declined"
      : "responded to";
    const url = pick(data, "url");
    return {
      subject: verb === "responded to"
        ? `Response to your action: ${title}`
        : `Action ${verb}: ${title}`,
      text: `${who} ${verb} the action "${title}"${where}.` +
        (url ? `\n\nOpen it here: ${url}` : "") + SIGNATURE,
    };
  },
  user_approved(data) {
    const loginUrl = pick(data, "login_url");
    return {
      subject: "Your Content Pipeline account has been approved",
      text: `${greeting(data)}\n\nYour Content Pipeline account has been approved. ` +
        (loginUrl ? `You can now log in at ${loginUrl}` : "You can now log in.") + SIGNATURE,
    };
  },
  post_comment_added(data) {
    const { postTitle, who, where, tail } = commentParts(data);
    return {
      subject: `New comment on "${postTitle}"`,
      text: `${who} commented on your post "${postTitle}"${where}` + tail + SIGNATURE,
    };
  },
  post_comment_reply(data) {
    const { postTitle, who, where, tail } = commentParts(data);
    return {
      subject: `New reply to your comment on "${postTitle}"`,
      text: `${who} replied to your comment on the post "${postTitle}"${where}` + tail +
        SIGNATURE,
    };
  },
  mentioned(data) {
    const { postTitle, who, tail } = commentParts(data);
    return {
      subject: `${who} mentioned you on "${postTitle}"`,
      text: `${who} mentioned you in a comment on the post "${postTitle}"` + tail + SIGNATURE,
    };
  },
  member_added(data) {
    const workspace = pick(data, "workspace_name", "workspace") ?? "a workspace";
    const who = pick(data, "actor_name") ?? "Someone";
    const role = pick(data, "role");
    const url = pick(data, "url");
    return {
      subject: `You were added to ${oneLine(workspace, SUBJECT_TITLE_LIMIT)}`,
      text: `${who} added you to the workspace "${oneLine(workspace, 200)}"` +
        (role ? ` as ${role}` : "") + "." + (url ? `\n\nOpen it: ${url}` : "") + SIGNATURE,
    };
  },
  account_pending(data) {
    const name = pick(data, "name");
    const email = pick(data, "email");
    const url = pick(data, "url");
    const who = [name, email ? `<${email}>` : undefined].filter(Boolean).join(" ") ||
      "A new account";
    return {
      subject: "An account awaits your approval",
      text: `${who} confirmed their email and awaits approval.` +
        (url ? `\n\nReview it: ${url}` : "") + SIGNATURE,
    };
  },
};

/** Renders the subject and plain text of one of the templates. */
export function renderMessage(template: TemplateName, data: TemplateData): RenderedMessage {
  const render = RENDERERS[template];
  if (!render) throw new Error(`Cannot render message: unknown template "${template}"`);
  return render(data);
}

/**
 * An outgoing message ready to queue: rendered now, so the queue carries exactly what will be
 * sent. `to` is compared and stored trimmed and lower-cased.
 */
export function buildMessage(
  channel: OutgoingMessage["channel"],
  to: string,
  template: TemplateName,
  data: TemplateData,
): OutgoingMessage {
  const { subject, text } = renderMessage(template, data);
  return { channel, to: to.trim().toLowerCase(), template, subject, text, data };
}
