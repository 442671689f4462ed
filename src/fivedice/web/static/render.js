// Drawing the room from the server's snapshot. Every text goes in with textContent (never
// innerHTML), so names and chat are always escaped. No game rule lives here: the points
// shown for open boxes are the engine's own options, sent by the server. Every text goes through t()
// (./i18n.js), so drawing again after a language switch writes it in the new language.
import { dieFace } from "./dice.js";
import { leftText } from "./timers.js";
import { N_, eventText, t, tn } from "./i18n.js";
import { initials, levelWord, seatName } from "./people.js";

export const $ = (selector) => document.querySelector(selector);

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

export const number = (x, digits) =>
  Number(x).toLocaleString(document.documentElement.lang || "en", { minimumFractionDigits: digits, maximumFractionDigits: digits });

// A share (0..1) as a percentage in the page's language: 0.521 -> "52.1%" ("52,1 %" in Italian).
export const percent = (x, digits = 1) =>
  Number(x).toLocaleString(document.documentElement.lang || "en", { style: "percent", minimumFractionDigits: digits, maximumFractionDigits: digits });

export const nameOf = seatName;

// A round badge of initials in the seat's colour (decorative: the full name is written next to it or read).
export const avatar = (name, seat) => el("span", { class: `avatar seat-${seat % 8}`, "aria-hidden": "true", text: initials(name) });

// -- seats, spectators and the host's start button (with the reason when it cannot start yet) --------
export function renderSeats(room, you) {
  const g = room.game;
  const current = g && room.status === "playing" ? g.current : null;
  $("#seats").replaceChildren(
    ...room.seats.map((s) => {
      const label = s.taken || s.kind === "computer" ? nameOf(room, s.seat) : t("open seat");
      const kind = s.kind === "computer" ? t(" (computer, {level})", { level: levelWord(s.level) }) : "";
      const status = s.kind === "computer" ? "" : s.online ? t("online") : s.taken ? t("offline") : t("waiting");
      const total = g ? g.totals[s.seat] : null;
      const points = total === null ? "" : t("{points} points", { points: total });
      const spoken = [label + kind, status, points, s.seat === current ? t("playing now") : ""].filter(Boolean).join(", ");
      return el(
        "li",
        { class: s.seat === current ? "current" : null, "aria-label": spoken },
        avatar(label, s.seat),
        el("span", { class: s.online ? "dot on" : "dot", "aria-hidden": "true" }),
        el("span", { class: "seat-name", text: label + (s.seat === you ? t(" (you)") : "") }),
        total === null ? null : el("strong", { class: "seat-total", text: String(total) }),
      );
    }),
  );
  // spectators by name (a count only, from servers that send one)
  const watchers = room.spectators || Array(Number(room.watchers) || 0).fill(null);
  const named = watchers.filter((n) => n);
  const anonymous = watchers.length - named.length;
  let line = "";
  if (watchers.length) {
    const names = [...named];
    if (anonymous) names.push(`+${anonymous}`);
    line = t("Watching: {names}", { names: names.join(", ") });
  }
  $("#spectators").textContent = line;
  const start = $("#start");
  const open = room.seats.filter((s) => !s.taken).length;
  start.hidden = !(room.status === "lobby" && you === 0);
  start.disabled = open > 0;
  let why = "";
  if (room.status === "lobby" && you === 0 && open)
    why = t("Seats still open: {n}. Send the invite link to the players you are waiting for.", { n: open });
  else if (room.status === "lobby" && you !== 0) why = t("The host, {host}, starts the game when every seat is taken.", { host: nameOf(room, 0) });
  $("#start-why").textContent = why;
}

export function turnText(room, you, now) {
  const g = room.game;
  if (room.status === "lobby") return t("Waiting for the host to start the game.");
  if (room.status === "over") return t("The game is over.");
  const mine = g.current === you;
  const who = nameOf(room, g.current);
  let text;
  if (g.phase === "rolloff") {
    text = t("Roll-off to decide who starts: {who}'s roll.", { who: mine ? nameOf(room, you) : who });
  } else {
    const args = { who, round: g.round, rounds: g.rounds };
    text = mine ? t("Your turn — round {round} of {rounds}.", args) : t("{who}'s turn — round {round} of {rounds}.", args);
  }
  if (room.deadline) {
    const left = Math.round(room.deadline - now);
    text += " " + leftText(left);
  }
  return text;
}

// Why the roll and hint buttons are as they are (shown under them and read with them).
export function controlsReason(room, you, pending) {
  const g = room.game;
  if (you === null) return t("You are watching this game.");
  if (pending) return t("Waiting for the server…");
  if (g.phase === "rolloff") return t("The table rolls off for everyone; the highest total starts.");
  if (g.current !== you) return t("{who} is playing; your turn comes.", { who: nameOf(room, g.current) });
  if (!g.dice) return t("Roll the dice to start your turn.");
  if (g.rolls_left <= 0) return t("No rolls left: choose a box on your card.");
  return "";
}

// The dice: SVG faces, kept dice raised and marked; the roll button says what it will do.
export function renderDice(room, you, kept, hinted, onToggle) {
  const g = room.game;
  const mine = g.current === you && room.status === "playing";
  const canKeep = mine && g.phase === "play" && g.dice !== null && g.rolls_left > 0;
  const dice = g.dice || Array(room.rules.dice).fill(null);
  const row = $("#dice");
  const old = [...row.children];
  dice.forEach((v, i) => {
    const isKept = kept.has(i);
    const label =
      v === null
        ? t("Die {n}: not rolled", { n: i + 1 })
        : isKept
          ? t("Die {n}: {value}, kept", { n: i + 1, value: v })
          : t("Die {n}: {value}", { n: i + 1, value: v });
    let die = old[i];
    if (!die) {
      die = el("button", { type: "button", class: "die", onclick: () => onToggle(i) });
      die.append(dieFace(null), el("span", { class: "kept-mark", "aria-hidden": "true" }));
      row.append(die);
    }
    if (die.dataset.value !== String(v ?? "")) die.firstChild.replaceWith(dieFace(v));
    die.dataset.value = v ?? "";
    die.setAttribute("aria-pressed", isKept ? "true" : "false");
    die.setAttribute("aria-label", label);
    die.disabled = !canKeep;
    die.classList.toggle("kept", isKept);
    die.classList.toggle("hinted", hinted.has(i));
    die.lastChild.textContent = isKept ? t("kept") : "";
  });
  for (const extra of old.slice(dice.length)) extra.remove();
  const roll = $("#roll");
  roll.disabled = !(mine && g.phase === "play" && g.rolls_left > 0); // the table rolls the roll-off itself
  roll.textContent = kept.size ? t("Roll the other {n}", { n: dice.length - kept.size }) : t("Roll");
  const left = { left: g.rolls_left, rolls: room.rules.rolls };
  $("#rolls-left").textContent = g.phase === "play" ? t("Rolls left: {left} of {rolls}", left) : "";
}

// A score table: one column per player (per card, for multi-card rules), box names in a sticky first
// column. `options` maps "card:box" to points for the player to act (their open boxes become buttons).
// Each column is headed by the player's avatar (their full name is read, and shown on their chip);
// `lit` holds "seat:card:box" of boxes just filled by someone else, lit up for a moment.
export function cardTable(rules, names, cards, { current = null, options = null, selected = null, hinted = null, enabled = false, onScore = null, lit = null, confirm = null } = {}) {
  const ncards = rules.cards.length;
  const head = el("tr", {}, el("th", { scope: "col", class: "box-name", text: t("Box") }));
  names.forEach((name, seat) => {
    for (let c = 0; c < ncards; c++) {
      const card = rules.cards[c].replace("_", " ");
      const label = ncards > 1 ? `${name} (${card})` : name;
      head.append(
        el(
          "th",
          { scope: "col", class: seat === current ? "current-col" : null, title: label },
          avatar(name, seat),
          ncards > 1 ? el("span", { class: "card-name", "aria-hidden": "true", text: card }) : null,
          el("span", { class: "visually-hidden", text: label }),
        ),
      );
    }
  });
  const body = [];
  let upperDone = false;
  const sumRow = (label, pick) => {
    const row = el("tr", { class: "sum" }, el("th", { scope: "row", class: "box-name", text: label }));
    for (const seatCards of cards) for (const card of seatCards) row.append(el("td", { text: String(pick(card) ?? "") }));
    return row;
  };
  rules.boxes.forEach((box, i) => {
    if (box.section === "lower" && !upperDone) {
      upperDone = true;
      body.push(sumRow(t("Upper total"), (c) => c.upper_total));
      if (rules.upper_bonus && cards.some((s) => s.some((c) => "upper_bonus" in c))) body.push(sumRow(t("Upper bonus"), (c) => c.upper_bonus));
    }
    const label = t(box.label);
    const row = el("tr", {}, el("th", { scope: "row", class: "box-name", text: label }));
    cards.forEach((seatCards, seat) => {
      seatCards.forEach((card, c) => {
        const value = card.entries[i];
        const key = `${c}:${box.name}`;
        if (value !== null) row.append(el("td", { text: String(value), class: lit && lit.has(`${seat}:${c}:${box.name}`) ? "lit" : null }));
        else if (seat === current && options && options.has(key)) {
          const points = options.get(key);
          const asking = key === confirm; // a zero tapped once: a second tap scores it
          const classes = [points === 0 ? "zero" : "", asking ? "confirm" : "", key === selected ? "selected" : "", key === hinted ? "hinted" : ""].filter(Boolean).join(" ");
          let spoken =
            ncards > 1 ? t("Score {points} in {box} on card {card}", { points, box: label, card: c + 1 }) : t("Score {points} in {box}", { points, box: label });
          if (asking) spoken = t("Tap again to score 0 in {box}", { box: label });
          const button = el(
            "button",
            {
              type: "button",
              class: classes || null,
              disabled: !enabled,
              "aria-label": key === hinted ? t("{action} (the hint)", { action: spoken }) : spoken,
              "data-box": box.name,
              "data-card": c,
              onclick: onScore ? (event) => onScore(c, box.name, event) : null,
            },
            asking ? t("0?") : `+${points}`,
          );
          row.append(el("td", { class: "opt" }, button));
        } else row.append(el("td", { class: "open", text: "" }));
      });
    });
    body.push(row);
  });
  if (rules.yahtzee_bonus) body.push(sumRow(t("Yahtzee bonus"), (c) => c.yahtzee_bonus));
  body.push(sumRow(t("Total"), (c) => c.total));
  return [el("thead", {}, head), el("tbody", {}, ...body)];
}

export function renderCards(room, you, selected, hinted, onScore, { lit = null, confirm = null } = {}) {
  const g = room.game;
  const playing = room.status === "playing";
  const options = playing ? new Map(g.options.map((o) => [`${o.card}:${o.box}`, o.points])) : null;
  const names = room.seats.map((s) => nameOf(room, s.seat));
  $("#cards").replaceChildren(
    ...cardTable(room.rules, names, g.cards, {
      current: playing ? g.current : null,
      options,
      selected,
      hinted,
      enabled: playing && g.current === you,
      onScore,
      lit,
      confirm,
    }),
  );
}

// The hint: the solver's best choice in words on one line ("Keep the two 5s and roll"), applied with one
// key (A) or the Apply button, highlighted on the dice or the card; the other choices, with the points
// each is expected to make, one tap away.
const COUNT_WORDS = { 2: N_("two"), 3: N_("three"), 4: N_("four"), 5: N_("five"), 6: N_("six") };

// Dice to keep in words: [5, 5] -> "the two 5s", [4, 4, 4, 2] -> "the three 4s and the 2", [1, 2, 3] -> "the 1, 2 and 3".
export function diceWords(dice) {
  const counts = new Map();
  for (const v of dice) counts.set(v, (counts.get(v) || 0) + 1);
  const list = (items) => (items.length > 1 ? t("{first} and {last}", { first: items.slice(0, -1).join(", "), last: items[items.length - 1] }) : items[0]);
  if ([...counts.values()].every((n) => n === 1)) return t("the {face}", { face: list([...counts.keys()].map(String)) });
  const groups = [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || b[0] - a[0])
    .map(([face, n]) => (n === 1 ? t("the {face}", { face }) : t("the {count} {face}s", { count: COUNT_WORDS[n] ? t(COUNT_WORDS[n]) : n, face })));
  return list(groups);
}

// One choice in words; with `numbers`, the points it is expected to make and what it loses.
export function hintText(o, labels, numbers = true) {
  let text;
  if (o.action === "keep" && o.dice && o.dice.length) text = numbers ? t("Keep {dice} and roll", { dice: o.dice.join(" ") }) : t("Keep {dice} and roll", { dice: diceWords(o.dice) });
  else if (o.action === "keep") text = t("Reroll all");
  else text = t("Score {points} in {box}", { points: o.points, box: labels.get(o.box) || String(o.box).replace(/_/g, " ") });
  if (numbers && typeof o.value === "number") {
    const value = number(o.value, 1);
    text += " " + (o.loss ? t("(expected {value}, loss {loss})", { value, loss: number(o.loss, 1) }) : t("(expected {value})", { value }));
  }
  return text;
}

// An option's chance as the server rated it: to finish first (with rivals), or to finish above the goal
// (alone: one's best, or a challenge's goal); empty while the chances are being prepared.
export function chanceText(o, hint) {
  if (hint.chances === "win" && typeof o.win === "number") return t("win {chance}", { chance: percent(o.win) });
  if (hint.chances === "beat" && typeof o.beat === "number") return t("beat {goal}: {chance}", { goal: hint.goal, chance: percent(o.beat) });
  return "";
}

export function renderHint(hint, room, onApply) {
  const labels = new Map(((room && room.rules.boxes) || []).map((b) => [b.name, t(b.label)]));
  const item = (o, i) => {
    const chance = chanceText(o, hint);
    const words = i === 0 ? hintText(o, labels, false) : hintText(o, labels);
    return el("li", { class: i === 0 ? "best" : null }, words, chance ? " " : null, chance ? el("span", { class: "chance", text: chance }) : null);
  };
  const [best, ...others] = hint.options;
  const source = hint.source === "solver" ? t("Best choices (optimal solver):") : t("Boxes by points now (solver not available):");
  const note = hint.note ? [el("p", { class: "muted note", role: "status", text: hint.note })] : []; // the chances, being prepared
  const more = el("details", { class: "hint-more" }, el("summary", { text: source }), el("ol", {}, ...hint.options.map((o, i) => item(o, i + 1))));
  $("#hint-box").replaceChildren(
    el(
      "div",
      { class: "hint-line" },
      el("ol", { class: "hint-top", "aria-label": t("The hint") }, best ? item(best, 0) : null),
      el("button", { type: "button", id: "apply-hint", class: "primary", onclick: onApply, "aria-keyshortcuts": "A" }, t("Apply the hint (A)")),
    ),
    ...note,
    others.length || best ? more : null,
  );
}

// The room's events: each {msg, args} translated here (older servers sent English lines only).
// A computer the server named "Computer 2" is called by the name its chip shows ("Tricky computer").
export function eventLines(room) {
  if (!room.event_keys) return room.events;
  const names = new Map(room.seats.filter((s) => s.kind === "computer" && s.name).map((s) => [s.name, nameOf(room, s.seat)]));
  return room.event_keys.map((e) => eventText(e.args && names.has(e.args.player) ? { ...e, args: { ...e.args, player: names.get(e.args.player) } } : e));
}

export function renderEvents(room) {
  renderList("#events", eventLines(room));
}

export function renderList(selector, lines) {
  const list = $(selector);
  list.replaceChildren(...lines.map((line) => el("li", { text: line })));
  list.scrollTop = list.scrollHeight; // the latest at the bottom, in view
}

export function appendLine(selector, text, keep = 50) {
  const list = $(selector);
  list.append(el("li", { text }));
  while (list.children.length > keep) list.firstElementChild.remove();
  list.scrollTop = list.scrollHeight;
}
