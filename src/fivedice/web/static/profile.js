// A player's profile: figures, ratings, rivals, means and bests per rule set, luck and decisions over
// the games (one chart), personal bests, achievements and the history with replays; then the rating
// leaderboards of the player's main rule set. /profile is the signed-in player's own (with the switch
// that hides the public one), /profile/NAME someone's public profile. Texts go in with textContent.
import { splitChart, splitLegend } from "./end.js";
import { loadLanguage, t, translatePage } from "./i18n.js";
import { $, el, number, percent } from "./render.js";

const languageKey = "fivedice:language";
const view = { data: null, boards: null, own: false };

const ACHIEVEMENTS = {
  yahtzee: () => t("Five alike: a Yahtzee scored"),
  upper_bonus: () => t("Upper bonus earned"),
  flawless: () => t("A game without a mistake"),
  new_best: () => t("Beat your best"),
  challenge: () => t("A challenge within 5 points of optimal"),
};

const when = (seconds) => new Date(seconds * 1000).toLocaleDateString(document.documentElement.lang || "en");
const signed = (x) => (x < 0 ? "−" : "+") + number(Math.abs(x), 1);

function table(caption, head, rows) {
  return el(
    "div",
    { class: "card-box", role: "region", "aria-label": caption, tabindex: "0" },
    el(
      "table",
      { class: "score-table profile-table" },
      el("caption", { text: caption }),
      el("thead", {}, el("tr", {}, ...head.map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, ...rows.map((r) => el("tr", {}, ...r.map((c, i) => (i === 0 ? el("th", { scope: "row" }, c) : el("td", {}, c)))))),
    ),
  );
}

function figures(d) {
  const items = [
    [t("Games"), String(d.games)],
    [t("Wins"), d.multiplayer ? t("{wins} of {games} ({rate})", { wins: d.wins, games: d.multiplayer, rate: percent(d.wins / d.multiplayer, 0) }) : "–"],
    [t("Best"), d.best === null ? "–" : String(d.best)],
    [t("Mean"), d.mean === null ? "–" : number(d.mean, 1)],
    [t("Yahtzees"), String(d.yahtzees)],
    [t("Upper bonus"), d.bonus_rate === null ? "–" : percent(d.bonus_rate, 0)],
    [t("Skill rating"), d.rating ? t("{mu} ± {sigma} ({rules}; games: {games})", { mu: number(d.rating.mu, 1), sigma: number(d.rating.sigma, 1), rules: d.rating.rules, games: d.rating.games }) : "–"],
  ];
  const dr = d.decision_rating;
  items.push([
    t("Decision rating"),
    dr
      ? dr.low === null
        ? t("{mean} points lost per decision, grade {grade}", { mean: number(dr.mean, 2), grade: dr.grade })
        : t("{mean} points lost per decision ({low}–{high}), grade {grade}", { mean: number(dr.mean, 2), low: number(dr.low, 2), high: number(dr.high, 2), grade: dr.grade })
      : "–",
  ]);
  return el("dl", { class: "figures" }, ...items.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: v })]));
}

function show() {
  const d = view.data;
  if (!d) return;
  document.title = t("fivedice profile: {name}", { name: d.name });
  $("#profile-title").textContent = t("{name}'s profile", { name: d.name });
  const parts = [figures(d)];
  if (view.own) {
    const box = el("input", { type: "checkbox", id: "public", checked: d.public });
    box.addEventListener("change", async () => {
      const r = await fetch("/api/me/profile", { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ public: box.checked }) });
      $("#profile-status").textContent = r.ok ? (box.checked ? t("Your profile is public.") : t("Your profile is hidden.")) : t("The server answered {status}.", { status: r.status });
    });
    parts.push(el("p", {}, el("label", { class: "check", for: "public" }, box, " ", el("span", { text: t("Show my public profile and my place on the leaderboards") }))));
  }
  if (d.timeline.length) {
    let luck = 0;
    let loss = 0;
    const points = [{ luck: 0, loss: 0 }, ...d.timeline.map((p) => ({ luck: (luck += p.luck), loss: (loss += p.loss) }))];
    const last = points[points.length - 1];
    parts.push(
      el("h3", { text: t("Luck and decisions over the games") }),
      splitLegend(),
      splitChart(points, t("Analysed games: {n}; luck: {luck}; cost of decisions: {loss}.", { n: d.timeline.length, luck: signed(last.luck), loss: number(last.loss, 1) })),
    );
  }
  if (d.achievements.length) {
    parts.push(
      el("h3", { text: t("Achievements") }),
      el("ul", { class: "achievements" }, ...d.achievements.map((a) => el("li", { text: t("{title}: first on {date}, {count} in all", { title: (ACHIEVEMENTS[a.kind] || (() => a.kind))(), date: when(a.played_at), count: a.count }) }))),
    );
  }
  if (d.per_rules.length) parts.push(table(t("Per rule set"), [t("Rule set"), t("Games"), t("Mean"), t("Best")], d.per_rules.map((r) => [r.rules, String(r.games), number(r.mean, 1), String(r.best)])));
  if (d.rivals.length) parts.push(table(t("Against each opponent"), [t("Opponent"), t("Games"), t("Wins"), t("Win rate")], d.rivals.map((r) => [r.name, String(r.games), String(r.wins), percent(r.rate, 0)])));
  if (d.bests.length) parts.push(table(t("Personal bests"), [t("Date"), t("Rule set"), t("Total")], d.bests.map((b) => [when(b.played_at), b.rules, String(b.total)])));
  if (d.history.length) {
    parts.push(
      table(
        t("History"),
        [t("Date"), t("Rule set"), t("Total"), t("Place"), t("Luck"), t("Grade"), t("Replay")],
        d.history.map((g) => [
          when(g.played_at),
          g.rules,
          String(g.total),
          t("{place} of {players}", { place: g.place, players: g.players }),
          g.luck === null ? "–" : signed(g.luck),
          g.grade === null ? "–" : t("{grade} ({loss} per decision)", { grade: g.grade, loss: number(g.mean_loss, 2) }),
          g.replay ? el("a", { href: g.replay, text: t("Replay") }) : "–",
        ]),
      ),
    );
  } else {
    parts.push(el("p", { class: "muted", text: t("No finished games yet.") }));
  }
  $("#profile-body").replaceChildren(...parts);
  showBoards();
}

function showBoards() {
  const b = view.boards;
  $("#boards").hidden = !b;
  if (!b) return;
  $("#boards-title").textContent = t("Ratings: {rules}", { rules: b.rules });
  $("#boards-body").replaceChildren(
    b.skill.length
      ? table(t("By skill rating"), [t("Rank"), t("Player"), t("Rating"), t("Games")], b.skill.map((r) => [String(r.rank), r.name, t("{mu} ± {sigma}", { mu: number(r.mu, 1), sigma: number(r.sigma, 1) }), String(r.games)]))
      : el("p", { class: "muted", text: t("No skill ratings yet: they come from games between accounts.") }),
    b.decisions.length
      ? table(t("By decision rating"), [t("Rank"), t("Player"), t("Points lost per decision"), t("Games")], b.decisions.map((r) => [String(r.rank), r.name, number(r.mean, 2), String(r.games)]))
      : el("p", { class: "muted", text: t("No decision ratings yet.") }),
  );
}

// The leaderboards of one rule set (any built-in one, or one the player played), chosen in the select.
async function loadBoards(rules) {
  const response = await fetch(`/api/leaderboards/ratings?rules=${encodeURIComponent(rules)}`);
  view.boards = response.ok ? await response.json() : null;
  showBoards();
}

async function boardsPicker(rules, played) {
  const found = await fetch("/api/rules").then((r) => r.json()).catch(() => ({ rules: [] }));
  const names = [...new Set([rules, ...played, ...found.rules.map((r) => r.name)])];
  const select = $("#boards-rules");
  select.replaceChildren(...names.map((name) => el("option", { value: name, text: name })));
  select.value = rules;
  select.addEventListener("change", () => loadBoards(select.value));
}

async function start() {
  const found = await fetch("/api/languages").then((r) => r.json()).catch(() => ({ languages: { en: "English" }, current: "en" }));
  const select = $("#language");
  select.replaceChildren(...Object.entries(found.languages).map(([code, name]) => el("option", { value: code, text: name })));
  const stored = localStorage.getItem(languageKey);
  select.value = stored && stored in found.languages ? stored : found.current;
  if (select.value !== "en") await loadLanguage(select.value).catch(() => {});
  translatePage();
  select.addEventListener("change", async () => {
    const code = await loadLanguage(select.value);
    localStorage.setItem(languageKey, code);
    translatePage();
    show();
  });
  const parts = location.pathname.split("/").filter(Boolean);
  view.own = parts.length < 2;
  const url = view.own ? "/api/me/stats" : `/api/profiles/${encodeURIComponent(decodeURIComponent(parts[1]))}`;
  const response = await fetch(url);
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    $("#profile-status").textContent = response.status === 401 ? t("Sign in to see your profile.") : data.error || t("The server answered {status}.", { status: response.status });
    await boardsPicker("yahtzee", []);
    await loadBoards("yahtzee"); // the leaderboards are public
    $("#profile").dataset.ready = "true";
    return;
  }
  view.data = data;
  const rules = data.rating ? data.rating.rules : data.per_rules.length ? data.per_rules[0].rules : "yahtzee";
  await boardsPicker(rules, data.per_rules.map((r) => r.rules));
  await loadBoards(rules);
  show();
  $("#profile").dataset.ready = "true";
}

start();
