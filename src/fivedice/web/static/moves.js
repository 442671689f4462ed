// What a new state of the room tells the player: what changed, read aloud; the dice that tumble; the
// moments to celebrate; and another player's move, shown where the player looks (the boxes they just
// filled light up on the card, one line above it says what they did; the event log keeps the whole story).
import { celebrate, moments } from "./celebrate.js";
import { playChime, playRoll, playScore, tumble } from "./dice.js";
import { t } from "./i18n.js";
import { notifyTurn } from "./notify.js";
import { $, eventLines, nameOf } from "./render.js";

// From `before` to `room` (one game), for the player at seat `you`: `lit`, the "seat:card:box" of the
// boxes others filled, and `line`, the last event when the move was another's (null: keep the line shown;
// "" when there is no game to compare with).
export function othersMove(before, room, you) {
  const g = room.game;
  const b = before && before.game_no === room.game_no ? before.game : null;
  const lit = new Set();
  if (!g || !b) return { lit, line: "" };
  g.cards.forEach((cards, seat) => {
    if (seat === you) return;
    cards.forEach((card, c) =>
      card.entries.forEach((v, i) => {
        const old = b.cards[seat] && b.cards[seat][c];
        if (v !== null && old && old.entries[i] === null) lit.add(`${seat}:${c}:${room.rules.boxes[i].name}`);
      }),
    );
  });
  const lines = eventLines(room);
  return { lit, line: b.current !== you && lines.length ? lines[lines.length - 1] : null };
}

// The current turn's id, as the server says it (the same between a turn's rolls; null outside play):
// kept dice stay kept between its rolls.
export function turnOf(room) {
  return room.turn;
}

// What changed, to announce (and to hear and see: the dice tumble, a celebration, the chime): new events, the dice after a roll, whose turn it is, the totals after a score.
export function tellChanges(before, room, you, kept) {
  const g = room.game;
  const b = before && before.game_no === room.game_no ? before.game : null;
  const parts = [];
  if (g && b && g.moves !== b.moves) {
    parts.push(...eventLines(room).slice(-Math.max(1, Math.min(3, g.moves - b.moves))));
    const sameTurn = b.dice && b.current === g.current && g.rolls > b.rolls;
    if (g.dice && (!b.dice || g.rolls !== b.rolls || b.current !== g.current)) {
      const mine = g.current === you;
      const rolled = g.dice.map((_v, i) => i).filter((i) => !sameTurn || (mine ? !kept.has(i) : g.dice[i] !== b.dice[i]));
      tumble($("#dice"), rolled);
      playRoll(rolled.length);
      parts.push(t("Dice: {dice}.", { dice: g.dice.join(", ") }));
    } else {
      playScore();
      parts.push(t("Totals: {totals}.", { totals: room.seats.map((s) => `${nameOf(room, s.seat)} ${g.totals[s.seat]}`).join(", ") }));
    }
  }
  const started = g && (!b || b.current !== g.current || (before && before.status !== "playing"));
  const found = moments(before, room, you);
  if (found.length) {
    const text = found.map(([, line]) => line).join(" ");
    celebrate(found[found.length - 1][0], text);
    parts.push(text);
  }
  if (started && room.status === "playing" && g.current === you) {
    parts.push(t("Your turn."));
    if (before && g.phase === "play") playChime();
    if (before && g.phase === "play") notifyTurn(t("Your turn — round {round} of {rounds}.", g), `/r/${room.code}`);
  }
  if (room.status === "over" && before && before.status !== "over") parts.push(t("The game is over."));
  return parts.join(" ");
}
