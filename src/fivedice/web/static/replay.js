// A finished game's replay: read-only, one frame per move, stepped with the buttons, the slider or the keys.
// The frames come from the server (the engine replays the stored moves); this page only shows them.
import { dieFace } from "./dice.js";
import { eventText, loadLanguage, t, tn } from "./i18n.js";
import { $, avatar, cardTable, el } from "./render.js";

const view = { data: null, step: 0 };
const languageKey = "fivedice:language";

function show() {
  const { data } = view;
  const frame = data.frames[view.step];
  const last = data.frames.length - 1;
  $("#step").max = String(last);
  $("#step").value = String(view.step);
  $("#step-text").textContent = t("Move {n} of {total}", { n: view.step, total: last });
  $("#step").setAttribute("aria-valuetext", t("Move {n} of {total}", { n: view.step, total: last }));
  $("#first").disabled = $("#prev").disabled = view.step === 0;
  $("#next").disabled = $("#last").disabled = view.step === last;
  $("#replay-event").textContent = frame.event ? eventText(frame.event) : t("The game is about to start.");
  const dice = $("#replay-dice");
  // a score clears the table: its frame shows the dice that were scored (those of the frame before)
  const before = view.step > 0 ? data.frames[view.step - 1] : null;
  const scored = !frame.dice && before && before.dice ? before.dice : null;
  if (frame.dice) {
    dice.setAttribute("aria-label", t("Dice: {dice}.", { dice: frame.dice.join(", ") }));
    dice.replaceChildren(...frame.dice.map((v, i) => el("span", { class: frame.held.includes(i) ? "die kept" : "die" }, dieFace(v))));
  } else if (scored) {
    dice.setAttribute("aria-label", t("Dice scored: {dice}.", { dice: scored.join(", ") }));
    dice.replaceChildren(...scored.map((v) => el("span", { class: "die scored" }, dieFace(v))));
  } else {
    dice.setAttribute("aria-label", t("No dice on the table."));
    dice.replaceChildren();
  }
  $("#replay-cards").replaceChildren(...cardTable(data.rules, data.players, frame.cards, { current: frame.phase === "over" ? null : frame.current }));
  const ranking = $("#replay-ranking");
  ranking.hidden = !(view.step === last && data.standings);
  if (data.standings) ranking.replaceChildren(...data.standings.map((s) => el("li", { text: tn("{place}. {name} — {total} point", "{place}. {name} — {total} points", s.total, s) })));
}

function go(step, { auto = false } = {}) {
  view.step = Math.max(0, Math.min(view.data.frames.length - 1, step));
  if (!auto) stop();
  show();
}

// Autoplay: a move every so often until the last one; any other step, or the button again, stops it.
const PACE = 1200; // milliseconds a move stays on screen

function stop() {
  clearInterval(view.timer);
  view.timer = null;
  $("#autoplay").setAttribute("aria-pressed", "false");
  $("#autoplay-icon").textContent = "⏵";
}

function autoplay() {
  if (view.timer) return stop();
  if (view.step >= view.data.frames.length - 1) go(0);
  $("#autoplay").setAttribute("aria-pressed", "true");
  $("#autoplay-icon").textContent = "⏸";
  view.timer = setInterval(() => {
    go(view.step + 1, { auto: true });
    if (view.step >= view.data.frames.length - 1) stop();
  }, PACE);
}

async function start() {
  const found = await fetch("/api/languages").then((r) => r.json()).catch(() => ({ languages: { en: "English" }, current: "en" }));
  const select = $("#language");
  select.replaceChildren(...Object.entries(found.languages).map(([code, name]) => el("option", { value: code, text: name })));
  const stored = localStorage.getItem(languageKey);
  select.value = stored && stored in found.languages ? stored : found.current;
  if (select.value !== "en") await loadLanguage(select.value).catch(() => {});
  select.addEventListener("change", async () => {
    const code = await loadLanguage(select.value);
    localStorage.setItem(languageKey, code);
    if (view.data) show();
  });
  const id = location.pathname.split("/").pop();
  const query = `${encodeURIComponent(id)}?lang=${encodeURIComponent(select.value)}`;
  let response = await fetch(`/api/replays/${query}`);
  // a game on a player's profile outlives its room: its moves are kept with the profile
  if (response.status === 404) response = await fetch(`/api/replays/kept/${query}`);
  const data = await response.json();
  if (!response.ok) {
    $("#replay-event").textContent = data.error || t("The server answered {status}.", { status: response.status });
    return;
  }
  view.data = data;
  document.title = t("fivedice replay: {rules}", { rules: data.rules.title });
  $("#replay-rules").textContent = data.rules.title;
  // each player whole, with the avatar that heads their column of the card
  $("#replay-players").replaceChildren(...data.players.map((name, seat) => el("span", { class: "replay-player" }, avatar(name, seat), name)));
  $("#first").addEventListener("click", () => go(0));
  $("#prev").addEventListener("click", () => go(view.step - 1));
  $("#next").addEventListener("click", () => go(view.step + 1));
  $("#last").addEventListener("click", () => go(Infinity));
  $("#autoplay").addEventListener("click", autoplay);
  $("#step").addEventListener("input", (event) => go(Number(event.target.value)));
  document.addEventListener("keydown", (event) => {
    if (event.target.tagName === "INPUT" || event.target.tagName === "SELECT") return;
    if (event.key === "ArrowRight") go(view.step + 1);
    else if (event.key === "ArrowLeft") go(view.step - 1);
    else if (event.key === "Home") go(0);
    else if (event.key === "End") go(Infinity);
  });
  $("#replay").dataset.ready = "true";
  show();
}

start();
