import { createRoute } from "@hono/zod-openapi";
import {
  bearer as security,
  body,
  err,
  json,
  retryAfter,
  tooMany,
} from "../../shared/http/openapi.ts";
import { requireCaller, type ServiceApp } from "../../shared/http/service_app.ts";
import type { GenaiOperations } from "./operations.ts";
import {
  generateBody,
  generateResponse,
  iterateBody,
  iterateResponse,
  proofreadBody,
  proofreadResponse,
  statusResponse,
} from "./schemas.ts";
import { FILLED_PLACEHOLDERS_TEXT } from "../../shared/ai/placeholders.ts";
import { MESSAGES } from "../../shared/http/messages.ts";

const tags = ["GenAI"];

/** The answers every AI route shares beyond its own 200, 400, 404 and 503. */
const common = {
  401: err("Missing or invalid access token"),
  403: err(MESSAGES.notMember),
  429: tooMany("The caller made more AI calls this minute than `AI_CALLS_PER_MINUTE` allows"),
  502: err(
    "`AI backend failed: <reason>`: the backend could not be reached, refused the key, does " +
      "not know the model, timed out or answered an error; the reason names what to check " +
      "(`OPENAI_BASE_URL`, `OPENAI_API_KEY`, `OPENAI_MODEL`, `AI_TIMEOUT_MS`)",
  ),
};
const BUSY = "`AI backend is busy; try again shortly`: it kept throttling (429) after 3 retries";
/** A 503 of a busy backend says when to try again. */
const busyHeaders = retryAfter(
  "With `AI backend is busy`: seconds (at least 1) until trying again makes sense: the wait " +
    "the backend asked for, or 5 when it named none",
);

const generate = createRoute({
  method: "post",
  path: "/api/genai/generate",
  tags,
  security,
  summary: "Draft a post from an idea (nothing is stored)",
  description: "The prompt is layered: built-in persona, saved prompt (`prompt_id`, else the " +
    "caller's default), `overrides.system_instruction`, then `audience`, `tone`, `language` " +
    "and `length` (very_short, short, medium, long, very_long, extra_long; other values are " +
    "ignored). Up to 5 example posts, most shared tags with the idea first, are added. " +
    "`audience`, `tone` and `language` are cut to 200, 100 and 50 characters. The saved " +
    `template's placeholders are filled: ${FILLED_PLACEHOLDERS_TEXT}; a template naming any ` +
    "other is refused (400) rather than sent as written.",
  request: body(generateBody),
  responses: {
    200: json(generateResponse, "The drafted post text"),
    400: err(
      "workspace_id or idea_id missing, or the prompt's `user_template` names a placeholder " +
        "that generation does not fill (the message names it)",
    ),
    404: err("Idea not found, or `prompt_id` given but no such prompt"),
    503: { ...err(`\`AI backend not configured\`, or ${BUSY}`), headers: busyHeaders },
    ...common,
  },
});

const iterate = createRoute({
  method: "post",
  path: "/api/genai/iterate",
  tags,
  security,
  summary: "Rewrite content on an instruction (the post is not modified)",
  description: "`instruction` is cut to 2000 characters and `current_content` to 40000. An " +
    "unresolved `prompt_id` falls back to the built-in editor persona.",
  request: body(iterateBody),
  responses: {
    200: json(iterateResponse, "The rewritten text"),
    400: err("workspace_id, post_id or instruction missing"),
    404: err("Post not found (none with post_id in workspace_id)"),
    503: { ...err(`\`AI backend not configured\`, or ${BUSY}`), headers: busyHeaders },
    ...common,
  },
});

const proofread = createRoute({
  method: "post",
  path: "/api/genai/proofread",
  tags,
  security,
  summary: "Annotate a draft",
  description: "The built-in grammar and spelling checker (no network, no model: a/an, " +
    'repeated words, "should of", misspellings...) runs on every call; its findings are ' +
    "merged with the model's, the model's winning where ranges overlap. Without an AI backend " +
    "the checker's findings alone come back (200). The model's answer is read as a JSON array " +
    "(bare or in a code fence; items may quote the text instead of giving `range`); any other " +
    "answer adds nothing and `model` is `unusable`. Then the service's own checks: over 3000 " +
    "characters, more than 5 hashtags, more than 10 emoji. `content` is cut to 40000 " +
    "characters; ranges are offsets into it.",
  request: body(proofreadBody),
  responses: {
    200: json(proofreadResponse, "The annotations"),
    400: err("workspace_id or post_id missing"),
    404: err("Post not found (none with post_id in workspace_id)"),
    503: { ...err(BUSY), headers: busyHeaders },
    ...common,
  },
});

const status = createRoute({
  method: "get",
  path: "/api/genai/status",
  tags,
  security,
  summary: "Which AI features work on this server",
  description: "Proofread (the built-in checker) and idea titles (made from the text) work " +
    "without a model; generate and iterate need a configured AI backend.",
  responses: {
    200: json(statusResponse, "Whether a model is configured"),
    401: err("Missing or invalid access token"),
  },
});

/** The public GenAI routes: thin, every check lives in GenaiOperations. */
export function mountGenaiRoutes(app: ServiceApp, ops: GenaiOperations): void {
  app.openapi(status, (c) => {
    requireCaller(c);
    return c.json(ops.status(), 200);
  });
  app.openapi(generate, async (c) => {
    const caller = requireCaller(c);
    return c.json(await ops.generate(caller, c.req.valid("json")), 200);
  });

  app.openapi(iterate, async (c) => {
    const caller = requireCaller(c);
    return c.json(await ops.iterate(caller, c.req.valid("json")), 200);
  });

  app.openapi(proofread, async (c) => {
    const caller = requireCaller(c);
    return c.json(await ops.proofread(caller, c.req.valid("json")), 200);
  });
}
