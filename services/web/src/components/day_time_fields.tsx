/**
 * A publishing time picked as a day and a time (native `<input type=date>` and `<input
 * type=time>`, labelled), read as a wall-clock time in the workspace's timezone and checked as
 * it is typed: a malformed day or time, or one already past, is said under the fields (and the
 * field marked invalid) before anything is sent. An empty field is only reported on submit.
 *
 *     const picked = useDayTime(dayTimeAt(Date.now() + 3_600_000, zone), zone, "schedule");
 *     <form onSubmit={(e) => { e.preventDefault(); const at = picked.submit(); if (at) ... }}>
 *       <DayTimeFields picked={picked} legend="Publish at" />
 */
import { useState } from "preact/hooks";
import { checkDayTime, type DayTimeCheck, type DayTimeInput } from "./schedule_time.ts";

export interface DayTime {
  id: string;
  zone: string;
  value: DayTimeInput;
  set(next: Partial<DayTimeInput>): void;
  check: DayTimeCheck;
  /** The problem to show now (empty fields only once a submit was tried). */
  shown: Extract<DayTimeCheck, { ok: false }> | null;
  /** On submit: the ISO instant, or null (the problem shown, its field focused). */
  submit(): string | null;
}

export function useDayTime(
  initial: { date: string; time: string },
  zone: string,
  id: string,
): DayTime {
  const [value, setValue] = useState<DayTimeInput>(initial);
  const [tried, setTried] = useState(false);
  const check = checkDayTime(value, zone);
  const shown = !check.ok && (!check.empty || tried) ? check : null;
  return {
    id,
    zone,
    value,
    set: (next) => setValue((v) => ({ ...v, ...next })),
    check,
    shown,
    submit() {
      setTried(true);
      const now = checkDayTime(value, zone);
      if (now.ok) return now.at;
      document.getElementById(`${id}-${now.field}`)?.focus();
      return null;
    },
  };
}

export function DayTimeFields({ picked, legend }: { picked: DayTime; legend: string }) {
  const { id, zone, value, shown } = picked;
  const errorId = `${id}-error`;
  const invalid = (field: "date" | "time") => shown?.field === field;
  return (
    <fieldset class="day-time">
      <legend>
        {legend} <span class="wa-muted">({zone})</span>
      </legend>
      <div class="day-time-row">
        <div class="field">
          <label for={`${id}-date`}>Day</label>
          <input
            id={`${id}-date`}
            type="date"
            value={value.date}
            aria-invalid={invalid("date") ? "true" : undefined}
            aria-describedby={invalid("date") ? errorId : undefined}
            onInput={(e) =>
              picked.set({
                date: e.currentTarget.value,
                badDate: e.currentTarget.validity.badInput,
              })}
          />
        </div>
        <div class="field">
          <label for={`${id}-time`}>Time</label>
          <input
            id={`${id}-time`}
            type="time"
            value={value.time}
            aria-invalid={invalid("time") ? "true" : undefined}
            aria-describedby={invalid("time") ? errorId : undefined}
            onInput={(e) =>
              picked.set({
                time: e.currentTarget.value,
                badTime: e.currentTarget.validity.badInput,
              })}
          />
        </div>
      </div>
      <p id={errorId} class="field-error day-time-error" aria-live="polite">
        {shown?.message ?? ""}
      </p>
    </fieldset>
  );
}
