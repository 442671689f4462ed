// The lobby: play against the computer in one click, public rooms to join or watch, a new room with
// every rule-set option in words (what each choice does, in the player's language), or a room by code.
import { showHowToPlay } from "./how.js";
import { currentLanguage, t } from "./i18n.js";
import { boardLine } from "./end.js";
import { byStrength, levelWord } from "./people.js";
import { $, el } from "./render.js";

const nameKey = "fivedice:name";
export const storedName = () => localStorage.getItem(nameKey) || "";
export const rememberName = (name) => name && localStorage.setItem(nameKey, name);

let catalogue = null;
let timer = null;

export async function loadCatalogue(api, force = false) {
  if (force || !catalogue || catalogue.language !== currentLanguage()) {
    catalogue = await api("GET", "/api/rules");
    catalogue.language = currentLanguage();
  }
  return catalogue;
}

// Show the lobby; `open(code, {autostart})` opens a room, `api` calls the server, `toast` tells errors.
export async function showLobby(api, open, toast) {
  $("#room").hidden = true;
  $("#lobby").hidden = false;
  document.title = "fivedice";
  if (!$("#player-name").value) $("#player-name").value = storedName();
  await loadCatalogue(api);
  const select = $("#rules-select");
  if (!select.options.length) {
    for (const r of catalogue.rules) select.append(el("option", { value: r.name, text: ruleTitle(r) }));
    select.addEventListener("change", showRuleOptions);
  }
  showRuleOptions();
  relabelComputers();
  clearInterval(timer);
  const refresh = () => refreshRooms(api, open).catch(() => {});
  refreshDaily(api).catch(() => {});
  await refresh();
  timer = setInterval(() => ($("#lobby").hidden ? clearInterval(timer) : refresh()), 5000);
}

const ruleTitle = (r) => (r.explained ? r.description.split(":")[0] : r.name);

// After a language switch: the catalogue again in the new language, and every text drawn from it (the
// rule sets, their options, the computer levels) and today's leaderboard written anew.
export async function relabelLobby(api) {
  await loadCatalogue(api, true);
  for (const option of $("#rules-select").options) {
    const rule = catalogue.rules.find((r) => r.name === option.value);
    if (rule) option.textContent = ruleTitle(rule);
  }
  showRuleOptions();
  relabelComputers();
  await refreshDaily(api);
}

// Today's challenge: its leaderboard (the same dice for everyone today).
async function refreshDaily(api) {
  const { leaderboard } = await api("GET", "/api/challenges/today");
  $("#daily-board").replaceChildren(
    ...(leaderboard.length ? leaderboard.slice(0, 5).map(boardLine) : [el("li", { class: "muted", text: t("No one has played today's challenge yet.") })]),
  );
}

// The public rooms: join those waiting for players, watch those in play.
async function refreshRooms(api, open) {
  const { rooms } = await api("GET", "/api/lobby");
  $("#no-rooms").hidden = rooms.length > 0; // said only once the server has answered
  $("#public-rooms").replaceChildren(
    ...rooms.map((r) => {
      const players = r.players.map((p) => p.name).join(", ");
      const seats = r.status === "lobby" ? t("Open seats: {open} of {seats}", r) : t("in play");
      const action = r.status === "lobby" ? t("Join") : t("Watch");
      const spoken = r.status === "lobby" ? t("Join {rules} with {players}", { rules: r.rules.title, players }) : t("Watch {rules} with {players}", { rules: r.rules.title, players });
      return el(
        "li",
        {},
        el("span", { class: "room-rules", text: r.rules.title }),
        el("span", { class: "room-players", text: players }),
        el("span", { class: "muted", text: seats }),
        el("button", { type: "button", "aria-label": spoken, onclick: () => open(r.code, {}) }, action),
      );
    }),
  );
}

// Each option: a select of choices in words, and the chosen one's sentence under it.
export function showRuleOptions() {
  if (!catalogue) return;
  const rule = catalogue.rules.find((r) => r.name === $("#rules-select").value);
  const chosen = new Map([...$("#rule-options").querySelectorAll("select")].map((s) => [s.name, s.value]));
  $("#rules-description").textContent = rule.description;
  $("#rule-options").replaceChildren(
    ...(rule.explained || []).map((o) => {
      const id = `option-${o.name}-help`;
      const help = el("p", { id, class: "muted option-help" });
      const select = el(
        "select",
        { name: `option:${o.name}`, "aria-describedby": id },
        ...o.choices.map((c) => el("option", { value: c.value, text: c.label, selected: chosen.get(`option:${o.name}`) === c.value })),
      );
      const explain = () => {
        help.textContent = o.choices.find((c) => c.value === select.value).help;
      };
      select.addEventListener("change", explain);
      explain();
      return el("div", { class: "option" }, el("label", { class: "field" }, el("span", { text: o.title }), select), help);
    }),
  );
}

// A computer seat's level: a select of plain words ("Easy", "Tricky", "Perfect"), the server's sentence
// about the chosen level one tap away (a disclosure under it).
function levelHelp(select, help) {
  help.textContent = (catalogue && catalogue.levels[select.value]) || "";
}

function relabelComputers() {
  for (const item of document.querySelectorAll("#computer-list li")) {
    const select = item.querySelector('select[name="computer"]');
    for (const option of select.options) option.textContent = levelWord(option.value);
    levelHelp(select, item.querySelector(".level-help"));
  }
}

export function addComputer() {
  const levels = byStrength(Object.keys(catalogue.levels));
  const help = el("p", { class: "muted level-help" });
  const select = el(
    "select",
    { name: "computer" },
    ...levels.map((l) => el("option", { value: l, text: levelWord(l), selected: l === "medium" || (l === "greedy" && !levels.includes("medium")) })),
  );
  select.addEventListener("change", () => levelHelp(select, help));
  const item = el(
    "li",
    {},
    el(
      "div",
      { class: "computer-row" },
      el("label", { class: "field" }, el("span", { "data-i18n": "Level", text: t("Level") }), select),
      el(
        "button",
        {
          type: "button",
          "data-i18n": "Remove",
          "data-i18n-attr": "aria-label",
          "data-i18n-source-aria-label": "Remove this computer",
          "aria-label": t("Remove this computer"),
          onclick: () => {
            item.remove();
            $("#add-computer").focus();
          },
        },
        t("Remove"),
      ),
    ),
    el("details", { class: "level-about" }, el("summary", { "data-i18n": "About this level", text: t("About this level") }), help),
  );
  levelHelp(select, help);
  $("#computer-list").append(item);
}

// "How to play" for the rule set chosen in the form, with the options chosen there.
export function howToPlay() {
  if (!catalogue) return;
  const rule = catalogue.rules.find((r) => r.name === $("#rules-select").value);
  const chosen = new Map([...$("#rule-options").querySelectorAll("select")].map((s) => [s.name.replace(/^option:/, ""), s.value]));
  showHowToPlay(rule, chosen);
}

export function playerName() {
  const name = $("#player-name").value.trim() || storedName() || t("Player");
  rememberName(name);
  return name;
}

export function roomRequest(form) {
  const options = {};
  for (const [key, value] of form.entries()) if (key.startsWith("option:")) options[key.slice(7)] = value;
  return {
    name: playerName(),
    rules: form.get("rules"),
    options,
    humans: Number(form.get("humans")),
    computers: form.getAll("computer"),
    hints: form.get("hints") === "on",
    undo: form.get("undo") === "on",
    public: form.get("public") === "on",
    timer: form.get("timer") ? Number(form.get("timer")) : null,
    away: form.get("away"),
    challenge: (form.get("challenge") || "").trim() || null,
  };
}

// Today's challenge: Yahtzee alone on today's dice, without hints (the leaderboard compares decisions).
export function dailyRequest() {
  return { name: playerName(), rules: "yahtzee", humans: 1, computers: [], hints: false, undo: true, challenge: "daily" };
}

// One click: Yahtzee against a computer of medium strength (greedy where the solver is missing).
export function quickRequest() {
  const levels = Object.keys(catalogue.levels);
  const level = levels.includes("medium") ? "medium" : levels.includes("greedy") ? "greedy" : levels[0];
  return { name: playerName(), rules: "yahtzee", humans: 1, computers: [level], hints: true, undo: true };
}

export { relabelComputers };
