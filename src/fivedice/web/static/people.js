// The players as the page names and pictures them: computers by their level in words ("Tricky computer"),
// everyone with an avatar of initials in a colour of their seat; the full name stays on the seat's chip.
import { N_, t } from "./i18n.js";

// The computer levels in plain words, weakest first (the server's own sentence is the detail).
export const LEVEL_WORDS = {
  random: N_("Random"),
  easy: N_("Easy"),
  greedy: N_("Casual"),
  tali: N_("Tricky"),
  medium: N_("Medium"),
  hard: N_("Hard"),
  optimal: N_("Perfect"),
  win: N_("Ruthless"),
};

// A level in words in the current language (a level the page does not know: its own name).
export const levelWord = (level) => (LEVEL_WORDS[level] ? t(LEVEL_WORDS[level]) : String(level || ""));

// Levels in the order of their strength, those the page does not know last.
export function byStrength(levels) {
  const order = Object.keys(LEVEL_WORDS);
  const rank = (l) => (order.includes(l) ? order.indexOf(l) : order.length);
  return [...levels].sort((a, b) => rank(a) - rank(b));
}

const DEFAULT_COMPUTER = /^Computer \d+$/; // the name the server gives a computer seat

// The name shown for a seat: a computer the server named "Computer 2" reads "Medium computer" (numbered
// when several share a level), in the current language; people by their own names.
export function seatName(room, seat) {
  const s = room.seats[seat];
  if (!s) return t("Seat {n}", { n: seat + 1 });
  if (s.kind === "computer" && s.level && (!s.name || DEFAULT_COMPUTER.test(s.name))) {
    const same = room.seats.filter((o) => o.kind === "computer" && o.level === s.level && (!o.name || DEFAULT_COMPUTER.test(o.name)));
    const name = t("{level} computer", { level: levelWord(s.level) });
    return same.length > 1 ? `${name} ${same.indexOf(s) + 1}` : name;
  }
  return s.name || t("Seat {n}", { n: seat + 1 });
}

// Up to two letters for an avatar: the first letters of the first two words, else the first two letters.
export function initials(name) {
  const words = String(name || "?").trim().split(/[\s_.-]+/u).filter(Boolean);
  const letters = words.length > 1 ? [words[0], words[1]].map((w) => [...w][0]) : [...(words[0] || "?")].slice(0, 2);
  return letters.join("").toLocaleUpperCase();
}
