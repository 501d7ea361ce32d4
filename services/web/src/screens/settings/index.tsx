/**
 * `/workspaces/:id/settings`: the workspace's name, description, timezone (when the API has
 * it), publishing slots and default prompt; its audiences and languages; its members (invite,
 * pending invites with cancel, transfer ownership, remove, leave); and deleting it. Viewers see
 * the forms read-only.
 */
import { ErrorMessage } from "../../components/error_message.tsx";
import { Loading } from "../../components/loading.tsx";
import { useResource } from "../../components/use_resource.ts";
import { LinkedInSettings } from "../../components/linkedin_settings.tsx";
import type { ScreenProps } from "../../screen_props.ts";
import { loadWorkspace, workspaces } from "../../state/workspaces.ts";
import { DangerZone } from "./danger_zone.tsx";
import { GeneralSettings } from "./general.tsx";
import { ItemList } from "./item_list.tsx";
import { Members } from "./members.tsx";
import { ROLE_LABEL } from "./shared.tsx";

export default function SettingsScreen({ params }: ScreenProps) {
  const id = params.workspaceId;
  const ws = useResource(() => loadWorkspace(id), [id]);
  if (ws.loading && !ws.data) return <Loading label="Loading settings" />;
  if (ws.error && !ws.data) {
    return (
      <section class="stack">
        <h1>Workspace settings</h1>
        <ErrorMessage error={ws.error} onRetry={ws.reload} />
      </section>
    );
  }
  // the name saved here since the load lives in the workspace list (the switcher shows it too)
  const name = workspaces.value?.find((w) => w.workspace_id === id)?.name ?? ws.data!.name;
  const detail = { ...ws.data!, name };
  const role = detail.member_role;
  const canEdit = role === "owner" || role === "editor";
  return (
    <div class="settings stack">
      <header class="screen-head">
        <h1>Workspace settings</h1>
        <p class="wa-muted">
          {name} · {detail.member_count} {detail.member_count === 1 ? "member" : "members"}{" "}
          · you are {ROLE_LABEL[role].toLowerCase()}
        </p>
      </header>
      {!canEdit && (
        <p class="wa-notice" role="note">
          You are a viewer here: only the owner or an editor can change these settings.
        </p>
      )}
      <GeneralSettings key={`${id}-${detail.updated_at}`} detail={detail} canEdit={canEdit} />
      <LinkedInSettings workspaceId={id} canEdit={canEdit} />
      <div class="settings-lists">
        <ItemList workspaceId={id} kind="audiences" />
        <ItemList workspaceId={id} kind="languages" />
      </div>
      <Members detail={detail} onChanged={ws.reload} />
      {role === "owner" && <DangerZone detail={detail} />}
    </div>
  );
}
