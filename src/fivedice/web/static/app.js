// The fivedice browser client: lobby and room screens over the JSON API and one WebSocket.
// The browser only sends intents (keep, roll, score, undo); the server rolls and decides.
import { N_, currentLanguage, eventText, loadLanguage, t } from "./i18n.js";
import {
  $, appendLine, el, renderAnalysis, renderCards, renderDice, renderEvents, renderHint, renderOver, renderSeats,
  turnText,
} from "./render.js";

const ui = {
  code: null, // the room's invite code
  ws: null,
  room: null, // the latest snapshot from the server
  you: null, // our seat, or null when watching
  kept: new Set(), // positions of the dice we keep
  selected: 0, // index into room.game.options for keyboard play
  lastMoves: -1,
  retry: 500,
  nextId: 1,
  status: "", // the connection line, an English text translated when shown
  hint: null, // the last hint and analysis shown, drawn again after a language switch
  analysis: undefined,
};

const languageKey = "fivedice:language";

function setStatus(text) {
  ui.status = text;
  $("#connection").textContent = text ? t(text) : "";
}

const tokenKey = (code) => `fivedice:token:${code}`;

function toast(message) {
  const box = $("#toast");
  box.textContent = message;
  box.classList.add("show");
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => box.classList.remove("show"), 4000);
}

async function api(method, path, body) {
  const url = `${path}${path.includes("?") ? "&" : "?"}lang=${encodeURIComponent(currentLanguage())}`;
  const response = await fetch(url, {
    method,
    headers: body ? { "Content-Type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error || t("The server answered {status}.", { status: response.status }));
  return data;
}

// -- lobby -------------------------------------------------------------------------------
let catalogue = null;

async function showLobby() {
  $("#room").hidden = true;
  $("#lobby").hidden = false;
  document.title = "fivedice";
  if (!catalogue || catalogue.language !== currentLanguage()) {
    catalogue = await api("GET", "/api/rules");
    catalogue.language = currentLanguage();
  }
  const select = $("#rules-select");
  if (!select.options.length) {
    for (const r of catalogue.rules) select.append(el("option", { value: r.name, text: r.name }));
    select.addEventListener("change", showRuleOptions);
    showRuleOptions();
  }
}

function showRuleOptions() {
  const rule = catalogue.rules.find((r) => r.name === $("#rules-select").value);
  const chosen = new Map([...$("#rule-options").querySelectorAll("select")].map((s) => [s.name, s.value]));
  $("#rules-description").textContent = rule.description;
  $("#rule-options").replaceChildren(
    ...rule.options.map((o) =>
      el(
        "label",
        { title: o.help },
        `${o.name.replace(/_/g, " ")}`,
        el(
          "select",
          { name: `option:${o.name}`, "aria-description": o.help },
          ...o.choices.map((c) => el("option", { value: c, text: c, selected: chosen.get(`option:${o.name}`) === c })),
        ),
      ),
    ),
  );
}

function addComputer() {
  const levels = Object.keys(catalogue.levels);
  const item = el(
    "li",
    {},
    el(
      "label",
      {},
      el("span", { "data-i18n": "Level", text: t("Level") }),
      el(
        "select",
        { name: "computer" },
        ...levels.map((l) => el("option", { value: l, text: l, title: catalogue.levels[l], selected: l === "greedy" })),
      ),
    ),
    el(
      "button",
      {
        type: "button",
        "data-i18n": "Remove",
        "data-i18n-attr": "aria-label",
        "data-i18n-source-aria-label": "Remove this computer",
        "aria-label": t("Remove this computer"),
        onclick: () => item.remove(),
      },
      t("Remove"),
    ),
  );
  $("#computer-list").append(item);
}

async function createRoom(event) {
  event.preventDefault();
  const form = new FormData(event.target);
  const options = {};
  for (const [key, value] of form.entries()) if (key.startsWith("option:")) options[key.slice(7)] = value;
  const body = {
    name: form.get("name"),
    rules: form.get("rules"),
    options,
    humans: Number(form.get("humans")),
    computers: form.getAll("computer"),
    hints: form.get("hints") === "on",
    undo: form.get("undo") === "on",
    timer: form.get("timer") ? Number(form.get("timer")) : null,
    away: form.get("away"),
  };
  try {
    const made = await api("POST", "/api/rooms", body);
    localStorage.setItem(tokenKey(made.code), made.token);
    history.pushState({}, "", made.link);
    openRoom(made.code);
  } catch (err) {
    toast(err.message);
  }
}

// -- room --------------------------------------------------------------------------------
function openRoom(code) {
  ui.code = code.toUpperCase();
  ui.room = null;
  ui.you = null;
  $("#lobby").hidden = true;
  $("#room").hidden = false;
  $("#room-code").textContent = ui.code;
  const link = `${location.origin}/r/${ui.code}`;
  $("#invite-link").textContent = link;
  $("#invite-link").href = link;
  document.title = "fivedice — " + t("room {code}", { code: ui.code });
  connect();
}

function connect() {
  if (ui.ws) ui.ws.close();
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/ws/${ui.code}`);
  ui.ws = ws;
  setStatus(N_("connecting…"));
  ws.addEventListener("open", () => {
    ui.retry = 500;
    ws.send(JSON.stringify({ type: "hello", token: localStorage.getItem(tokenKey(ui.code)), lang: currentLanguage() }));
  });
  ws.addEventListener("message", (event) => receive(JSON.parse(event.data)));
  ws.addEventListener("close", (event) => {
    if (ui.ws !== ws) return;
    setStatus(N_("offline — reconnecting…"));
    if (event.code === 4400) return; // the server refused the room or token: do not hammer it
    setTimeout(connect, ui.retry);
    ui.retry = Math.min(ui.retry * 2, 8000);
  });
}

function send(message) {
  if (!ui.ws || ui.ws.readyState !== WebSocket.OPEN) {
    toast(t("Not connected to the server; reconnecting."));
    return;
  }
  ui.ws.send(JSON.stringify({ ...message, id: ui.nextId++ }));
}

function receive(msg) {
  if (msg.type === "state") {
    if (ui.room && msg.state.version < ui.room.version) return; // an older broadcast arrived late
    ui.room = msg.state;
    ui.you = msg.you;
    setStatus(ui.you === null ? N_("watching") : N_("connected"));
    render();
  } else if (msg.type === "error") {
    toast(msg.message);
    if (!ui.room) setStatus(N_("not in this room"));
  } else if (msg.type === "chat") {
    appendLine("#chat-log", `${msg.name}: ${msg.text}`);
  } else if (msg.type === "notice") {
    appendLine("#events", msg.msg ? eventText(msg) : msg.text);
  } else if (msg.type === "hint") {
    ui.hint = msg;
    renderHint(msg, ui.room);
  } else if (msg.type === "analysis") {
    ui.analysis = msg.analysis;
    renderAnalysis(msg.analysis);
  }
}

function render() {
  const room = ui.room;
  const g = room.game;
  $("#room").dataset.version = room.version; // lets tests and tools wait for the next state
  $("#rules-title").textContent = room.rules.title + (room.rules.spec.includes(" ") ? ` (${room.rules.spec})` : "");
  renderSeats(room, ui.you);
  const openSeat = room.seats.some((s) => s.kind === "human" && !s.taken);
  $("#join-panel").hidden = !(ui.you === null && room.status === "lobby" && openSeat);
  $("#chat-form").hidden = ui.you === null;
  $("#play").hidden = !g;
  $("#over").hidden = room.status !== "over";
  if (g) {
    const moves = `${room.game_no}:${g.moves}`;
    if (moves !== ui.lastMoves) {
      ui.kept.clear();
      ui.selected = 0;
      ui.lastMoves = moves;
      ui.hint = null;
      $("#hint-box").replaceChildren();
    }
    const turn = $("#turn");
    turn.textContent = turnText(room, ui.you, Date.now() / 1000);
    turn.className = g.current === ui.you && room.status === "playing" ? "yours" : "";
    renderDice(room, ui.you, ui.kept, toggleKeep);
    $("#dice").hidden = $("#controls").hidden = room.status === "over";
    renderCards(room, ui.you, ui.selected, score);
    $("#hint").hidden = !room.settings.hints;
    $("#hint").disabled = !(g.current === ui.you && g.dice && room.status === "playing");
    $("#undo").hidden = !(room.settings.undo && g.undo_by === ui.you && ui.you !== null);
    if (room.status === "over") renderOver(room);
  }
  if (!g || room.status !== "over") {
    ui.analysis = undefined;
    $("#analysis").replaceChildren();
  }
  renderEvents(room);
}

function myTurn() {
  const room = ui.room;
  return room && room.game && room.status === "playing" && room.game.current === ui.you;
}

function toggleKeep(i) {
  const g = ui.room.game;
  if (!myTurn() || !g.dice || g.rolls_left <= 0 || g.phase !== "play") return;
  if (ui.kept.has(i)) ui.kept.delete(i);
  else ui.kept.add(i);
  renderDice(ui.room, ui.you, ui.kept, toggleKeep);
}

function roll() {
  if (!myTurn() || ui.room.game.rolls_left <= 0) return;
  send({ type: "roll", keep: [...ui.kept].sort() });
}

function score(card, box) {
  if (!myTurn()) return;
  send({ type: "score", card, box });
}

function onKey(event) {
  const tag = event.target.tagName;
  if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || $("#room").hidden || !ui.room) return;
  if (tag === "BUTTON" && (event.key === " " || event.key === "Enter")) return; // the button's own click
  const g = ui.room.game;
  if (!g) return;
  if (/^[1-9]$/.test(event.key) && Number(event.key) <= ui.room.rules.dice) {
    toggleKeep(Number(event.key) - 1);
  } else if (event.key === " ") {
    event.preventDefault();
    roll();
  } else if ((event.key === "ArrowDown" || event.key === "ArrowUp") && g.options.length && myTurn()) {
    event.preventDefault();
    const step = event.key === "ArrowDown" ? 1 : -1;
    ui.selected = (ui.selected + step + g.options.length) % g.options.length;
    renderCards(ui.room, ui.you, ui.selected, score);
  } else if (event.key === "Enter" && g.options.length && myTurn()) {
    event.preventDefault();
    const o = g.options[Math.min(ui.selected, g.options.length - 1)];
    score(o.card, o.box);
  }
}

async function joinRoom(event) {
  event.preventDefault();
  const name = new FormData(event.target).get("name");
  try {
    const joined = await api("POST", `/api/rooms/${ui.code}/join`, { name });
    localStorage.setItem(tokenKey(ui.code), joined.token);
    connect();
  } catch (err) {
    toast(err.message);
  }
}

function sendChat(event) {
  event.preventDefault();
  const input = event.target.elements.text;
  if (input.value.trim()) send({ type: "chat", text: input.value });
  input.value = "";
}

function route() {
  const match = location.pathname.match(/^\/r\/([A-Za-z2-9]{8})$/);
  if (match) openRoom(match[1]);
  else showLobby().catch((err) => toast(err.message));
}

$("#create-form").addEventListener("submit", createRoom);
$("#open-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const code = new FormData(event.target).get("code").toUpperCase();
  history.pushState({}, "", `/r/${code}`);
  openRoom(code);
});
$("#add-computer").addEventListener("click", addComputer);
$("#join-form").addEventListener("submit", joinRoom);
$("#chat-form").addEventListener("submit", sendChat);
$("#start").addEventListener("click", () => send({ type: "start" }));
$("#roll").addEventListener("click", roll);
$("#hint").addEventListener("click", () => send({ type: "hint" }));
$("#undo").addEventListener("click", () => send({ type: "undo" }));
$("#rematch").addEventListener("click", () => send({ type: "rematch" }));
$("#show-analysis").addEventListener("click", () => send({ type: "analysis" }));
$("#copy-link").addEventListener("click", async () => {
  try {
    await navigator.clipboard.writeText($("#invite-link").href);
    toast(t("Invite link copied."));
  } catch {
    toast(t("Copy the link shown next to the button."));
  }
});
document.addEventListener("keydown", onKey);
window.addEventListener("popstate", route);
// -- language: the selector switches at any moment; the game and the page state stay as they are ------
async function switchLanguage(wanted) {
  const code = await loadLanguage(wanted);
  localStorage.setItem(languageKey, code);
  $("#language").value = code;
  setStatus(ui.status);
  if (ui.ws && ui.ws.readyState === WebSocket.OPEN) {
    ui.ws.send(JSON.stringify({ type: "language", lang: code, id: ui.nextId++ }));
    // the analysis names its moves in words: ask again for them in the new language
    if (ui.analysis) ui.ws.send(JSON.stringify({ type: "analysis", id: ui.nextId++ }));
  }
  if (ui.room) {
    render();
    if (ui.hint) renderHint(ui.hint, ui.room);
    if (ui.analysis !== undefined) renderAnalysis(ui.analysis);
    document.title = "fivedice — " + t("room {code}", { code: ui.code });
  }
  if (!$("#lobby").hidden || catalogue) {
    catalogue = await api("GET", "/api/rules");
    catalogue.language = code;
    if ($("#rules-select").options.length) showRuleOptions();
    for (const select of document.querySelectorAll('#computer-list select[name="computer"]')) {
      for (const option of select.options) option.title = catalogue.levels[option.value] || "";
    }
  }
}

async function startLanguage() {
  // no ?lang= here: the server answers with the best language of the browser's Accept-Language
  const found = await fetch("/api/languages")
    .then((response) => response.json())
    .catch(() => ({ languages: { en: "English" }, current: "en" }));
  const select = $("#language");
  select.replaceChildren(...Object.entries(found.languages).map(([code, name]) => el("option", { value: code, text: name })));
  const stored = localStorage.getItem(languageKey);
  const wanted = stored && stored in found.languages ? stored : found.current;
  select.value = wanted;
  select.addEventListener("change", () => switchLanguage(select.value).catch((err) => toast(err.message)));
  if (wanted !== "en") await loadLanguage(wanted).catch((err) => toast(err.message));
}

setInterval(() => {
  if (ui.room && ui.room.deadline && ui.room.game) $("#turn").textContent = turnText(ui.room, ui.you, Date.now() / 1000);
}, 1000);
startLanguage().finally(route);
