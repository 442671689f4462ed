// The player's account in the lobby: sign up and in (password or passkey), sign out (everywhere),
// the password, deleting the account, turn notifications (Web Push) and quiet hours; "my games" with the
// games waiting for the player's move first, invitations, friends and blocks; in a room, inviting a friend.
// The session lives in an HttpOnly cookie the page never sees; guests play as before.
import { t } from "./i18n.js";
import { askPermission, canNotify, notifyTurn, setTurns } from "./notify.js";
import { $, el } from "./render.js";

const tokenPrefix = "fivedice:token:";
let api = null;
let toast = () => {};
let open = () => {};
let me = null; // the signed-in account (GET /api/me), null for a guest
let friends = [];
let timer = null;
let yourTurns = new Set(); // the games where it was the player's turn at the last look
let listed = false; // the first look tells nothing new

export const signedIn = () => me;

// Wire the account panel once: `call` is the page's api(), `show` its toast, `go` opens a room.
export function initAccount(call, show, go) {
  api = call;
  toast = show;
  open = go;
  $("#signin-form").addEventListener("submit", (e) => act(e, signIn));
  $("#signup-form").addEventListener("submit", (e) => act(e, signUp));
  $("#passkey-signin").addEventListener("click", () => run(passkeySignIn));
  $("#passkey-signup").addEventListener("click", () => run(passkeySignUp));
  $("#passkey-add").addEventListener("click", () => run(passkeyAdd));
  $("#signout").addEventListener("click", () => run(() => signOut(false)));
  $("#signout-everywhere").addEventListener("click", () => run(() => signOut(true)));
  $("#password-form").addEventListener("submit", (e) => act(e, changePassword));
  $("#delete-form").addEventListener("submit", (e) => act(e, deleteAccount));
  $("#quiet-form").addEventListener("submit", (e) => act(e, saveQuiet));
  $("#quiet-clear").addEventListener("click", () => run(() => saveSettings({ clear_quiet: true })));
  $("#push-toggle").addEventListener("change", (e) => run(() => setPush(e.target.checked)));
}

async function run(work) {
  try {
    await work();
  } catch (err) {
    if (err && err.name === "NotAllowedError") toast(t("The passkey was not used; nothing changed."));
    else toast(err.message);
  }
}

function act(event, work) {
  event.preventDefault();
  const form = event.target;
  run(() => work(Object.fromEntries(new FormData(form).entries()), form));
}

// -- who is signed in --------------------------------------------------------------------------
export async function loadAccount() {
  const response = await fetch("/api/me", { credentials: "same-origin" }).catch(() => null);
  me = response && response.ok ? await response.json() : null;
  drawAccount();
  return me;
}

function drawAccount() {
  $("#signed-out").hidden = Boolean(me);
  $("#signed-in").hidden = !me;
  $("#games-panel").hidden = !me;
  if (!me) {
    setTurns(0);
    yourTurns = new Set();
    listed = false;
    return;
  }
  $("#account-name").textContent = t("Signed in as {name}.", { name: me.name });
  $("#push-toggle").checked = me.push;
  const quiet = $("#quiet-form").elements;
  quiet.start.value = me.quiet ? me.quiet.start : "";
  quiet.end.value = me.quiet ? me.quiet.end : "";
  $("#password-form").elements.current.closest("label").hidden = !me.password;
  $("#delete-form").elements.password.closest("label").hidden = !me.password;
  const name = $("#player-name");
  if (name) name.value = me.name; // rooms are played under the account's name
}

async function signedInAs(account, message) {
  me = account;
  drawAccount();
  await claimGuestSeats();
  toast(message);
  await refreshLobby();
}

async function signIn(data, form) {
  const account = await api("POST", "/api/login", { name: data.name, password: data.password });
  form.reset();
  await signedInAs(account, t("Signed in as {name}.", { name: account.name }));
}

async function signUp(data, form) {
  const account = await api("POST", "/api/accounts", { name: data.name, password: data.password });
  form.reset();
  $("#signup-box").open = false;
  await signedInAs(account, t("Account {name} created; you are signed in.", { name: account.name }));
}

async function signOut(everywhere) {
  await api("POST", "/api/logout", { everywhere });
  me = null;
  drawAccount();
  toast(everywhere ? t("Signed out on every device.") : t("Signed out."));
}

async function changePassword(data, form) {
  me = await api("PUT", "/api/me/password", { current: data.current || null, new: data.new });
  form.reset();
  drawAccount();
  toast(t("Password changed; your other devices are signed out."));
}

async function deleteAccount(data) {
  if (!window.confirm(t("Delete the account {name}? Your games stay, under an anonymous name.", { name: me.name }))) return;
  await api("DELETE", "/api/me", { password: data.password || null });
  me = null;
  drawAccount();
  toast(t("The account is deleted."));
}

// The guest seats this browser holds (their tokens) go into the account, so every device finds them.
async function claimGuestSeats() {
  const seats = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (key.startsWith(tokenPrefix)) seats.push({ code: key.slice(tokenPrefix.length), token: localStorage.getItem(key) });
  }
  if (seats.length) await api("POST", "/api/me/seats", { seats: seats.slice(0, 100) }).catch(() => null);
}

// -- passkeys (WebAuthn) -------------------------------------------------------------------------
const fromB64 = (text) => Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
const toB64 = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

function creationOptions(o) {
  if (PublicKeyCredential.parseCreationOptionsFromJSON) return PublicKeyCredential.parseCreationOptionsFromJSON(o);
  return { ...o, challenge: fromB64(o.challenge), user: { ...o.user, id: fromB64(o.user.id) }, excludeCredentials: (o.excludeCredentials || []).map((c) => ({ ...c, id: fromB64(c.id) })) };
}

function requestOptions(o) {
  if (PublicKeyCredential.parseRequestOptionsFromJSON) return PublicKeyCredential.parseRequestOptionsFromJSON(o);
  return { ...o, challenge: fromB64(o.challenge), allowCredentials: (o.allowCredentials || []).map((c) => ({ ...c, id: fromB64(c.id) })) };
}

function credentialJSON(c) {
  if (c.toJSON) return c.toJSON();
  const r = c.response;
  const response = { clientDataJSON: toB64(r.clientDataJSON) };
  if (r.attestationObject) Object.assign(response, { attestationObject: toB64(r.attestationObject), transports: r.getTransports ? r.getTransports() : [] });
  if (r.authenticatorData) Object.assign(response, { authenticatorData: toB64(r.authenticatorData), signature: toB64(r.signature), userHandle: r.userHandle ? toB64(r.userHandle) : null });
  return { id: c.id, rawId: toB64(c.rawId), type: c.type, response, clientExtensionResults: c.getClientExtensionResults() };
}

function needPasskeys() {
  if (!window.PublicKeyCredential || !window.isSecureContext) throw new Error(t("Passkeys need a secure page (https); use a password here."));
}

async function register(body) {
  needPasskeys();
  const { ceremony, options } = await api("POST", "/api/passkeys/register/options", body);
  const credential = await navigator.credentials.create({ publicKey: creationOptions(options) });
  return api("POST", "/api/passkeys/register", { ceremony, credential: credentialJSON(credential) });
}

async function passkeySignUp() {
  const name = $("#signup-form").elements.name.value.trim();
  if (!name) throw new Error(t("Give the new account a name first."));
  const account = await register({ name });
  $("#signup-form").reset();
  $("#signup-box").open = false;
  await signedInAs(account, t("Account {name} created with a passkey; you are signed in.", { name: account.name }));
}

async function passkeyAdd() {
  me = await register({});
  drawAccount();
  toast(t("Passkey added: sign in with it on this device."));
}

async function passkeySignIn() {
  needPasskeys();
  const { ceremony, options } = await api("POST", "/api/passkeys/login/options", {});
  const credential = await navigator.credentials.get({ publicKey: requestOptions(options) });
  const account = await api("POST", "/api/passkeys/login", { ceremony, credential: credentialJSON(credential) });
  await signedInAs(account, t("Signed in as {name}.", { name: account.name }));
}

// -- notifications ----------------------------------------------------------------------------
async function saveSettings(body) {
  me = await api("PUT", "/api/me/settings", body);
  drawAccount();
}

async function saveQuiet(data) {
  if (!data.start || !data.end) throw new Error(t("Give the start and the end of the quiet hours."));
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  await saveSettings({ quiet: { start: data.start, end: data.end, zone } });
  toast(t("Quiet hours saved."));
}

// Turn notifications on: the browser's permission, then a Web Push subscription for this device.
async function setPush(on) {
  const status = $("#push-status");
  status.textContent = "";
  if (!on) {
    await saveSettings({ push: false });
    return;
  }
  if (!(await askPermission())) {
    $("#push-toggle").checked = false;
    status.textContent = canNotify() ? t("The browser does not allow notifications from this site.") : t("This browser cannot show notifications.");
    return;
  }
  await saveSettings({ push: true, lang: document.documentElement.lang || null });
  try {
    const registration = await navigator.serviceWorker.ready;
    const { key } = await api("GET", "/api/push/key");
    const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: fromB64(key) });
    await api("POST", "/api/me/push", subscription.toJSON());
    status.textContent = t("This device is told when your turn comes, even with the page closed.");
  } catch {
    status.textContent = t("Notifications show while this page is open; this browser could not subscribe to push messages.");
  }
}

// -- my games, invitations, friends --------------------------------------------------------------
export async function refreshLobby() {
  clearInterval(timer);
  if (!me) return;
  await Promise.all([refreshGames(), refreshFriends()]).catch((err) => toast(err.message));
  timer = setInterval(() => ($("#lobby").hidden || !me ? clearInterval(timer) : refreshGames().catch(() => {})), 10000);
}

function gameLine(g) {
  // the server names computer seats "Computer 1": in the page's language here
  const opponents = g.opponents.map((name) => (/^Computer \d+$/.test(name) ? t("Computer {n}", { n: name.split(" ")[1] }) : name));
  const players = opponents.length ? t("with {players}", { players: opponents.join(", ") }) : t("alone");
  let state;
  if (g.your_turn) state = t("Your turn — round {round} of {rounds}.", g);
  else if (g.status === "playing") state = t("{who}'s turn — round {round} of {rounds}.", { who: g.turn, round: g.round, rounds: g.rounds });
  else if (g.status === "lobby") state = t("Waiting for players");
  else state = t("Game over");
  const action = g.your_turn ? t("Play") : t("Open");
  return el(
    "li",
    { class: g.your_turn ? "yours" : null },
    el("span", { class: "room-rules", text: g.rules }),
    el("span", { class: "room-players", text: players }),
    el("span", { class: "game-state", text: state }),
    el("button", { type: "button", class: g.your_turn ? "primary" : null, "aria-label": t("{action}: {rules} {players}. {state}", { action, rules: g.rules, players, state }), onclick: () => open(g.code, {}) }, action),
  );
}

function inviteLine(i) {
  return el(
    "li",
    {},
    el("span", { class: "room-rules", text: i.rules }),
    el("span", { class: "room-players", text: t("{name} invites you", { name: i.from }) }),
    el(
      "span",
      { class: "buttons" },
      el("button", { type: "button", class: "primary", onclick: () => open(i.code, {}) }, t("Join")),
      el("button", { type: "button", onclick: () => run(async () => { await api("DELETE", `/api/me/invites/${i.code}`); await refreshGames(); }) }, t("Decline")),
    ),
  );
}

export async function refreshGames() {
  if (!me) return null;
  const found = await api("GET", "/api/me/games");
  $("#my-games").replaceChildren(...found.games.map(gameLine));
  $("#my-invites").replaceChildren(...found.invites.map(inviteLine));
  $("#no-games").hidden = found.games.length + found.invites.length > 0;
  setTurns(found.your_turns);
  // a turn that came while the lobby was in the background: a system notification (the page is open)
  const fresh = found.games.filter((g) => g.your_turn && !yourTurns.has(g.code));
  yourTurns = new Set(found.games.filter((g) => g.your_turn).map((g) => g.code));
  if (fresh.length && listed) notifyTurn(t("{rules} {players}. {state}", { rules: fresh[0].rules, players: t("with {players}", { players: fresh[0].opponents.join(", ") }), state: t("Your turn — round {round} of {rounds}.", fresh[0]) }), fresh[0].link);
  listed = true;
  return found;
}

function personLine(p, ...buttons) {
  return el("li", {}, el("span", { class: "room-rules", text: p.name }), el("span", { class: "buttons" }, ...buttons));
}

function button(text, label, work) {
  return el("button", { type: "button", "aria-label": label, onclick: () => run(async () => { await work(); await refreshFriends(); }) }, text);
}

async function refreshFriends() {
  if (!me) return;
  const found = await api("GET", "/api/me/friends");
  friends = found.friends.map((f) => f.name);
  const rows = [
    ...found.friends.map((f) => personLine(f, button(t("Remove"), t("Remove {name} from your friends", f), () => api("DELETE", `/api/me/friends/${encodeURIComponent(f.name)}`)))),
    ...found.played_with.filter((p) => !p.friend).map((p) =>
      personLine(
        p,
        button(t("Add friend"), t("Add {name} as a friend", p), () => api("POST", "/api/me/friends", { name: p.name })),
        button(t("Block"), t("Block {name}", p), () => api("POST", "/api/me/blocks", { name: p.name })),
      ),
    ),
    ...found.blocked.map((b) => personLine({ name: t("{name} (blocked)", b) }, button(t("Unblock"), t("Unblock {name}", b), () => api("DELETE", `/api/me/blocks/${encodeURIComponent(b.name)}`)))),
  ];
  $("#friends").replaceChildren(...rows);
  $("#no-friends").hidden = rows.length > 0;
}

// -- in a room: invite a friend to an open seat ------------------------------------------------------
export async function showRoomInvite(code, room, you) {
  const form = $("#invite-form");
  const wanted = me && you !== null && room.status === "lobby" && room.seats.some((s) => s.kind === "human" && !s.taken);
  if (wanted && !friends.length) await refreshFriends().catch(() => {});
  form.hidden = !(wanted && friends.length);
  if (form.hidden) return;
  const select = $("#invite-name");
  if (select.options.length !== friends.length || [...select.options].some((o, i) => o.value !== friends[i])) {
    select.replaceChildren(...friends.map((name) => el("option", { value: name, text: name })));
  }
  form.onsubmit = (event) => {
    event.preventDefault();
    run(async () => {
      await api("POST", "/api/me/invites", { name: select.value, code });
      toast(t("{name} is invited.", { name: select.value }));
    });
  };
}
