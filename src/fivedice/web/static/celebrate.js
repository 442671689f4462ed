// The moments worth a celebration: five alike scored (a Yahtzee), the upper bonus earned, a new personal
// best, a game won. A banner that pops in with a burst of confetti (a still banner under
// prefers-reduced-motion), read by screen readers, and a fanfare when the sound is on.
import { playFanfare } from "./dice.js";
import { t } from "./i18n.js";
import { $, el } from "./render.js";

const COLOURS = 12;

// Show the banner for `kind` (yahtzee, bonus, best, win) with `text`.
export function celebrate(kind, text) {
  const box = $("#celebration");
  const confetti = Array.from({ length: COLOURS }, (_v, i) => el("span", { class: `confetto c${i % 6}`, "aria-hidden": "true" }));
  confetti.forEach((c, i) => c.style.setProperty("--i", String(i)));
  box.replaceChildren(el("p", { class: `banner ${kind}`, text }), ...confetti);
  box.className = `show ${kind}`;
  box.hidden = false;
  playFanfare(kind);
  clearTimeout(celebrate.timer);
  celebrate.timer = setTimeout(() => {
    box.hidden = true;
    box.className = "";
  }, 2600);
}

// What `before` -> `room` (two snapshots of one game) gives the player at seat `you` to celebrate, in order.
export function moments(before, room, you) {
  const g = room.game;
  const b = before && before.game_no === room.game_no ? before.game : null;
  if (!g || !b || you === null || you === undefined) return [];
  const found = [];
  const mine = (cards) => (cards && cards[you]) || [];
  const now = mine(g.cards);
  const then = mine(b.cards);
  now.forEach((card, c) => {
    const old = then[c];
    if (!old) return;
    // five alike scored in a box, or a bonus for another: named by the box (Yahtzee, Yatzy, Generala...)
    const alike = b.dice && b.current === you && b.dice.length >= 5 && b.dice.every((v) => v === b.dice[0]);
    card.entries.forEach((v, i) => {
      if (alike && old.entries[i] === null && v !== null && v >= 50) found.push(["yahtzee", t("{box}!", { box: t(room.rules.boxes[i].label) })]);
    });
    if ((card.yahtzee_bonus || 0) > (old.yahtzee_bonus || 0) && !found.length) found.push(["yahtzee", t("{box}!", { box: t("Yahtzee") })]);
    if ((card.upper_bonus || 0) > 0 && !(old.upper_bonus > 0)) found.push(["bonus", t("Upper bonus: +{points}!", { points: card.upper_bonus })]);
  });
  const best = room.best;
  if (typeof best === "number" && !room.challenge && g.totals[you] > best && b.totals[you] <= best) {
    found.push(["best", t("New personal best: {total}!", { total: g.totals[you] })]);
  }
  if (room.status === "over" && before.status !== "over" && room.seats.length > 1) {
    const place = (g.standings || []).find((s) => s.seat === you);
    if (place && place.place === 1) found.push(["win", t("You win!")]);
  }
  return found;
}
