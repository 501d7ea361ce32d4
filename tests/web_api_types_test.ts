import assert from "node:assert/strict";
import { generateSchemaTypes, SCHEMA_FILE } from "../infra/web_api_types.ts";

Deno.test(
  "the web app's API types match the OpenAPI document (run `deno task web:api-types` when not)",
  { sanitizeOps: false, sanitizeResources: false },
  async () => {
    const fresh = await generateSchemaTypes();
    const checkedIn = await Deno.readTextFile(SCHEMA_FILE);
    assert.ok(fresh.includes('"/api/workspaces"'), "the document has the API's paths");
    assert.ok(
      fresh === checkedIn,
      "services/web/src/api/schema.d.ts is out of date: run `deno task web:api-types`",
    );
  },
);
