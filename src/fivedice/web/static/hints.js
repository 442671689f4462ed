// The hint in the room page: asked for the player to act, its first choice marked on the dice (the positions
// holding the dice to keep) or on the card, applied with one key, and asked again while its chances are prepared.
import { t } from "./i18n.js";
import { $, renderHint } from "./render.js";

let page = null; // the room page: {ui, send, render, announce, myTurn, saveKept, roll, score} (see initHints)

export function initHints(context) {
  page = context;
}

export function askHint() {
  const { ui } = page;
  if (!page.myTurn() || ui.pending || !ui.room.settings.hints || !ui.room.game.dice) return;
  page.send({ type: "hint" }, { intent: false });
}

// The hint's first choice: {keep: Set of the positions holding the dice to keep} (the server names them) or
// {box: "card:box"}, or null.
export function planOf(msg, game) {
  const best = msg.options[0];
  if (!best || !game || !game.dice) return null;
  if (best.action !== "keep") return { box: `${best.card || 0}:${best.box}`, option: best };
  return { keep: new Set(best.held || []), option: best };
}

export function showHint(msg) {
  const { ui } = page;
  ui.hint = msg;
  ui.plan = planOf(msg, ui.room && ui.room.game);
  const again = ui.asking === "again";
  ui.asking = null;
  renderHint(msg, ui.room, applyHint);
  page.render();
  const first = $("#hint-box li");
  if (first && (!again || msg.chances)) page.announce(t("Hint: {text}", { text: first.textContent })); // not every poll
  if (msg.note) setTimeout(() => askAgain(msg), 4000); // the chances are being prepared: ask while the hint is shown
}

// The same hint asked again (counted once) while it stays on screen, for its chances once they are prepared.
export function askAgain(shown) {
  const { ui } = page;
  if (ui.hint !== shown || !$("#hint-box").childElementCount || !page.myTurn() || ui.pending || document.hidden) return;
  ui.asking = "again";
  page.send({ type: "hint", again: true }, { intent: false });
}

export function applyHint() {
  const { ui } = page;
  const plan = ui.plan;
  if (!plan || !page.myTurn() || ui.pending) return;
  if (plan.keep) {
    ui.kept = new Set(plan.keep);
    page.saveKept();
    page.roll();
  } else {
    const [card, box] = plan.box.split(":");
    page.score(Number(card), box);
  }
}
