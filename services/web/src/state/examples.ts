/** Example posts of a workspace, which generation imitates: list, create, edit, delete. */
import { call, client, type JsonBody, type Schemas } from "./api.ts";

export type Example = Schemas["ExamplePost"];
export type ExampleBody = JsonBody<"/api/examples", "post">;

export function loadExamples(workspaceId: string) {
  return call(client().GET("/api/examples", { params: { query: { workspaceId } } }));
}

/** Saves `body` as a new example, or over example `id` when given. */
export async function saveExample(body: ExampleBody, id?: string): Promise<void> {
  if (id) {
    await call(client().PUT("/api/examples/{id}", { params: { path: { id } }, body }));
  } else {
    await call(client().POST("/api/examples", { body }));
  }
}

export async function deleteExample(workspaceId: string, id: string): Promise<void> {
  await call(
    client().DELETE("/api/examples/{id}", {
      params: { path: { id }, query: { workspaceId } },
    }),
  );
}
