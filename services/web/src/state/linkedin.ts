/** A workspace's LinkedIn connection: its state, connecting (a redirect) and disconnecting. */
import { call, client } from "./api.ts";

export function loadLinkedIn(workspaceId: string) {
  return call(
    client().GET("/api/workspaces/{id}/linkedin", {
      params: { path: { id: workspaceId } },
    }),
  );
}

/** Where to send the browser to authorise LinkedIn. */
export async function linkedInAuthorizeUrl(workspaceId: string): Promise<string> {
  const { authorize_url } = await call(
    client().POST("/api/workspaces/{id}/linkedin/connect", {
      params: { path: { id: workspaceId } },
    }),
  );
  return authorize_url;
}

export async function disconnectLinkedIn(workspaceId: string): Promise<void> {
  await call(
    client().DELETE("/api/workspaces/{id}/linkedin", {
      params: { path: { id: workspaceId } },
    }),
  );
}
