/**
 * Browser tests of the workspace screens: the switcher and creating a workspace, settings
 * (general, audiences, members), prompts and example posts, and actions with attachments.
 * Each test starts its own stack and browser, so any one of them runs alone.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { api, e2e } from "../helpers/stack.ts";
import { createUser, type TestUser } from "../helpers/users.ts";
import {
  checkA11y,
  type Page,
  PHONE,
  screenshot,
  signIn,
  startWebTest,
  type WebTest,
} from "../helpers/browser.ts";

async function workspaceFor(web: WebTest, owner: TestUser, name: string): Promise<string> {
  const res = await api(web.stack, "POST", "/api/workspaces", {
    token: owner.access_token,
    body: { name },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.workspace_id;
}

async function addMember(
  web: WebTest,
  owner: TestUser,
  workspaceId: string,
  email: string,
  role: "editor" | "viewer",
) {
  const res = await api(web.stack, "POST", `/api/workspaces/${workspaceId}/members`, {
    token: owner.access_token,
    body: { email, role },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
}

/** axe and screenshots of the screen at 1440 and 375 px (back to 1440 afterwards). */
async function lookAt(page: Page, name: string) {
  await checkA11y(page);
  await screenshot(page, `${name}-1440`);
  await page.setViewportSize(PHONE);
  await page.waitForTimeout(100);
  await checkA11y(page);
  await screenshot(page, `${name}-375`);
  const overflow = await page.evaluate(
    "document.documentElement.scrollWidth > document.documentElement.clientWidth",
  );
  assert.equal(overflow, false, `${name}: no horizontal scrolling at 375 px`);
  await page.setViewportSize({ width: 1440, height: 900 });
}

Deno.test(
  "workspaces: create the first workspace from the empty state, another from the switcher; / opens the last one",
  e2e,
  async () => {
    const web = await startWebTest();
    try {
      const user = await createUser(web.stack, { name: "Nora Newcomer" });
      const page = await web.newPage();
      await page.goto(web.stack.url + "/");
      await signIn(page, user.email, user.password);
      // the empty state is the whole screen: its heading is the page's main one
      await page.getByRole("heading", { name: "Create your first workspace", level: 1 }).waitFor();
      await lookAt(page, "workspaces-empty");

      await page.getByLabel("Workspace name").fill("Launch team");
      await page.getByRole("button", { name: "Create workspace" }).click();
      await page.waitForURL(/\/workspaces\/[^/]+\/ideas$/);
      const first = new URL(page.url()).pathname.split("/")[2];
      const switcher = page.getByRole("combobox", { name: "Workspace" });
      assert.equal(await switcher.inputValue(), first);

      // a second workspace through the top bar's dialog
      await page.getByRole("button", { name: "New workspace" }).click();
      const dialog = page.getByRole("dialog", { name: "New workspace" });
      await dialog.waitFor();
      await dialog.getByLabel("Name").fill("Side project");
      await dialog.getByLabel("Description").fill("Posts about the side project");
      await lookAt(page, "workspaces-create-dialog");
      await dialog.getByRole("button", { name: "Create workspace" }).click();
      await page.waitForURL((u) => /\/ideas$/.test(u.pathname) && !u.pathname.includes(first));
      const second = new URL(page.url()).pathname.split("/")[2];
      assert.equal(await switcher.inputValue(), second);

      const listed = await api(web.stack, "GET", "/api/workspaces", { token: user.access_token });
      assert.deepEqual(
        listed.body.workspaces.map((w: { name: string }) => w.name).sort(),
        ["Launch team", "Side project"],
      );
      const side = listed.body.workspaces.find((w: { name: string }) => w.name === "Side project");
      assert.equal(side.description, "Posts about the side project");

      // switching keeps the section; "/" then opens the workspace visited last
      await page.getByRole("link", { name: "Settings" }).click();
      await page.waitForURL(`${web.stack.url}/workspaces/${second}/settings`);
      await switcher.selectOption(first);
      await page.waitForURL(`${web.stack.url}/workspaces/${first}/settings`);
      await page.getByRole("heading", { name: "Workspace settings" }).waitFor();
      await page.goto(web.stack.url + "/");
      await page.waitForURL(`${web.stack.url}/workspaces/${first}/ideas`);

      assert.deepEqual(web.pageErrors, []);
    } finally {
      await web.close();
    }
  },
);

Deno.test(
  "settings: name, publishing slots and audiences saved; a 400 is shown at its field; a viewer sees the form read-only",
  e2e,
  async () => {
    const web = await startWebTest();
    try {
      const owner = await createUser(web.stack, { name: "Olga Owner" });
      const viewer = await createUser(web.stack, { name: "Vic Viewer" });
      const id = await workspaceFor(web, owner, "Launch team");
      await addMember(web, owner, id, viewer.email, "viewer");
      const page = await web.newPage();
      await page.goto(`${web.stack.url}/workspaces/${id}/settings`);
      await signIn(page, owner.email, owner.password);
      await page.getByRole("heading", { name: "Workspace settings" }).waitFor();
      const general = page.getByRole("region", { name: "General" });

      await general.getByRole("textbox", { name: "Name", exact: true }).fill("Launch crew");
      await general.getByRole("textbox", { name: "New slot" }).fill("Mon 09:00");
      await general.getByRole("button", { name: "Add slot" }).click();
      await general.getByRole("textbox", { name: "New slot" }).fill("Thu 14:30");
      await general.getByRole("textbox", { name: "New slot" }).press("Enter");
      await general.getByRole("button", { name: "Save settings" }).click();
      await general.getByRole("status").filter({ hasText: "Saved" }).waitFor();
      const saved = await api(web.stack, "GET", `/api/workspaces/${id}`, {
        token: owner.access_token,
      });
      assert.equal(saved.body.name, "Launch crew");
      assert.deepEqual(saved.body.publishing_slots, ["Mon 09:00", "Thu 14:30"]);
      assert.equal(
        await page.getByRole("combobox", { name: "Workspace" }).locator("option:checked")
          .textContent(),
        "Launch crew",
        "the switcher shows the new name",
      );
      await page.getByRole("region", { name: "Delete workspace" })
        .getByText("Deleting hides Launch crew").waitFor();

      // audiences: rename the first, remove the second, add one
      const audiences = page.getByRole("region", { name: "Audiences" });
      await audiences.getByRole("textbox", { name: "Audience 1" }).fill("Chief executives");
      await audiences.getByRole("button", { name: "Remove audience CTO" }).click();
      await audiences.getByRole("textbox", { name: "New audience" }).fill("Founders");
      await audiences.getByRole("button", { name: "Add audience" }).click();
      await audiences.getByRole("button", { name: "Save audiences" }).click();
      await audiences.getByRole("status").filter({ hasText: "Saved" }).waitFor();
      const list = await api(web.stack, "GET", `/api/audiences?workspaceId=${id}`, {
        token: owner.access_token,
      });
      assert.deepEqual(list.body.items, [
        { id: "CEO", name: "Chief executives" },
        { id: "System Admins", name: "System Admins" },
        { id: "Architects", name: "Architects" },
        { id: "Developers", name: "Developers" },
        { id: "Business People", name: "Business People" },
        { id: "Founders", name: "Founders" },
      ]);

      // the server's 400 lands at the field it names
      const name = general.getByRole("textbox", { name: "Name", exact: true });
      await name.fill("   ");
      await general.getByRole("button", { name: "Save settings" }).click();
      const error = general.locator("#settings-name-error");
      await error.waitFor();
      assert.match((await error.textContent())!, /name is required/);
      assert.equal(await name.getAttribute("aria-invalid"), "true");
      assert.match((await name.getAttribute("aria-describedby"))!, /settings-name-error/);
      const unchanged = await api(web.stack, "GET", `/api/workspaces/${id}`, {
        token: owner.access_token,
      });
      assert.equal(unchanged.body.name, "Launch crew");
      await lookAt(page, "settings");

      // a viewer: the general form is read-only, no invite form, no delete
      const other = await web.newPage();
      await other.goto(`${web.stack.url}/workspaces/${id}/settings`);
      await signIn(other, viewer.email, viewer.password);
      await other.getByText("You are a viewer here").waitFor();
      assert.equal(
        await other.getByRole("textbox", { name: "Name", exact: true }).isDisabled(),
        true,
      );
      assert.equal(await other.getByRole("button", { name: "Save settings" }).count(), 0);
      assert.equal(await other.getByRole("button", { name: "Invite", exact: true }).count(), 0);
      assert.equal(await other.getByRole("button", { name: /Delete workspace/ }).count(), 0);
      await other.getByRole("button", { name: "Leave workspace" }).waitFor();
      await lookAt(other, "settings-viewer");

      assert.deepEqual(web.pageErrors, []);
    } finally {
      await web.close();
    }
  },
);

Deno.test(
  "settings: invite a registered member and an unregistered email; transfer ownership; delete with the typed name",
  e2e,
  async () => {
    const web = await startWebTest();
    try {
      const owner = await createUser(web.stack, { name: "Olga Owner" });
      const mate = await createUser(web.stack, { name: "Max Mate" });
      const id = await workspaceFor(web, owner, "Launch team");
      const page = await web.newPage();
      await page.goto(`${web.stack.url}/workspaces/${id}/settings`);
      await signIn(page, owner.email, owner.password);
      const members = page.getByRole("region", { name: "Members" });
      await members.getByText("Olga Owner").waitFor();

      await members.getByLabel("Email").fill(mate.email);
      await members.getByLabel("Role").selectOption("editor");
      await members.getByRole("button", { name: "Invite", exact: true }).click();
      await members.getByRole("status").filter({ hasText: "is now a member" }).waitFor();
      await members.getByRole("listitem").filter({ hasText: "Max Mate" }).getByText("Editor")
        .waitFor();

      const stranger = `stranger-${Date.now()}@example.test`;
      await members.getByLabel("Email").fill(stranger);
      await members.getByLabel("Role").selectOption("viewer");
      await members.getByRole("button", { name: "Invite", exact: true }).click();
      await members.getByRole("status").filter({ hasText: "has no account yet" }).waitFor();
      await members.getByRole("listitem").filter({ hasText: stranger }).getByText("Pending", {
        exact: true,
      }).waitFor();

      // inviting a member twice: the server's 409 is said where it happened
      await members.getByLabel("Email").fill(mate.email);
      await members.getByRole("button", { name: "Invite", exact: true }).click();
      await members.getByRole("alert").filter({ hasText: "already a member" }).waitFor();

      const listed = await api(web.stack, "GET", `/api/workspaces/${id}/members`, {
        token: owner.access_token,
      });
      assert.deepEqual(
        listed.body.members.map((m: { email: string; role: string }) => `${m.email}:${m.role}`)
          .sort(),
        [`${mate.email}:editor`, `${owner.email}:owner`].sort(),
      );
      await lookAt(page, "settings-members");

      // transfer ownership to the editor, then the new owner deletes the workspace
      await members.getByLabel("New owner").selectOption(mate.user_id);
      await members.getByRole("button", { name: "Transfer ownership" }).click();
      const confirm = page.getByRole("dialog", { name: "Transfer ownership" });
      await confirm.getByRole("button", { name: "Transfer" }).click();
      await confirm.waitFor({ state: "hidden" });
      await page.getByText("you are editor").waitFor();
      const after = await api(web.stack, "GET", `/api/workspaces/${id}`, {
        token: mate.access_token,
      });
      assert.equal(after.body.owner_id, mate.user_id);
      assert.equal(await page.getByRole("button", { name: /Delete workspace/ }).count(), 0);

      const matePage = await web.newPage();
      await matePage.goto(`${web.stack.url}/workspaces/${id}/settings`);
      await signIn(matePage, mate.email, mate.password);
      await matePage.getByRole("button", { name: "Delete workspace…" }).click();
      const del = matePage.getByRole("dialog", { name: "Delete workspace" });
      const go = del.getByRole("button", { name: "Delete workspace" });
      assert.equal(await go.isDisabled(), true, "disabled until the name is typed");
      await del.getByLabel("Type Launch team to confirm").fill("Launch team");
      await checkA11y(matePage);
      await screenshot(matePage, "settings-delete-dialog-1440");
      await go.click();
      await matePage.waitForURL(`${web.stack.url}/`);
      await matePage.getByRole("heading", { name: "Create your first workspace" }).waitFor();
      const gone = await api(web.stack, "GET", `/api/workspaces/${id}`, {
        token: mate.access_token,
      });
      assert.equal(gone.status, 404);

      assert.deepEqual(web.pageErrors, []);
    } finally {
      await web.close();
    }
  },
);

Deno.test(
  "actions: create with assignee, due date, priority and post; upload an attachment with progress, download it; the assignee accepts",
  e2e,
  async () => {
    const web = await startWebTest();
    try {
      const owner = await createUser(web.stack, { name: "Olga Owner" });
      const writer = await createUser(web.stack, { name: "Wes Writer" });
      const id = await workspaceFor(web, owner, "Launch team");
      await addMember(web, owner, id, writer.email, "editor");
      const post = await api(web.stack, "POST", "/api/posts", {
        token: owner.access_token,
        body: { workspace_id: id, title: "Launch announcement", content: "We launch today." },
      });
      assert.equal(post.status, 201);

      const page = await web.newPage();
      await page.goto(`${web.stack.url}/workspaces/${id}/actions`);
      await signIn(page, owner.email, owner.password);
      await page.getByRole("heading", { name: "Nothing is assigned to you" }).waitFor();
      await lookAt(page, "actions-empty");

      await page.getByRole("button", { name: "New action" }).first().click();
      const dialog = page.getByRole("dialog", { name: "New action" });
      await dialog.getByLabel("Title").fill("Design the launch visual");
      await dialog.getByLabel("Description").fill("A 1200x627 image for the announcement.");
      await dialog.getByLabel("Assignee").selectOption(writer.user_id);
      await dialog.getByLabel("Due date").fill("2030-01-15");
      await dialog.getByLabel("Priority").selectOption({ label: "High" });
      await dialog.getByLabel("Linked post").selectOption({ label: "Launch announcement" });
      await lookAt(page, "actions-create-dialog");
      await dialog.getByRole("button", { name: "Create action" }).click();
      await dialog.waitFor({ state: "hidden" });
      // the new action opens in "Created by me"
      await page.waitForURL(/view=created/);
      const card = page.getByRole("listitem").filter({ hasText: "Design the launch visual" });
      await card.getByText("High").waitFor();
      await card.getByRole("link", { name: "Launch announcement" }).waitFor();
      const listed = await api(web.stack, "GET", `/api/actions?workspaceId=${id}`, {
        token: owner.access_token,
      });
      assert.equal(listed.body.count, 1);
      const action = listed.body.items[0];
      assert.equal(action.assignee_id, writer.user_id);
      assert.equal(action.priority, "p2_high");
      assert.equal(action.due_date, "2030-01-15");
      assert.equal(action.linked_post_id, post.body.post_id);

      // a file of another type is refused with the rule, before anything is sent
      const input = card.getByLabel("Attach a file");
      await input.setInputFiles({
        name: "notes.txt",
        mimeType: "text/plain",
        buffer: Buffer.from("hello"),
      });
      await card.getByRole("alert").filter({ hasText: "PNG, JPG, SVG, WebP or PDF" }).waitFor();

      // upload: the store's answer is held back a moment, so the progress bar can be seen
      const bytes = new Uint8Array(1024 * 1024);
      bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      for (let i = 8; i < bytes.length; i++) bytes[i] = (i * 31) & 0xff;
      let putType = "";
      await page.route("**/assets/**", async (route) => {
        if (route.request().method() === "PUT") {
          putType = route.request().headers()["content-type"] ?? "";
          await new Promise((r) => setTimeout(r, 700));
        }
        await route.continue();
      });
      await input.setInputFiles({
        name: "visual.png",
        mimeType: "image/png",
        buffer: Buffer.from(bytes),
      });
      await card.getByRole("progressbar", { name: "Uploading visual.png" }).waitFor();
      await screenshot(page, "actions-uploading-1440");
      const link = card.getByRole("link", { name: /visual\.png/ });
      await link.waitFor();
      assert.equal(putType, "image/png");
      await page.unroute("**/assets/**");

      // download it as a user does: a click on the file's link saves it under its name
      const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
      assert.equal(download.suggestedFilename(), "visual.png");
      assert.equal(await download.failure(), null);
      const got = await Deno.readFile(await download.path());
      assert.equal(got.length, bytes.length);
      assert.deepEqual(got, bytes, "the downloaded bytes are the uploaded ones");
      assert.equal(new URL(page.url()).pathname, `/workspaces/${id}/actions`, "the page stays");
      await lookAt(page, "actions-created-open");

      // the assignee, in another browser context, accepts
      const other = await web.newPage();
      await other.goto(`${web.stack.url}/workspaces/${id}/actions`);
      await signIn(other, writer.email, writer.password);
      const mine = other.getByRole("listitem").filter({ hasText: "Design the launch visual" });
      await mine.getByText("You: Not answered").waitFor();
      await lookAt(other, "actions-assigned");
      await mine.getByRole("button", { name: "Accept Design the launch visual" }).click();
      await mine.getByText("You: Accepted").waitFor();
      const accepted = await api(
        web.stack,
        "GET",
        `/api/actions/${action.action_id}?workspaceId=${id}`,
        {
          token: owner.access_token,
        },
      );
      assert.equal(accepted.body.assignee_response, "accepted");

      // the assignee moves it on and opens the file list
      await mine.getByRole("button", { name: "Design the launch visual" }).click();
      await mine.getByLabel("Status").selectOption("in_progress");
      await mine.getByText("In progress").first().waitFor();
      await mine.getByRole("link", { name: /visual\.png/ }).waitFor();

      // the creator deletes the attachment
      await card.getByRole("button", { name: "Delete attachment visual.png" }).click();
      await page.getByRole("dialog", { name: "Delete attachment" }).getByRole("button", {
        name: "Delete",
      }).click();
      await card.getByText("No files yet").waitFor();

      assert.deepEqual(web.pageErrors, []);
    } finally {
      await web.close();
    }
  },
);

Deno.test(
  "prompts and examples: create, set the default, the last prompt's 409 said plainly; an example post created and edited",
  e2e,
  async () => {
    const web = await startWebTest();
    try {
      const user = await createUser(web.stack, { name: "Pia Prompter" });
      const id = await workspaceFor(web, user, "Launch team");
      const page = await web.newPage();
      await page.goto(`${web.stack.url}/workspaces/${id}/prompts`);
      await signIn(page, user.email, user.password);
      await page.getByRole("heading", { name: "No prompts yet" }).waitFor();
      await lookAt(page, "prompts-empty");

      const create = async (name: string, tone: string) => {
        await page.getByRole("button", { name: "New prompt" }).click();
        const dialog = page.getByRole("dialog", { name: "New prompt" });
        await dialog.getByLabel("Name").fill(name);
        await dialog.getByLabel("System instruction").fill(`You write as ${name}.`);
        await dialog.getByLabel("Tone").selectOption({ label: tone });
        await dialog.getByLabel("Default audience").selectOption("Developers");
        return dialog;
      };
      // a blank name: the server's 400 at the Name field
      let dialog = await create("   ", "Storytelling");
      await dialog.getByRole("button", { name: "Create prompt" }).click();
      await dialog.locator("#prompt-name-error").filter({ hasText: "name is required" }).waitFor();
      await lookAt(page, "prompts-dialog");
      await dialog.getByLabel("Name").fill("Storyteller");
      await dialog.getByRole("button", { name: "Create prompt" }).click();
      await dialog.waitFor({ state: "hidden" });
      dialog = await create("Teacher", "Educational");
      await dialog.getByRole("button", { name: "Create prompt" }).click();
      await dialog.waitFor({ state: "hidden" });

      const prompts = page.getByRole("list", { name: "Your prompts" });
      await prompts.getByRole("heading", { name: "Teacher" }).waitFor();
      await page.getByRole("button", { name: "Set as default: Teacher" }).click();
      await prompts.getByRole("listitem").filter({ hasText: "Teacher" }).getByText("Default", {
        exact: true,
      }).waitFor();
      const listed = await api(web.stack, "GET", `/api/prompts?workspaceId=${id}`, {
        token: user.access_token,
      });
      const byName = Object.fromEntries(
        listed.body.items.map((p: { name: string }) => [p.name, p]),
      );
      assert.equal(byName.Teacher.is_default, true);
      assert.equal(byName.Storyteller.is_default, false);
      assert.equal(byName.Storyteller.tone, "storytelling");
      assert.equal(byName.Storyteller.default_audience, "Developers");
      await lookAt(page, "prompts-list");

      // delete one, then the last one: 409, said in the dialog
      await page.getByRole("button", { name: "Delete Storyteller" }).click();
      const confirm = page.getByRole("dialog", { name: "Delete prompt" });
      await confirm.getByRole("button", { name: "Delete" }).click();
      await confirm.waitFor({ state: "hidden" });
      await prompts.getByRole("heading", { name: "Storyteller" }).waitFor({ state: "detached" });
      await page.getByRole("button", { name: "Delete Teacher" }).click();
      await confirm.getByRole("button", { name: "Delete" }).click();
      await confirm.getByRole("alert").filter({
        hasText: "Cannot delete your last prompt in this workspace",
      }).waitFor();
      await checkA11y(page);
      await screenshot(page, "prompts-delete-last-1440");
      await confirm.getByRole("button", { name: "Cancel" }).click();
      const left = await api(web.stack, "GET", `/api/prompts?workspaceId=${id}`, {
        token: user.access_token,
      });
      assert.equal(left.body.count, 1);

      // example posts
      await page.getByRole("link", { name: "Examples" }).click();
      await page.getByRole("heading", { name: "No example posts yet" }).waitFor();
      await lookAt(page, "examples-empty");
      await page.getByRole("button", { name: "New example" }).click();
      const ex = page.getByRole("dialog", { name: "New example post" });
      await ex.getByLabel("Title").fill("Our hiring story");
      await ex.getByLabel("Text").fill("We hired five engineers in a month. Here is how.");
      await ex.getByLabel("Tags").fill("hiring, #culture");
      await ex.getByRole("button", { name: "Create example" }).click();
      await ex.waitFor({ state: "hidden" });
      await page.getByRole("button", { name: "Edit Our hiring story" }).click();
      const edit = page.getByRole("dialog", { name: "Edit example post" });
      await edit.getByLabel("Title").fill("Our hiring story, 2026");
      await edit.getByRole("button", { name: "Save example" }).click();
      await edit.waitFor({ state: "hidden" });
      await page.getByRole("heading", { name: "Our hiring story, 2026" }).waitFor();
      const examples = await api(web.stack, "GET", `/api/examples?workspaceId=${id}`, {
        token: user.access_token,
      });
      assert.equal(examples.body.count, 1);
      assert.equal(examples.body.items[0].title, "Our hiring story, 2026");
      assert.deepEqual(examples.body.items[0].tags, ["hiring", "culture"]);
      await lookAt(page, "examples-list");

      assert.deepEqual(web.pageErrors, []);
    } finally {
      await web.close();
    }
  },
);
