// Pass and play: several seats of one room played on this device, over one connection. The host names
// the people playing here when creating the room; the server gives their seats' tokens to this browser,
// and every intent names the seat it acts for. Between the turns of two players of this device, a
// hand-over screen names whose turn it is and hides the board until that player taps it.
import { t } from "./i18n.js";
import { $, el, nameOf } from "./render.js";

const localKey = (code) => `fivedice:local:${code}`;

export const local = {
  seats: [], // the seats played on this device (the first is the connection's own)
  shown: null, // the seat whose view the page shows
  handover: null, // the seat the device is being handed to (the board is hidden), or null
};

// The other seats' tokens from a room just created with players on this device.
export function saveLocalTokens(code, tokens) {
  if (tokens && tokens.length) localStorage.setItem(localKey(code), JSON.stringify(tokens));
}

// The hello's extra tokens for this room (none when it is not played on this device).
export function localTokens(code) {
  try {
    const tokens = JSON.parse(localStorage.getItem(localKey(code)) || "[]");
    return Array.isArray(tokens) ? tokens.filter((x) => typeof x === "string") : [];
  } catch {
    return [];
  }
}

// A room was opened: nothing is known yet about its seats on this device.
export function resetLocal() {
  local.seats = [];
  local.shown = null;
  local.handover = null;
}

// The seat the page acts and shows as "you", from a state message: the player to act when they play on
// this device (through the hand-over screen when the device changes hands), else the last one shown.
export function followLocal(msg, room) {
  local.seats = msg.seats || (msg.you === null ? [] : [msg.you]);
  if (local.seats.length < 2) {
    local.shown = msg.you;
    local.handover = null;
    return msg.you;
  }
  if (!local.seats.includes(local.shown)) local.shown = local.seats[0];
  const g = room.game;
  const next = g && room.status === "playing" && g.phase === "play" ? g.current : null;
  if (next !== null && local.seats.includes(next) && next !== local.shown && local.handover !== next) local.handover = next;
  return local.shown;
}

// The seat an intent acts for (named only on a connection that plays several seats).
export const actingSeat = () => (local.seats.length > 1 ? { seat: local.shown } : {});

// The hand-over screen, over the board while the device goes to the next player; `ready(seat)` shows the
// board to that seat's player.
export function renderHandover(room, ready) {
  const box = $("#handover");
  const seat = local.handover;
  box.hidden = seat === null;
  $("#room").classList.toggle("handing-over", seat !== null);
  if (seat === null) return;
  const name = nameOf(room, seat);
  $("#handover-title").textContent = t("Pass the device to {name}.", { name });
  const button = $("#handover-ready");
  button.textContent = t("I am {name}: show my turn", { name });
  button.onclick = () => {
    local.shown = seat;
    local.handover = null;
    ready(seat);
  };
  if (document.activeElement !== button) button.focus();
}

// The players of this device in the create form: one name field each.
export function addLocalPlayer() {
  const input = el("input", { name: "local", maxlength: "24", required: true, autocomplete: "off" });
  const item = el(
    "li",
    {},
    el("label", { class: "field" }, el("span", { "data-i18n": "Name", text: t("Name") }), input),
    el(
      "button",
      {
        type: "button",
        "data-i18n": "Remove",
        "data-i18n-attr": "aria-label",
        "data-i18n-source-aria-label": "Remove this player",
        "aria-label": t("Remove this player"),
        onclick: () => {
          item.remove();
          $("#add-local").focus();
        },
      },
      t("Remove"),
    ),
  );
  $("#local-list").append(item);
  input.focus();
}
