// Drawing the room from the server's snapshot. Every text goes in with textContent (never
// innerHTML), so names and chat are always escaped. No game rule lives here: the points
// shown for open boxes are the engine's own options, sent by the server. Every text goes through t()
// (./i18n.js), so drawing again after a language switch writes it in the new language.
import { eventText, t } from "./i18n.js";

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

const FACES = ["", "⚀", "⚁", "⚂", "⚃", "⚄", "⚅"];

export function nameOf(room, seat) {
  const s = room.seats[seat];
  return (s && s.name) || t("Seat {n}", { n: seat + 1 });
}

export function renderSeats(room, you) {
  const current = room.game && room.status === "playing" ? room.game.current : null;
  $("#seats").replaceChildren(
    ...room.seats.map((s) => {
      const label = s.name || t("open seat");
      const kind = s.kind === "computer" ? t(" (computer, {level})", { level: s.level }) : "";
      const status = s.kind === "computer" ? "" : s.online ? t("online") : s.taken ? t("offline") : t("waiting");
      return el(
        "li",
        { class: s.seat === current ? "current" : null, "aria-label": `${label}${kind}, ${status}` },
        el("span", { class: s.online ? "dot on" : "dot", "aria-hidden": "true" }),
        el("span", { text: label + kind + (s.seat === you ? t(" (you)") : "") }),
      );
    }),
  );
  const start = $("#start");
  start.hidden = !(room.status === "lobby" && you === 0);
  start.disabled = room.seats.some((s) => !s.taken);
}

export function turnText(room, you, now) {
  const g = room.game;
  if (room.status === "lobby") return t("Waiting for the host to start the game.");
  if (room.status === "over") return t("The game is over.");
  const mine = g.current === you;
  const who = nameOf(room, g.current);
  let text;
  if (g.phase === "rolloff") {
    text = mine ? t("Roll-off to decide who starts: your roll.") : t("Roll-off to decide who starts: {who}'s roll.", { who });
  } else {
    const args = { who, round: g.round, rounds: g.rounds };
    text = mine ? t("Your turn — round {round} of {rounds}.", args) : t("{who}'s turn — round {round} of {rounds}.", args);
  }
  if (room.deadline) {
    const left = Math.round(room.deadline - now);
    text += " " + (left > 0 ? t("{seconds} s left.", { seconds: left }) : t("Time is up."));
  }
  return text;
}

export function renderDice(room, you, kept, onToggle) {
  const g = room.game;
  const mine = g.current === you && room.status === "playing";
  const canKeep = mine && g.phase === "play" && g.dice !== null && g.rolls_left > 0;
  const dice = g.dice || Array(room.rules.dice).fill(null);
  $("#dice").replaceChildren(
    ...dice.map((v, i) =>
      el(
        "button",
        {
          type: "button",
          class: "die",
          "aria-pressed": kept.has(i) ? "true" : "false",
          "aria-label":
            v === null
              ? t("Die {n}: not rolled", { n: i + 1 })
              : kept.has(i)
                ? t("Die {n}: {value}, kept", { n: i + 1, value: v })
                : t("Die {n}: {value}", { n: i + 1, value: v }),
          title: v === null ? "" : `${FACES[v]} ${v}`,
          disabled: !canKeep,
          "data-value": v === null ? "" : v,
          onclick: () => onToggle(i),
        },
        v === null ? "–" : String(v),
      ),
    ),
  );
  const roll = $("#roll");
  roll.disabled = !(mine && g.rolls_left > 0);
  roll.textContent =
    g.phase === "rolloff" ? t("Roll off") : kept.size ? t("Roll the other {n}", { n: dice.length - kept.size }) : t("Roll");
  const left = { left: g.rolls_left, rolls: room.rules.rolls };
  $("#rolls-left").textContent = g.phase === "play" ? t("{left} of {rolls} rolls left", left) : "";
}

// The score cards side by side: one column per player (per card, for multi-card rules).
export function renderCards(room, you, selected, onScore) {
  const g = room.game;
  const boxes = room.rules.boxes;
  const ncards = room.rules.cards.length;
  const options = new Map(g.options.map((o) => [`${o.card}:${o.box}`, o.points]));
  const mine = g.current === you && room.status === "playing";
  const head = el("tr", {}, el("th", { scope: "col", text: t("Box") }));
  for (const s of room.seats) {
    for (let c = 0; c < ncards; c++) {
      const label = ncards > 1 ? `${nameOf(room, s.seat)} (${room.rules.cards[c].replace("_", " ")})` : nameOf(room, s.seat);
      head.append(el("th", { scope: "col", class: s.seat === g.current && room.status === "playing" ? "current-col" : null, text: label }));
    }
  }
  const body = [];
  let upperDone = false;
  const sumRow = (label, pick) => {
    const row = el("tr", { class: "sum" }, el("th", { scope: "row", text: label }));
    for (const cards of g.cards) for (const card of cards) row.append(el("td", { text: String(pick(card)) }));
    return row;
  };
  boxes.forEach((box, i) => {
    if (box.section === "lower" && !upperDone) {
      upperDone = true;
      body.push(sumRow(t("Upper total"), (c) => c.upper_total));
      if (room.rules.upper_bonus) body.push(sumRow(t("Upper bonus"), (c) => c.upper_bonus));
    }
    const label = t(box.label);
    const row = el("tr", {}, el("th", { scope: "row", text: label }));
    g.cards.forEach((cards, seat) => {
      cards.forEach((card, c) => {
        const value = card.entries[i];
        const key = `${c}:${box.name}`;
        if (value !== null) row.append(el("td", { text: String(value) }));
        else if (seat === g.current && options.has(key) && room.status === "playing") {
          const points = options.get(key);
          const index = g.options.findIndex((o) => o.card === c && o.box === box.name);
          const button = el("button", {
            type: "button",
            class: index === selected ? "selected" : null,
            disabled: !mine,
            "aria-label":
              ncards > 1
                ? t("Score {points} in {box} on card {card}", { points, box: label, card: c + 1 })
                : t("Score {points} in {box}", { points, box: label }),
            "data-box": box.name,
            "data-card": c,
            onclick: () => onScore(c, box.name),
          }, `+${points}`);
          row.append(el("td", { class: "opt" }, button));
        } else row.append(el("td", { class: "open", text: "" }));
      });
    });
    body.push(row);
  });
  if (room.rules.yahtzee_bonus) body.push(sumRow(t("Yahtzee bonus"), (c) => c.yahtzee_bonus));
  body.push(sumRow(t("Total"), (c) => c.total));
  $("#cards").replaceChildren(el("thead", {}, head), el("tbody", {}, ...body));
}

export function renderOver(room) {
  const g = room.game;
  $("#ranking").replaceChildren(
    ...(g.standings || []).map((s) => el("li", { text: t("{place}. {name} — {total} points", s) })),
  );
}

const number = (x, digits) =>
  Number(x).toLocaleString(document.documentElement.lang || "en", { minimumFractionDigits: digits, maximumFractionDigits: digits });

export function renderHint(hint, room) {
  const labels = new Map(((room && room.rules.boxes) || []).map((b) => [b.name, t(b.label)]));
  const items = hint.options.map((o) => {
    let text;
    if (o.action === "keep" && o.dice && o.dice.length) text = t("Keep {dice} and roll", { dice: o.dice.join(" ") });
    else if (o.action === "keep") text = t("Reroll all");
    else text = t("Score {points} in {box}", { points: o.points, box: labels.get(o.box) || String(o.box).replace(/_/g, " ") });
    if (typeof o.value === "number") {
      const value = number(o.value, 1);
      text += " " + (o.loss ? t("(expected {value}, loss {loss})", { value, loss: number(o.loss, 1) }) : t("(expected {value})", { value }));
    }
    return el("li", { text });
  });
  const source = hint.source === "solver" ? t("Best choices (optimal solver):") : t("Boxes by points now (solver not available):");
  $("#hint-box").replaceChildren(el("p", { text: source }), el("ol", {}, ...items));
}

// The room's events: each {msg, args} translated here (older servers sent English lines only).
export function renderEvents(room) {
  renderList("#events", room.event_keys ? room.event_keys.map(eventText) : room.events);
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

// The end-of-game analysis (fivedice.analysis): a grade per player and the costliest decisions.
export function renderAnalysis(analysis) {
  const box = $("#analysis");
  if (!analysis) {
    box.replaceChildren(el("p", { text: t("The analysis needs the solver, which this server does not have.") }));
    return;
  }
  const players = (analysis.players || []).map((p) =>
    el("li", {
      text: t("{player}: grade {grade}, {mistakes} of {decisions} decisions lost points, expected points lost {lost} (mean {mean})", {
        ...p,
        lost: number(p.total_loss, 1),
        mean: number(p.mean_loss, 2),
      }),
    }),
  );
  const worst = [...(analysis.decisions || [])].sort((a, b) => b.loss - a.loss).slice(0, 5).filter((d) => d.loss > 0);
  const mistakes = worst.map((d) =>
    el("li", {
      text: t("{player}, round {round}, roll {roll}, dice {dice}: {chosen} instead of {best} (−{loss})", {
        ...d,
        dice: d.dice.join(" "),
        loss: number(d.loss, 2),
      }),
    }),
  );
  box.replaceChildren(
    el("h3", { text: t("Analysis") }),
    el("ul", {}, ...players),
    ...(mistakes.length ? [el("p", { text: t("Costliest decisions:") }), el("ol", {}, ...mistakes)] : []),
  );
}
