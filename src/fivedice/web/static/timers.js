// Turns that may wait days: the time left and a room's turn policy in words, and the create form's timer
// (a number and a unit, sent in seconds).
import { t, tn } from "./i18n.js";

// A duration in the largest units that say it well: "2 days 3 h", "5 h 10 min", "4 min 5 s", "40 s".
export function durationText(seconds) {
  const s = Math.max(0, Math.round(seconds));
  const days = Math.floor(s / 86400);
  const hours = Math.floor((s % 86400) / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  if (days) return tn("{n} day", "{n} days", days, { n: days }) + (hours ? " " + t("{n} h", { n: hours }) : "");
  if (hours) return t("{n} h", { n: hours }) + (minutes ? " " + t("{n} min", { n: minutes }) : "");
  if (minutes) return t("{n} min", { n: minutes }) + (s % 60 ? " " + t("{n} s", { n: s % 60 }) : "");
  return t("{n} s", { n: s });
}

// What the turn clock says: the time left, or that it is up.
export function leftText(left) {
  return left > 0 ? t("{time} left.", { time: durationText(left) }) : t("Time is up.");
}

// A room's turn timer and what happens when it runs out, in one line (empty without a timer).
export function policyText(settings) {
  if (!settings || !settings.timer) return "";
  const time = durationText(settings.timer);
  if (settings.away === "computer") return t("{time} a turn, then the computer plays it.", { time });
  if (settings.away === "forfeit")
    return tn(
      "{time} a turn, then the computer plays it; {n} missed turn forfeits.",
      "{time} a turn, then the computer plays it; {n} missed turns forfeit.",
      settings.forfeit_after,
      { time, n: settings.forfeit_after },
    );
  return t("{time} a turn, then the room waits.", { time });
}

// The create form's timer in seconds (null: none), from its number and unit fields.
export function timerSeconds(form) {
  const amount = Number(form.get("timer"));
  if (!form.get("timer") || !amount) return null;
  return Math.round(amount * Number(form.get("timer-unit") || 1));
}
