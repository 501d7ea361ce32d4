/** `/workspaces/:id` (the link in "you were added" messages): opens the workspace's ideas. */
import { useEffect } from "preact/hooks";
import { Loading } from "../components/loading.tsx";
import { navigate } from "../router.tsx";
import type { ScreenProps } from "../screen_props.ts";

export default function WorkspaceHome({ params }: ScreenProps) {
  useEffect(() => {
    navigate(`/workspaces/${encodeURIComponent(params.workspaceId)}/ideas`, { replace: true });
  }, [params.workspaceId]);
  return <Loading />;
}
