import assert from "node:assert/strict";
import {
  addDays,
  addMonths,
  dayInZone,
  dayName,
  isDayKey,
  monthGrid,
  rangeName,
  startOfWeek,
  timeInZone,
  weekOf,
} from "../../services/web/src/components/calendar_dates.ts";
import { checkDayTime, zonedToIso } from "../../services/web/src/components/schedule_time.ts";

Deno.test("calendar days: names, weeks from Monday and a month's whole weeks", () => {
  assert.equal(dayName("2027-03-22"), "Monday 22 March 2027");
  assert.equal(startOfWeek("2027-03-28"), "2027-03-22", "Sunday belongs to the week before");
  assert.deepEqual(weekOf("2027-03-24"), [
    "2027-03-22",
    "2027-03-23",
    "2027-03-24",
    "2027-03-25",
    "2027-03-26",
    "2027-03-27",
    "2027-03-28",
  ]);
  const march = monthGrid("2027-03-15");
  assert.equal(march[0], "2027-03-01", "1 March 2027 is a Monday");
  assert.equal(march.at(-1), "2027-04-04");
  assert.equal(march.length % 7, 0);
  const feb2026 = monthGrid("2026-02-10");
  assert.deepEqual([feb2026[0], feb2026.at(-1), feb2026.length], ["2026-01-26", "2026-03-01", 35]);
  assert.equal(addMonths("2027-01-31", 1), "2027-02-28");
  assert.equal(addDays("2027-03-27", 2), "2027-03-29", "over the DST change, a day is a day");
  assert.equal(rangeName("2027-03-22", "2027-03-28"), "22 – 28 March 2027");
  assert.equal(rangeName("2027-03-29", "2027-04-04"), "29 March – 4 April 2027");
  assert.equal(rangeName("2026-12-28", "2027-01-03"), "28 December 2026 – 3 January 2027");
  assert.equal(isDayKey("2027-02-29"), false);
  assert.equal(isDayKey("2028-02-29"), true);
});

Deno.test("calendar days: an instant's day and time are the workspace's", () => {
  const lateInNewYork = Date.parse("2027-12-01T04:30:00Z");
  assert.equal(dayInZone(lateInNewYork, "America/New_York"), "2027-11-30");
  assert.equal(timeInZone(lateInNewYork, "America/New_York"), "23:30");
  assert.equal(dayInZone(lateInNewYork, "UTC"), "2027-12-01");
});

Deno.test("a day and a time are checked as typed: malformed, missing, past, or the instant", () => {
  const zone = "Europe/Zurich";
  const now = Date.parse("2027-03-22T10:00:00Z"); // 11:00 in Zurich
  const check = (input: Parameters<typeof checkDayTime>[0]) => checkDayTime(input, zone, now);
  assert.deepEqual(check({ date: "", time: "09:00", badDate: true }), {
    ok: false,
    field: "date",
    message: "Enter the whole date: day, month and year",
    empty: false,
  });
  assert.equal((check({ date: "", time: "09:00" }) as { empty: boolean }).empty, true);
  assert.equal(
    (check({ date: "2027-03-23", time: "", badTime: true }) as { message: string }).message,
    "Enter the whole time: hours and minutes",
  );
  assert.equal(
    (check({ date: "2027-02-30", time: "09:00" }) as { message: string }).message,
    "Enter a real date",
  );
  assert.deepEqual(check({ date: "2027-03-21", time: "12:00" }), {
    ok: false,
    field: "date",
    message: "That day has passed in Europe/Zurich: pick a later one",
    empty: false,
  });
  assert.equal((check({ date: "2027-03-22", time: "10:59" }) as { field: string }).field, "time");
  assert.deepEqual(check({ date: "2027-03-22", time: "11:30" }), {
    ok: true,
    at: "2027-03-22T10:30:00.000Z",
  });
  // 02:30 does not exist on 28 March 2027 in Zurich: it moves forward an hour
  assert.equal(zonedToIso("2027-03-28T02:30", zone), "2027-03-28T01:30:00.000Z");
});
