import { createRoute } from "@hono/zod-openapi";
import { body, err, json, tooMany } from "../../shared/http/openapi.ts";
import type { ServiceApp } from "../../shared/http/service_app.ts";
import { clientAddress } from "../../shared/http/client_address.ts";
import type { Accounts } from "./accounts.ts";
import { confirmEmail, mailCode, resetPassword, signUp } from "./operations.ts";
import {
  confirmBodySchema,
  forgotPasswordBodySchema,
  messageSchema,
  resendBodySchema,
  resetPasswordBodySchema,
  signupBodySchema,
} from "./schemas.ts";
import {
  CONFIRM_CODE_MAX_ATTEMPTS,
  CONFIRM_TRIES_PER_ADDRESS,
  MAIL_LIMIT_PER_ADDRESS,
  MAIL_LIMIT_PER_EMAIL,
  MAIL_WINDOW_MS,
  type MailKind,
  RESET_CODE_MAX_ATTEMPTS,
} from "./store.ts";

export const SIGNUP_MESSAGE =
  "Signup successful. Check your email for the 6-digit confirmation code.";
export const CONFIRMED_MESSAGE = "Email confirmed";
export const RESEND_MESSAGE =
  "If an unconfirmed account exists for this email, a new confirmation code has been sent";
export const FORGOT_MESSAGE =
  "If an account exists for this email, a password reset code has been sent";
export const RESET_MESSAGE = "Password has been reset";

const LIMITS =
  `At most ${MAIL_LIMIT_PER_EMAIL} per email and ${MAIL_LIMIT_PER_ADDRESS} per client ` +
  `address every ${MAIL_WINDOW_MS / 60_000} minutes, counted whether or not the account exists, ` +
  "so a 429 says nothing about it.";

/** The two routes that mail a code: the same answer whether or not the account exists. */
const CODE_MAILS: {
  kind: MailKind;
  path: string;
  summary: string;
  description: string;
  schema: typeof resendBodySchema;
  message: string;
}[] = [
  {
    kind: "confirm",
    path: "/api/auth/resend-confirmation",
    summary: "Send a new confirmation code",
    description: "A new code replaces the old one and has its own 5 tries; tries are per " +
      "code and a resend never gives the old code more. " + LIMITS,
    schema: resendBodySchema,
    message: RESEND_MESSAGE,
  },
  {
    kind: "reset",
    path: "/api/auth/forgot-password",
    summary: "Email a password reset code",
    description: "For an existing account, sends the `password_reset` email with a 6-digit " +
      `code valid 30 minutes; a new request replaces the old code, and ${RESET_CODE_MAX_ATTEMPTS} ` +
      "wrong tries kill a code. " + LIMITS,
    schema: forgotPasswordBodySchema,
    message: FORGOT_MESSAGE,
  },
];

/** Signup, email confirmation and password reset (`POST /api/auth/*`, no token needed). */
export function mountAccountRoutes(app: ServiceApp, accounts: Accounts): void {
  app.openapi(
    createRoute({
      method: "post",
      path: "/api/auth/signup",
      tags: ["Auth"],
      summary: "Sign up with email and password",
      request: body(signupBodySchema),
      responses: {
        200: json(messageSchema, "Account created; a confirmation code was emailed"),
        400: err(
          "A field is missing or invalid, the password breaks the policy, or the reCAPTCHA token failed",
        ),
        409: err("A confirmed account with this email exists"),
        429: tooMany("This signup replaces an unconfirmed account, and its code mails are used up"),
        502: err(
          "The reCAPTCHA verification service could not be reached or gave no usable answer",
        ),
      },
      description:
        "An account that was never confirmed does not own its email: signing up again with it " +
        "replaces that account's name and password, sends a new code (the old one stops " +
        "working) and revokes its sessions. Such a replacement counts as a confirmation mail " +
        "(see resend-confirmation's limits).",
    }),
    async (c) => {
      await signUp(accounts, c.req.valid("json"), clientAddress(c));
      return c.json({ message: SIGNUP_MESSAGE }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/auth/confirm",
      tags: ["Auth"],
      summary: "Confirm an email address with the emailed code",
      request: body(confirmBodySchema),
      responses: {
        200: json(messageSchema, "Confirmed; pending invites became memberships"),
        400: err("Wrong or expired code"),
        404: err("Unknown email"),
        429: tooMany(
          `More than ${CONFIRM_TRIES_PER_ADDRESS} wrong codes or unknown emails from this client ` +
            `address in ${MAIL_WINDOW_MS / 60_000} minutes`,
        ),
      },
      description: `Each code dies after ${CONFIRM_CODE_MAX_ATTEMPTS} wrong tries, and each ` +
        `client address gets ${CONFIRM_TRIES_PER_ADDRESS} wrong tries (wrong codes and unknown ` +
        `emails, across every email) every ${MAIL_WINDOW_MS / 60_000} minutes; a right code ` +
        "does not count.",
    }),
    async (c) => {
      const { email, code } = c.req.valid("json");
      const outcome = await confirmEmail(accounts, email, code, clientAddress(c));
      const message = outcome === "already" ? "Email already confirmed" : CONFIRMED_MESSAGE;
      return c.json({ message }, 200);
    },
  );

  for (const mail of CODE_MAILS) {
    app.openapi(
      createRoute({
        method: "post",
        path: mail.path,
        tags: ["Auth"],
        summary: mail.summary,
        description: mail.description,
        request: body(mail.schema),
        responses: {
          200: json(messageSchema, "Answered whether or not the account exists"),
          400: err("email missing or invalid"),
          429: tooMany("Over the limit for this email or client address; nothing was sent"),
        },
      }),
      async (c) => {
        await mailCode(accounts, mail.kind, c.req.valid("json").email, clientAddress(c));
        return c.json({ message: mail.message }, 200);
      },
    );
  }

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/auth/reset-password",
      tags: ["Auth"],
      summary: "Set a new password with the emailed reset code",
      description: "Sets the password, confirms the email if it was unconfirmed (pending " +
        "invites become memberships) and revokes every refresh token of the account.",
      request: body(resetPasswordBodySchema),
      responses: {
        200: json(messageSchema, "Password reset"),
        400: err(
          "A field is missing, the code is wrong, used or expired, or the password " +
            "breaks the policy",
        ),
      },
    }),
    async (c) => {
      await resetPassword(accounts, c.req.valid("json"));
      return c.json({ message: RESET_MESSAGE }, 200);
    },
  );
}
