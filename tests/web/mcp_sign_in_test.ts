/**
 * An MCP client's sign-in as a person sees it in a real browser: a desktop client registered
 * itself and listens on a loopback port; the hosted login names it, takes the password, and the
 * browser (holding the page's CSP `form-action` to the letter) lands on the client's listener.
 */
import assert from "node:assert/strict";
import { e2e } from "../helpers/stack.ts";
import { createUser } from "../helpers/users.ts";
import { checkA11y, PHONE, screenshot, startWebTest } from "../helpers/browser.ts";

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

Deno.test(
  "web: an MCP client's user signs in on the hosted login, which names the client, and the client gets its tokens",
  e2e,
  async () => {
    const web = await startWebTest();
    const codes: URL[] = [];
    const listener = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
      codes.push(new URL(req.url));
      return new Response("<!doctype html><title>Done</title><p>You may close this tab.</p>", {
        headers: { "content-type": "text/html" },
      });
    });
    try {
      const user = await createUser(web.stack, { name: "Browser Bo" });
      const redirect = `http://127.0.0.1:${listener.addr.port}/callback`;
      const registered = await fetch(`${web.stack.url}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: "Desk Assistant", redirect_uris: [redirect] }),
      });
      assert.equal(registered.status, 201);
      const { client_id } = await registered.json();
      const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
      const challenge = b64url(
        new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))),
      );
      const authorize = `${web.stack.url}/oauth/authorize?${new URLSearchParams({
        response_type: "code",
        client_id,
        redirect_uri: redirect,
        state: "desk-state",
        code_challenge: challenge,
        code_challenge_method: "S256",
        resource: `${web.stack.url}/mcp`,
      })}`;

      const page = await web.newPage();
      await page.goto(authorize);
      await page.getByText("Desk Assistant").waitFor();
      assert.match(await page.locator(".notice").innerText(), /an app on this computer/);
      await checkA11y(page);
      await screenshot(page, "mcp-sign-in-1440");
      await page.setViewportSize(PHONE);
      await screenshot(page, "mcp-sign-in-375");

      await page.getByLabel("Email").fill(user.email);
      await page.getByLabel("Password").fill(user.password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByText("You may close this tab.").waitFor();
      assert.deepEqual(web.pageErrors, [], "no CSP violation on the way to the client");
      const back = codes.find((url) => url.pathname === "/callback")!;
      assert.equal(back.searchParams.get("state"), "desk-state");

      const token = await fetch(`${web.stack.url}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: back.searchParams.get("code")!,
          redirect_uri: redirect,
          code_verifier: verifier,
          client_id,
          resource: `${web.stack.url}/mcp`,
        }),
      });
      assert.equal(token.status, 200);
      const { access_token } = await token.json();
      const tools = await fetch(`${web.stack.url}/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${access_token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      assert.equal(tools.status, 200);
      const listed = await tools.json();
      assert.ok(listed.result.tools.some((t: { name: string }) => t.name === "list_workspaces"));
    } finally {
      await listener.shutdown();
      await web.close();
    }
  },
);
