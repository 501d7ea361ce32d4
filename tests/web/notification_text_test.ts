import assert from "node:assert/strict";
import {
  describeNotification,
  notificationHref,
} from "../../services/web/src/components/notification_text.ts";

const n = (template: string, data: Record<string, unknown>) => ({ template, data });

Deno.test("every template the services send reads as a sentence, with its detail", () => {
  const cases: [string, Record<string, unknown>, string, string?][] = [
    [
      "mentioned",
      { actor_name: "Ann", post_title: "Launch", excerpt: "Hi @Bob" },
      "Ann mentioned you on “Launch”",
      "Hi @Bob",
    ],
    [
      "member_added",
      { actor_name: "Ann", workspace_name: "Team", role: "editor" },
      "Ann added you to “Team” as editor",
    ],
    [
      "account_pending",
      { name: "Zoe", email: "zoe@example.test" },
      "Zoe (zoe@example.test) confirmed their email and awaits approval",
    ],
    [
      "review_requested",
      { actor_name: "Ann", post_title: "Launch", note: "Quick one" },
      "Ann asked you to review “Launch”",
      "Quick one",
    ],
    [
      "review_requested",
      { post_title: "Launch", reason: "approved_text_changed" },
      "“Launch” changed after it was approved and needs your review again",
    ],
    [
      "review_decided",
      { actor_name: "Clara", post_title: "Launch", decision: "approve" },
      "Clara approved “Launch”",
    ],
    [
      "review_decided",
      { actor_name: "Clara", post_title: "Launch", decision: "request_changes", note: "Shorter" },
      "Clara requested changes to “Launch”",
      "Shorter",
    ],
    ["post_published", { post_title: "Launch" }, "“Launch” is live on LinkedIn"],
    [
      "publish_failed",
      { post_title: "Launch", error: "Token expired" },
      "“Launch” could not be published",
      "Token expired",
    ],
    [
      "publish_failed",
      { post_title: "Launch", part: "first_comment" },
      "“Launch” is on LinkedIn, but its first comment could not be posted",
    ],
    [
      "post_comment_added",
      { commenter_name: "Bob", post_title: "Launch", excerpt: "Nice" },
      "Bob commented on your post “Launch”",
      "Nice",
    ],
    [
      "post_comment_reply",
      { actor_name: "Bob", post_title: "Launch" },
      "Bob replied to your comment on “Launch”",
    ],
    [
      "action_created",
      { actor_name: "Ann", action_title: "Call Zoe" },
      "Ann created the action “Call Zoe”",
    ],
    ["action_assigned", { actor_name: "Ann", title: "Call Zoe" }, "Ann assigned you “Call Zoe”"],
    [
      "action_completed",
      { actor_name: "Bob", action_title: "Call Zoe" },
      "Bob completed “Call Zoe”",
    ],
    [
      "action_response",
      { actor_name: "Bob", action_title: "Call Zoe", response: "declined" },
      "Bob declined “Call Zoe”",
    ],
    ["user_approved", {}, "Your account was approved"],
    [
      "linkedin_expiring",
      { workspace_name: "Team" },
      "The LinkedIn connection of Team expires soon",
    ],
    ["mentioned", {}, "Someone mentioned you on a post"],
    ["something_new", {}, "You have a new message"],
  ];
  for (const [template, data, text, detail] of cases) {
    const got = describeNotification(n(template, data));
    assert.equal(got.text, text, template);
    assert.equal(got.detail, detail, `${template} detail`);
  }
});

Deno.test("a notification opens the path of its url, else one built from its ids", () => {
  assert.equal(
    notificationHref(
      n("mentioned", { url: "http://127.0.0.1:8000/workspaces/w1/posts/p1?comment=c1" }),
    ),
    "/workspaces/w1/posts/p1?comment=c1",
  );
  assert.equal(
    notificationHref(n("mentioned", { workspace_id: "w1", post_id: "p1", comment_id: "c1" })),
    "/workspaces/w1/posts/p1?comment=c1",
  );
  assert.equal(
    notificationHref(n("review_decided", { workspace_id: "w 1", post_id: "p1" })),
    "/workspaces/w%201/posts/p1",
  );
  assert.equal(
    notificationHref(n("action_assigned", { workspace_id: "w1", action_id: "a1" })),
    "/workspaces/w1/actions?action=a1",
  );
  assert.equal(notificationHref(n("account_pending", {})), "/admin?tab=pending");
  assert.equal(notificationHref(n("member_added", { workspace_id: "w1" })), "/workspaces/w1/ideas");
  assert.equal(notificationHref(n("user_approved", {})), null);
  // a url that is not http(s) is never followed
  assert.equal(notificationHref(n("mentioned", { url: "javascript:alert(1)" })), null);
});
