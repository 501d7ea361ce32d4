import { createRoute } from "@hono/zod-openapi";
import { body, err, json } from "../../shared/http/openapi.ts";
import type { ServiceApp } from "../../shared/http/service_app.ts";
import type { Accounts } from "./accounts.ts";
import { requireSetupOpen, setUpAdmin } from "./operations.ts";
import { messageSchema, setupBodySchema, setupStatusSchema } from "./schemas.ts";

export const SETUP_DONE_MESSAGE = "Admin account created";

/** First-run setup: `GET` and `POST /api/setup`. */
export function mountSetupRoutes(app: ServiceApp, accounts: Accounts): void {
  const { store } = accounts.deps;

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/setup",
      tags: ["Setup"],
      summary: "Whether first-run setup is possible (no admin account exists yet)",
      responses: { 200: json(setupStatusSchema, "Setup status") },
    }),
    async (c) => c.json({ needed: !(await store.setup.adminExists()) }, 200),
  );

  // Setup is over once an admin exists: 410 before the body is read or validated.
  app.use("/api/setup", async (c, next) => {
    if (c.req.method === "POST") await requireSetupOpen(accounts);
    await next();
  });

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/setup",
      tags: ["Setup"],
      summary: "Create the first admin with the one-time setup token",
      description: "When no admin exists and ADMIN_EMAIL is unset, start-up logs one line with " +
        "`{PUBLIC_URL}/setup?token=<token>` (only a hash of the token is stored; each start-up " +
        "makes a new one). The token is single use. An existing account with this email " +
        "becomes the admin and takes this password. A wrong token is 401 (it is a credential).",
      request: body(setupBodySchema),
      responses: {
        201: json(messageSchema, "The admin was created, confirmed and approved"),
        400: err("A field is missing or invalid, or the password breaks the policy"),
        401: err("Wrong or used setup token"),
        410: err("An admin account exists: setup is over"),
      },
    }),
    async (c) => {
      await setUpAdmin(accounts, c.req.valid("json"));
      return c.json({ message: SETUP_DONE_MESSAGE }, 201);
    },
  );
}
