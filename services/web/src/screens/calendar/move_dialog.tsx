/**
 * The keyboard way to move a post (or schedule one that is ready): a dialog with the day and
 * time fields, in the workspace's zone, checked as typed.
 */
import { WorkspaceDialog } from "../../components/workspace_dialog.tsx";
import { DayTimeFields, useDayTime } from "../../components/day_time_fields.tsx";
import { ErrorMessage } from "../../components/error_message.tsx";
import { dayTimeAt } from "../../components/schedule_time.ts";
import type { Moving } from "./model.ts";

export function MoveDialog(
  { moving, zone, suggested, busy, error, onMove, onClose }: {
    moving: Moving | null;
    zone: string;
    /** Where a post not yet scheduled starts (the next free slot in view, say). */
    suggested: number;
    busy: boolean;
    error: unknown;
    onMove: (at: string) => void;
    onClose: () => void;
  },
) {
  const verb = moving?.at ? "Move" : "Schedule";
  return (
    <WorkspaceDialog
      open={moving !== null}
      title={moving ? `${verb} “${moving.title}”` : ""}
      onClose={onClose}
    >
      {moving && (
        <MoveForm
          key={moving.post_id}
          start={moving.at ? Date.parse(moving.at) : suggested}
          zone={zone}
          verb={verb}
          busy={busy}
          error={error}
          onMove={onMove}
          onClose={onClose}
        />
      )}
    </WorkspaceDialog>
  );
}

function MoveForm(
  { start, zone, verb, busy, error, onMove, onClose }: {
    start: number;
    zone: string;
    verb: string;
    busy: boolean;
    error: unknown;
    onMove: (at: string) => void;
    onClose: () => void;
  },
) {
  const picked = useDayTime(dayTimeAt(start, zone), zone, "cal-move-at");
  return (
    <form
      class="stack"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const at = picked.submit();
        if (at) onMove(at);
      }}
    >
      <DayTimeFields picked={picked} legend="Publish at" />
      <ErrorMessage error={error} />
      <div class="button-row">
        <button type="button" class="button secondary" onClick={onClose}>Cancel</button>
        <button type="submit" class="button" disabled={busy}>
          {busy ? `${verb === "Move" ? "Moving" : "Scheduling"}…` : verb}
        </button>
      </div>
    </form>
  );
}
