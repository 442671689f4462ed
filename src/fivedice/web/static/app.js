// The fivedice browser client: lobby and room screens over the JSON API and one WebSocket.
// The browser only sends intents (keep, roll, score, undo); the server rolls and decides.
import { initChrome } from "./chrome.js";
import { renderAnalysis, renderChallenge, renderRanking } from "./end.js";
import { N_, currentLanguage, eventText, t } from "./i18n.js";
import { initAccount, loadAccount, refreshLobby, showRoomInvite, signedIn } from "./account.js";
import { othersMove, tellChanges, turnOf } from "./moves.js";
import { setTitle, setTurns } from "./notify.js";
import { actingSeat, addLocalPlayer, followLocal, localTokens, renderHandover, resetLocal, saveLocalTokens } from "./local.js";
import { policyText } from "./timers.js";
import { applyDelta } from "./delta.js";
import { applyHint, askHint, initHints, showHint } from "./hints.js";
import { initHowToPlay } from "./how.js";
import { startLanguage } from "./language.js";
import { addComputer, dailyRequest, howToPlay, loadCatalogue, playerName, quickRequest, roomRequest, showLobby, storedName } from "./lobby.js";
import {
  $, appendLine, controlsReason, renderCards, renderDice, renderEvents, renderSeats, turnText,
} from "./render.js";

const ui = {
  code: null, // the room's invite code
  ws: null,
  room: null, // the latest snapshot from the server
  you: null, // our seat, or null when watching
  kept: new Set(), // positions of the dice we keep
  selected: null, // "card:box" chosen with the arrow keys (none until the player uses them)
  turn: null, // what identifies the current turn: kept dice stay kept between its rolls
  pending: false, // an intent is on its way: its buttons wait for the next state
  retry: 500,
  nextId: 1,
  quiet: new Set(), // ids of requests the page made by itself (the analysis, a challenge's result)
  asking: null, // "again" while a hint is asked again for its chances (not announced anew)
  status: "", // the connection line, an English text translated when shown
  hint: null, // the last hint, drawn again after a language switch
  plan: null, // the hint's first choice: {keep: Set of positions} or {box: "card:box"}
  analysis: undefined, // undefined: not asked; null: no solver; a text: why there is none; else the analysis
  autostart: false, // start the game as soon as every seat is taken (play now)
  shared: null, // the replay link of the finished game
  confirm: null, // "card:box" of a zero tapped once, waiting for the second tap
  lit: new Set(), // "seat:card:box" of the boxes another player just filled
  lastMove: "", // what the last other player did, shown above the card
};

const tokenKey = (code) => `fivedice:token:${code}`;
const keptKey = (code) => `fivedice:kept:${code}`;

function setStatus(text) {
  ui.status = text;
  $("#connection").textContent = text ? t(text) : "";
}

function toast(message) {
  const box = $("#toast");
  box.textContent = message;
  box.classList.add("show");
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => box.classList.remove("show"), 4000);
}

// Tell screen readers (the live region); the same text twice in a row is still read.
function announce(text) {
  if (!text) return;
  const box = $("#announce");
  box.textContent = "";
  requestAnimationFrame(() => (box.textContent = text));
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
async function create(body, autostart) {
  try {
    const made = await api("POST", "/api/rooms", body);
    localStorage.setItem(tokenKey(made.code), made.token);
    saveLocalTokens(made.code, made.tokens);
    history.pushState({}, "", made.link);
    openRoom(made.code, { autostart });
  } catch (err) {
    toast(err.message);
  }
}

function goToRoom(code, options = {}) {
  history.pushState({}, "", `/r/${code}`);
  openRoom(code, options);
}

// -- room --------------------------------------------------------------------------------
function openRoom(code, { autostart = false } = {}) {
  ui.code = code.toUpperCase();
  ui.room = null;
  ui.you = null;
  ui.autostart = autostart;
  ui.analysis = undefined;
  ui.challenge = null;
  ui.challengeAsked = false;
  ui.shared = null;
  ui.turn = null;
  resetLocal();
  ui.lit = new Set();
  ui.lastMove = "";
  ui.confirm = null;
  $("#lobby").hidden = true;
  $("#room").hidden = false;
  $("#room-code").textContent = ui.code;
  $("#room-gone").hidden = true;
  $("#room .room-grid").hidden = false;
  $("#chat-log").replaceChildren();
  const link = `${location.origin}/r/${ui.code}`;
  $("#invite-link").textContent = link;
  $("#invite-link").href = link;
  $("#join-form").elements.name.value = signedIn() ? signedIn().name : storedName();
  $("#qr-box").open = false;
  $("#qr").removeAttribute("src");
  $("#share-invite").hidden = !navigator.share;
  setTurns(0);
  setTitle("fivedice — " + t("room {code}", { code: ui.code }));
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
    const token = localStorage.getItem(tokenKey(ui.code));
    const hello = { type: "hello", token, lang: currentLanguage(), deltas: true }; // after the first state, changes only
    if (token && localTokens(ui.code).length) hello.tokens = localTokens(ui.code); // pass and play
    if (!token && storedName()) hello.name = storedName(); // a spectator is listed by name
    ws.send(JSON.stringify(hello));
  });
  ws.addEventListener("message", (event) => receive(JSON.parse(event.data)));
  ws.addEventListener("close", (event) => {
    if (ui.ws !== ws) return;
    ui.pending = false;
    if (event.code === 4404) {
      // a bad or expired invite: the room is gone, say so and offer the lobby (never "reconnecting" forever)
      setStatus(N_("not in this room"));
      $("#room .room-grid").hidden = true;
      $("#room-gone").hidden = false;
      $("#room-gone a").focus();
      return;
    }
    if (event.code === 4400 || event.code === 4429) {
      setStatus(N_("not in this room")); // the server refused the token, or this address has too many sockets
      return;
    }
    if (event.code === 4408 && document.visibilityState !== "visible") {
      setStatus(N_("offline — reconnecting…")); // a hidden spectator's page, let go: back when it is shown
      ui.idle = true;
      return;
    }
    setStatus(N_("offline — reconnecting…"));
    setTimeout(connect, ui.retry);
    ui.retry = Math.min(ui.retry * 2, 8000);
  });
}

// A spectator's page shows a sign of life while it is shown (the server lets idle watchers go), and a page
// let go while hidden comes back when it is shown again.
setInterval(() => {
  if (ui.ws && ui.ws.readyState === WebSocket.OPEN && ui.you === null && ui.room && document.visibilityState === "visible") {
    ui.ws.send(JSON.stringify({ type: "ping", id: ui.nextId++ }));
  }
}, 60_000);
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible" && ui.idle && ui.code) {
    ui.idle = false;
    connect();
  }
});

// Send an intent; its buttons stay disabled until the state it causes (or an error) arrives.
function send(message, { intent = true } = {}) {
  if (!ui.ws || ui.ws.readyState !== WebSocket.OPEN) {
    toast(t("Not connected to the server; reconnecting."));
    return false;
  }
  // an intent carries the room version this page last saw: the server refuses it for any other
  // (a double click, two quick key presses, a message sent twice act once)
  const version = intent && ui.room ? { version: ui.room.version } : {};
  ui.ws.send(JSON.stringify({ ...message, ...version, ...actingSeat(), id: ui.nextId++ }));
  if (intent) {
    ui.pending = true;
    if (ui.room) render();
  }
  return true;
}

function receive(msg) {
  if (msg.type === "delta") {
    const state = applyDelta(ui.room, msg);
    if (state === null) {
      connect(); // not from the state this page has (never on one connection): the whole state again
      return;
    }
    msg = { ...msg, type: "state", state };
  }
  if (msg.type === "state") {
    if (ui.room && msg.state.version < ui.room.version) return; // an older broadcast arrived late
    const before = ui.room;
    ui.room = msg.state;
    ui.you = followLocal(msg, ui.room);
    ui.pending = false;
    setStatus(ui.you === null ? N_("watching") : N_("connected"));
    followTurn(before);
    render();
    announce(tellChanges(before, ui.room, ui.you, ui.kept));
    if (ui.autostart && ui.room.status === "lobby" && ui.you === 0 && ui.room.seats.every((s) => s.taken)) {
      ui.autostart = false;
      send({ type: "start" });
    }
    if (ui.room.status === "over" && ui.analysis === undefined && !ui.asked) {
      ui.asked = true;
      ui.analysisId = ui.nextId;
      ui.quiet.add(ui.nextId); // asked by the page itself: a refusal is shown in its place, never as a toast
      send({ type: "analysis" }, { intent: false });
    }
    if (ui.room.status === "over" && ui.room.challenge && !ui.challenge && !ui.challengeAsked) {
      ui.challengeAsked = true;
      ui.quiet.add(ui.nextId);
      send({ type: "challenge" }, { intent: false });
    }
  } else if (msg.type === "presence") {
    // a small update of who is online and who watches (servers that send it instead of a whole state)
    if (!ui.room) return;
    for (const s of ui.room.seats) s.online = s.kind === "computer" || (msg.online || []).includes(s.seat);
    ui.room.spectators = msg.spectators;
    ui.room.watchers = msg.watchers;
    renderSeats(ui.room, ui.you);
  } else if (msg.type === "error" && ui.quiet.has(msg.id)) {
    ui.quiet.delete(msg.id); // the analysis (or challenge result) the page asked for is not to be had
    if (msg.id === ui.analysisId) {
      ui.analysis = msg.message;
      ui.asked = false;
      renderAnalysis(ui.analysis, ui.room);
    }
  } else if (msg.type === "error") {
    ui.pending = false;
    toast(msg.message);
    if (!ui.room) setStatus(N_("not in this room"));
    else render();
  } else if (msg.type === "chat") {
    appendLine("#chat-log", `${msg.name}: ${msg.text}`);
  } else if (msg.type === "chat_history") {
    $("#chat-log").replaceChildren();
    for (const line of msg.lines) appendLine("#chat-log", `${line.name}: ${line.text}`);
  } else if (msg.type === "notice") {
    const text = msg.msg ? eventText(msg) : msg.text;
    if ($("#events").lastElementChild?.textContent !== text) appendLine("#events", text); // the state may list it already
    announce(text);
  } else if (msg.type === "hint") {
    showHint(msg);
  } else if (msg.type === "challenge") {
    ui.challenge = msg;
    renderChallenge(msg);
  } else if (msg.type === "analysis") {
    ui.analysis = msg.analysis;
    ui.asked = false;
    renderAnalysis(ui.analysis, ui.room);
  }
}

// Kept dice stay kept between the rolls of one turn and across a reload; a new turn starts with none.
function followTurn(before) {
  const room = ui.room;
  const turn = turnOf(room);
  const g = room.game;
  const moved = !before || !before.game || before.game.moves !== (g && g.moves) || before.game_no !== room.game_no;
  if (turn !== ui.turn) {
    ui.turn = turn;
    ui.kept = new Set();
    ui.selected = null;
    const saved = JSON.parse(sessionStorage.getItem(keptKey(ui.code)) || "null");
    if (saved && saved.turn === turn && g && g.dice) ui.kept = new Set(saved.kept.filter((i) => i < g.dice.length));
  }
  if (moved) {
    ui.confirm = null;
    const seen = othersMove(before, room, ui.you);
    ui.lit = seen.lit;
    if (seen.line !== null) ui.lastMove = seen.line;
    ui.hint = null;
    ui.plan = null;
    $("#hint-box").replaceChildren();
  }
  if (room.status !== "over") {
    ui.analysis = undefined;
    ui.asked = false;
    ui.shared = null;
    ui.challenge = null;
    ui.challengeAsked = false;
    renderChallenge(null);
  }
  saveKept();
}

function saveKept() {
  if (ui.code) sessionStorage.setItem(keptKey(ui.code), JSON.stringify({ turn: ui.turn, kept: [...ui.kept] }));
}

function render() {
  const room = ui.room;
  const g = room.game;
  $("#room").dataset.version = room.version; // lets tests and tools wait for the next state
  renderHandover(room, showHandedOver);
  $("#turn-policy").textContent = policyText(room.settings);
  $("#rules-title").textContent = room.rules.title + (room.rules.spec.includes(" ") ? ` (${room.rules.spec})` : "");
  $("#challenge-title-room").hidden = !room.challenge;
  $("#challenge-title-room").textContent = room.challenge ? t("Challenge {code}", { code: room.challenge }) : "";
  if (room.goal && room.status !== "over") $("#challenge-title-room").textContent += " — " + t("Your goal: beat {total}, what the {level} player scored on these dice.", room.goal);
  const best = room.best; // alone, one's best under these rules (from the high scores)
  $("#best-title").hidden = !(typeof best === "number" && g && !room.challenge);
  if (typeof best === "number" && g) {
    const total = g.totals[0];
    $("#best-title").textContent = total > best ? t("New best: {total} (was {best})", { total, best }) : t("Beat your best: {best}", { best });
  }
  renderSeats(room, ui.you);
  setTurns(myTurn() && g.phase === "play" ? 1 : 0);
  showRoomInvite(ui.code, room, ui.you);
  if (ui.pending) $("#start").disabled = true;
  const openSeat = room.seats.some((s) => s.kind === "human" && !s.taken);
  $("#join-panel").hidden = !(ui.you === null && room.status === "lobby" && openSeat);
  $("#chat-form").hidden = ui.you === null;
  const playing = g && room.status === "playing";
  $("#dock").hidden = !playing;
  $("#card-box").hidden = !g;
  $("#over").hidden = room.status !== "over";
  $("#room").classList.toggle("in-play", Boolean(playing));
  $("#turn").hidden = !g;
  if (g) {
    const turn = $("#turn");
    turn.textContent = turnText(room, ui.you, Date.now() / 1000);
    turn.className = g.current === ui.you && playing && g.phase === "play" ? "yours" : ""; // the roll-off is the table's
    const plan = ui.plan || {};
    renderDice(room, ui.you, ui.kept, plan.keep || new Set(), toggleKeep);
    renderCards(room, ui.you, ui.selected, plan.box || null, score, { lit: ui.lit, confirm: ui.confirm });
    $("#last-move").textContent = ui.lastMove || "";
    const mine = myTurn();
    if (ui.pending) {
      $("#roll").disabled = true;
      for (const b of document.querySelectorAll("#cards td.opt button, #dice .die")) b.disabled = true;
    }
    $("#hint").hidden = !room.settings.hints;
    $("#hint").disabled = ui.pending || !(mine && g.dice && g.phase === "play");
    $("#undo").hidden = !(room.settings.undo && g.undo_by === ui.you && ui.you !== null);
    $("#undo").disabled = ui.pending;
    $("#undo").textContent = room.seats.length === 1 ? t("Undo") : t("Undo my score"); // alone: any decision
    $("#redo").hidden = !(g.redo_by === ui.you && ui.you !== null);
    $("#redo").disabled = ui.pending;
    $("#controls-why").textContent = playing ? controlsReason(room, ui.you, ui.pending) : "";
    if (room.status === "over") renderEnd();
  }
  renderEvents(room);
}

// The device changed hands: the next player of this device sees the board as theirs.
function showHandedOver(seat) {
  ui.you = seat;
  ui.kept = new Set();
  render();
  announce(t("Your turn."));
}

function renderEnd() {
  renderRanking(ui.room);
  $("#rematch").hidden = ui.you === null;
  $("#rematch").disabled = ui.pending;
  const link = $("#replay-link");
  link.hidden = !ui.shared;
  if (ui.shared) link.href = ui.shared;
  if (ui.analysis !== undefined || !$("#analysis").childElementCount) renderAnalysis(ui.analysis, ui.room);
}

function myTurn() {
  const room = ui.room;
  return room && room.game && room.status === "playing" && room.game.current === ui.you;
}

function toggleKeep(i) {
  const g = ui.room.game;
  if (!myTurn() || ui.pending || !g.dice || g.rolls_left <= 0 || g.phase !== "play" || i >= g.dice.length) return;
  if (ui.kept.has(i)) ui.kept.delete(i);
  else ui.kept.add(i);
  saveKept();
  const plan = ui.plan || {};
  renderDice(ui.room, ui.you, ui.kept, plan.keep || new Set(), toggleKeep);
  announce(ui.kept.has(i) ? t("Die {n} kept.", { n: i + 1 }) : t("Die {n} released.", { n: i + 1 }));
}

function roll() {
  if (!myTurn() || ui.pending || ui.room.game.phase !== "play" || ui.room.game.rolls_left <= 0) return;
  send({ type: "roll", keep: [...ui.kept].sort() });
}

// Score a box; a tap on a box that would score 0 asks once more (a second tap scores it).
function score(card, box, event = null) {
  if (!myTurn() || ui.pending) return;
  const key = `${card}:${box}`;
  const option = ui.room.game.options.find((o) => `${o.card}:${o.box}` === key);
  if (event && event.pointerType === "touch" && option && option.points === 0 && ui.confirm !== key) {
    ui.confirm = key;
    render();
    const label = ui.room.rules.boxes.find((b) => b.name === box).label;
    announce(t("Tap again to score 0 in {box}", { box: t(label) }));
    return;
  }
  ui.confirm = null;
  send({ type: "score", card, box });
}

function onKey(event) {
  const tag = event.target.tagName;
  if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || $("#room").hidden || !ui.room) return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (tag === "BUTTON" && (event.key === " " || event.key === "Enter")) return; // the button's own click
  if (event.repeat && (event.key === " " || event.key === "Enter")) return; // a held key rolls or scores once
  const g = ui.room.game;
  if (!g) return;
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  if (/^[1-9]$/.test(key) && Number(key) <= ui.room.rules.dice) {
    toggleKeep(Number(key) - 1);
  } else if (key === " " || key === "r") {
    event.preventDefault();
    roll();
  } else if (key === "h") {
    askHint();
  } else if (key === "a") {
    applyHint();
  } else if ((key === "ArrowDown" || key === "ArrowUp") && g.options.length && myTurn()) {
    event.preventDefault();
    const keys = g.options.map((o) => `${o.card}:${o.box}`);
    const at = keys.indexOf(ui.selected);
    const step = key === "ArrowDown" ? 1 : -1;
    ui.selected = keys[at < 0 ? (step > 0 ? 0 : keys.length - 1) : (at + step + keys.length) % keys.length];
    render();
    const o = g.options[keys.indexOf(ui.selected)];
    const label = ui.room.rules.boxes.find((b) => b.name === o.box).label;
    announce(t("Score {points} in {box}", { points: o.points, box: t(label) }));
  } else if (key === "Enter" && myTurn()) {
    if (!ui.selected) {
      toast(t("Choose a box with the arrow keys first, or click it."));
      return;
    }
    event.preventDefault();
    const [card, box] = ui.selected.split(":");
    score(Number(card), box);
  }
}

async function joinRoom(event) {
  event.preventDefault();
  const name = new FormData(event.target).get("name");
  try {
    const joined = await api("POST", `/api/rooms/${ui.code}/join`, { name });
    localStorage.setItem(tokenKey(ui.code), joined.token);
    localStorage.setItem("fivedice:name", name);
    connect();
  } catch (err) {
    toast(err.message);
  }
}

function sendChat(event) {
  event.preventDefault();
  const input = event.target.elements.text;
  if (input.value.trim()) send({ type: "chat", text: input.value }, { intent: false });
  input.value = "";
}

async function share() {
  try {
    const made = await api("POST", `/api/rooms/${ui.code}/replay?game=${ui.room.game_no}`);
    ui.shared = `${location.origin}${made.link}`;
    renderEnd();
    try {
      await navigator.clipboard.writeText(ui.shared);
      toast(t("Replay link copied."));
    } catch {
      toast(t("Copy the link shown next to the button."));
    }
    $("#replay-link").focus();
  } catch (err) {
    toast(err.message);
  }
}

function route() {
  const match = location.pathname.match(/^\/r\/([A-Za-z2-9]{8})$/);
  if (match) openRoom(match[1]);
  else {
    if (ui.ws) {
      const ws = ui.ws;
      ui.ws = null;
      ws.close();
    }
    setTurns(0);
    showOffline(false);
    showLobby(api, goToRoom, toast)
      .then(() => {
        setTitle("fivedice");
        return refreshLobby();
      })
      .catch((err) => (offline(err) ? showOffline(true) : toast(err.message)));
  }
}

// Without a network (a reload from the installed app's cache, a train's tunnel) the lobby says so, instead
// of a raw "Failed to fetch", an empty rule-set list and "no public room"; it comes back when online.
const offline = (err = null) => !navigator.onLine || err instanceof TypeError; // fetch's network failure

function showOffline(on) {
  $("#lobby").classList.toggle("offline", on);
  $("#offline-note").hidden = !on;
  if (on) setStatus(N_("offline"));
  else if (!ui.code) setStatus("");
}

window.addEventListener("online", () => {
  if (!$("#lobby").hidden && $("#lobby").classList.contains("offline")) route();
});

$("#create-form").addEventListener("submit", (event) => {
  event.preventDefault();
  create(roomRequest(new FormData(event.target)), false);
});
$("#quick-play").addEventListener("click", async () => {
  await loadCatalogue(api);
  create(quickRequest(), true);
});
$("#daily-play").addEventListener("click", () => create(dailyRequest(), true));
$("#player-name").addEventListener("change", () => playerName());
$("#open-form").addEventListener("submit", (event) => {
  event.preventDefault();
  goToRoom(new FormData(event.target).get("code").toUpperCase());
});
$("#add-computer").addEventListener("click", addComputer);
$("#add-local").addEventListener("click", addLocalPlayer);
$("#how-to-play").addEventListener("click", howToPlay);
initHowToPlay();
$("#join-form").addEventListener("submit", joinRoom);
$("#chat-form").addEventListener("submit", sendChat);
$("#start").addEventListener("click", () => send({ type: "start" }));
// the second click of a double click (detail 2) is the same gesture: one roll, whatever the server's speed
$("#roll").addEventListener("click", (event) => event.detail < 2 && roll());
$("#hint").addEventListener("click", askHint);
$("#undo").addEventListener("click", () => send({ type: "undo" }));
$("#redo").addEventListener("click", () => send({ type: "redo" }));
$("#rematch").addEventListener("click", () => send({ type: "rematch" }));
$("#share").addEventListener("click", share);
// the invite: the system's share sheet where there is one (phones), the QR code made by the server
initChrome({ room: () => ui.room, code: () => ui.code, api, toast, announce });
initHints({ ui, send, render, announce, myTurn, saveKept, roll, score });
document.addEventListener("keydown", onKey);
window.addEventListener("popstate", route);

setInterval(() => {
  if (ui.room && ui.room.deadline && ui.room.game) $("#turn").textContent = turnText(ui.room, ui.you, Date.now() / 1000);
}, 1000);
if ("serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js").catch(() => {});
initAccount(api, toast, goToRoom);
startLanguage({ ui, send, render, setStatus, toast, api, offline })
  .then(() => loadAccount())
  .finally(route);
