import assert from "node:assert/strict";
import { TEMPLATE_NAMES } from "./message.ts";
import { buildMessage, renderMessage } from "./templates.ts";

Deno.test("every template renders a one-line subject and a text, even with no data", () => {
  for (const name of TEMPLATE_NAMES) {
    const { subject, text } = renderMessage(name, {});
    assert.ok(subject.length > 0 && !/[\r\n]/.test(subject), name);
    assert.ok(text.length > subject.length / 2, name);
    assert.ok(!text.includes("undefined") && !subject.includes("undefined"), name);
    assert.ok(!text.includes("[object Object]"), name);
  }
});

Deno.test("confirm_email shows the 6-digit code", () => {
  const { subject, text } = renderMessage("confirm_email", { code: "042917", name: "Dana" });
  assert.equal(subject, "Confirm your email address");
  assert.match(text, /042917/);
  assert.match(text, /^Hello Dana,/);
});

Deno.test("action templates name the action, the workspace and who acted", () => {
  const data = {
    action_title: "Review the launch post",
    workspace_name: "Marketing",
    actor_name: "Alice",
  };
  for (const name of ["action_created", "action_assigned", "action_completed"] as const) {
    const { subject, text } = renderMessage(name, data);
    assert.match(subject, /Review the launch post/, name);
    assert.match(text, /Alice/, name);
    assert.match(text, /Marketing/, name);
  }
  assert.match(renderMessage("action_created", data).subject, /^New action/);
  assert.match(renderMessage("action_assigned", data).text, /assigned the action/);
  assert.match(renderMessage("action_completed", data).text, /Alice completed the action/);
});

Deno.test("action_response says whether the assignee accepted or declined", () => {
  const base = { title: "Draft FAQ", assignee_name: "Bob" };
  const accepted = renderMessage("action_response", { ...base, response: "accepted" });
  const declined = renderMessage("action_response", { ...base, response: "declined" });
  assert.equal(accepted.subject, "Action accepted: Draft FAQ");
  assert.match(accepted.text, /Bob accepted the action "Draft FAQ"/);
  assert.equal(declined.subject, "Action declined: Draft FAQ");
  assert.match(declined.text, /Bob declined/);
});

Deno.test("user_approved says the user can now log in, with the login URL when given", () => {
  const withUrl = renderMessage("user_approved", { name: "Eve", login_url: "https://cp.test/" });
  assert.match(withUrl.text, /approved/);
  assert.match(withUrl.text, /can now log in at https:\/\/cp\.test\//);
  assert.match(renderMessage("user_approved", {}).text, /can now log in\./);
});

Deno.test("comment templates carry the post title, the commenter and a cut excerpt", () => {
  const long = "word ".repeat(200).trim();
  const added = renderMessage("post_comment_added", {
    post_title: "Q3 roadmap",
    commenter_name: "Carol",
    excerpt: "Can we add numbers here?",
  });
  assert.equal(added.subject, 'New comment on "Q3 roadmap"');
  assert.match(added.text, /Carol commented on your post "Q3 roadmap"/);
  assert.match(added.text, /> Can we add numbers here\?/);

  const reply = renderMessage("post_comment_reply", {
    post_title: "Q3 roadmap",
    replier_name: "Dan",
    body: long,
  });
  assert.match(reply.subject, /reply/);
  assert.match(reply.text, /Dan replied to your comment/);
  assert.ok(reply.text.length < long.length, "the excerpt is cut");
  assert.match(reply.text, /…/);
});

Deno.test("a title with line breaks cannot break the subject into two header lines", () => {
  const { subject } = renderMessage("action_created", { title: "one\r\nBcc: x@evil.test" });
  assert.ok(!/[\r\n]/.test(subject));
});

Deno.test("buildMessage renders the template and trims and lower-cases the recipient", () => {
  const message = buildMessage("dm", "  Alice@Example.TEST ", "user_approved", { name: "Alice" });
  assert.equal(message.to, "alice@example.test");
  assert.equal(message.channel, "dm");
  assert.equal(message.template, "user_approved");
  assert.deepEqual(message.data, { name: "Alice" });
  assert.deepEqual(
    { subject: message.subject, text: message.text },
    renderMessage("user_approved", { name: "Alice" }),
  );
});

Deno.test("code emails link to the web app's screen for the code", () => {
  const confirm = renderMessage("confirm_email", {
    code: "042917",
    url: "https://cp.example/confirm?email=dana%40example.com",
  });
  assert.ok(confirm.text.includes("at https://cp.example/confirm?email=dana%40example.com."));
  const reset = renderMessage("password_reset", {
    code: "042917",
    url: "https://cp.example/reset?email=dana%40example.com",
  });
  assert.ok(reset.text.includes("at https://cp.example/reset?email=dana%40example.com;"));
});
