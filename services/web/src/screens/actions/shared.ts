/** What the actions screen's parts share: statuses, priorities and their labels. */
import type { Schemas } from "../../state/api.ts";

export type Action = Schemas["Action"];
export type Status = Action["status"];
export type Member = Schemas["WorkspaceMemberWithProfile"];
export type Post = Schemas["Post"];

export const STATUSES: { value: Status; label: string }[] = [
  { value: "open", label: "Open" },
  { value: "in_progress", label: "In progress" },
  { value: "completed", label: "Completed" },
  { value: "cancelled", label: "Cancelled" },
];
export const STATUS_LABEL = Object.fromEntries(STATUSES.map((s) => [s.value, s.label])) as Record<
  Status,
  string
>;
export const PRIORITIES = [
  { value: "p1_urgent", label: "Urgent" },
  { value: "p2_high", label: "High" },
  { value: "p3_medium", label: "Medium" },
  { value: "p4_low", label: "Low" },
];
export const PRIORITY_LABEL: Record<string, string> = Object.fromEntries(
  PRIORITIES.map((p) => [p.value, p.label]),
);
export const RESPONSE_LABEL = {
  pending: "Not answered",
  accepted: "Accepted",
  declined: "Declined",
};
export const ACTION_FIELDS = [
  "title",
  "description",
  "assignee_id",
  "due_date",
  "priority",
  "linked_post_id",
] as const;

/** `2030-01-15` as "15 Jan 2030" (a date without a time: no timezone shift). */
export function formatDay(day: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return day;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  return d.toLocaleDateString(undefined, {
    day: "numeric",
    month: "short",
    year: "numeric",
    timeZone: "UTC",
  });
}
