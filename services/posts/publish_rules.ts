import { MESSAGES } from "../../shared/http/messages.ts";

export const PUBLISH_MESSAGES = {
  notConfigured: "LinkedIn is not configured",
  notConnected: "LinkedIn is not connected",
  connectRole: "Only the owner or an editor can connect LinkedIn",
  disconnectRole: "Only the owner or an editor can disconnect LinkedIn",
  badState: "Unknown or used LinkedIn authorization state",
  noSlots: "No publishing slots",
  notFuture: "at must be in the future",
  notApproved: "Post must be approved before it is scheduled: this workspace requires approval",
  alreadyPublished: "Post is already published",
  notScheduled: "Post is not scheduled",
  publishing: "Post is being published; wait for the outcome",
  unknownOutcome: "Publishing outcome unknown; check LinkedIn before retrying",
  editorRole: MESSAGES.ownerOrEditorRequired,
  changedSinceApproval: "Changed since approval",
  otherBrowser:
    "This LinkedIn authorization was started in another browser: connect again from the workspace settings",
  restored: "Restored from a backup: check LinkedIn before publishing",
  notAnAdmin:
    "The post is to be published as an organization page this LinkedIn connection does not administer",
  unknownPage: "publish_as names an organization that is not in the LinkedIn connection",
  commentUnknown: "First comment outcome unknown; check LinkedIn before posting it by hand",
} as const;

/** Whether a workspace role may publish for the workspace's LinkedIn member or page. */
export function canPublish(role: string | null): boolean {
  return role === "owner" || role === "editor";
}
