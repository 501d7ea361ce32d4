/** The one-use ticket the editor's WebSocket presents to join a post's live session. */
import { call, client } from "./api.ts";

export async function mintTicket(): Promise<string> {
  const { ticket } = await call(client().POST("/api/ws/ticket"));
  return ticket;
}
