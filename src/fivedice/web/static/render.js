// Drawing the room from the server's snapshot. Every text goes in with textContent (never
// innerHTML), so names and chat are always escaped. No game rule lives here: the points
// shown for open boxes are the engine's own options, sent by the server.

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
  return (s && s.name) || `Seat ${seat + 1}`;
}

export function renderSeats(room, you) {
  const current = room.game && room.status === "playing" ? room.game.current : null;
  $("#seats").replaceChildren(
    ...room.seats.map((s) => {
      const label = s.name || "open seat";
      const kind = s.kind === "computer" ? ` (computer, ${s.level})` : "";
      const status = s.kind === "computer" ? "" : s.online ? "online" : s.taken ? "offline" : "waiting";
      return el(
        "li",
        { class: s.seat === current ? "current" : null, "aria-label": `${label}${kind}, ${status}` },
        el("span", { class: s.online ? "dot on" : "dot", "aria-hidden": "true" }),
        el("span", { text: label + kind + (s.seat === you ? " (you)" : "") }),
      );
    }),
  );
  const start = $("#start");
  start.hidden = !(room.status === "lobby" && you === 0);
  start.disabled = room.seats.some((s) => !s.taken);
}

export function turnText(room, you, now) {
  const g = room.game;
  if (room.status === "lobby") return "Waiting for the host to start the game.";
  if (room.status === "over") return "The game is over.";
  const who = g.current === you ? "Your" : `${nameOf(room, g.current)}'s`;
  let text;
  if (g.phase === "rolloff") text = `Roll-off to decide who starts: ${who.toLowerCase()} roll.`;
  else text = `${who} turn — round ${g.round} of ${g.rounds}.`;
  if (room.deadline) {
    const left = Math.round(room.deadline - now);
    text += left > 0 ? ` ${left} s left.` : " Time is up.";
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
          "aria-label": v === null ? `Die ${i + 1}: not rolled` : `Die ${i + 1}: ${v}${kept.has(i) ? ", kept" : ""}`,
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
  roll.textContent = g.phase === "rolloff" ? "Roll off" : kept.size ? `Roll the other ${dice.length - kept.size}` : "Roll";
  $("#rolls-left").textContent = g.phase === "play" ? `${g.rolls_left} of ${room.rules.rolls} rolls left` : "";
}

// The score cards side by side: one column per player (per card, for multi-card rules).
export function renderCards(room, you, selected, onScore) {
  const g = room.game;
  const boxes = room.rules.boxes;
  const ncards = room.rules.cards.length;
  const options = new Map(g.options.map((o) => [`${o.card}:${o.box}`, o.points]));
  const mine = g.current === you && room.status === "playing";
  const head = el("tr", {}, el("th", { scope: "col", text: "Box" }));
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
      body.push(sumRow("Upper total", (c) => c.upper_total));
      if (room.rules.upper_bonus) body.push(sumRow("Upper bonus", (c) => c.upper_bonus));
    }
    const row = el("tr", {}, el("th", { scope: "row", text: box.label }));
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
            "aria-label": `Score ${points} in ${box.label}${ncards > 1 ? ` on card ${c + 1}` : ""}`,
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
  if (room.rules.yahtzee_bonus) body.push(sumRow("Yahtzee bonus", (c) => c.yahtzee_bonus));
  body.push(sumRow("Total", (c) => c.total));
  $("#cards").replaceChildren(el("thead", {}, head), el("tbody", {}, ...body));
}

export function renderOver(room) {
  const g = room.game;
  $("#ranking").replaceChildren(
    ...(g.standings || []).map((s) => el("li", { text: `${s.place}. ${s.name} — ${s.total} points` })),
  );
}

export function renderHint(hint) {
  const items = hint.options.map((o) => {
    let text;
    if (o.action === "keep") text = `Keep ${o.dice && o.dice.length ? o.dice.join(" ") : "nothing"} and roll`;
    else text = `Score ${o.points} in ${String(o.box).replace(/_/g, " ")}`;
    if (typeof o.value === "number") text += ` (expected ${o.value.toFixed(1)}${o.loss ? `, loss ${o.loss.toFixed(1)}` : ""})`;
    return el("li", { text });
  });
  const source = hint.source === "solver" ? "Best choices (optimal solver):" : "Boxes by points now (solver not available):";
  $("#hint-box").replaceChildren(el("p", { text: source }), el("ol", {}, ...items));
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
    box.replaceChildren(el("p", { text: "The analysis needs the solver, which this server does not have." }));
    return;
  }
  const players = (analysis.players || []).map((p) =>
    el("li", {
      text: `${p.player}: grade ${p.grade}, ${p.mistakes} of ${p.decisions} decisions lost points, ` +
        `expected points lost ${Number(p.total_loss).toFixed(1)} (mean ${Number(p.mean_loss).toFixed(2)})`,
    }),
  );
  const worst = [...(analysis.decisions || [])].sort((a, b) => b.loss - a.loss).slice(0, 5).filter((d) => d.loss > 0);
  const mistakes = worst.map((d) =>
    el("li", {
      text: `${d.player}, round ${d.round}, roll ${d.roll}, dice ${d.dice.join(" ")}: ${d.chosen} ` +
        `instead of ${d.best} (−${Number(d.loss).toFixed(2)})`,
    }),
  );
  box.replaceChildren(
    el("h3", { text: "Analysis" }),
    el("ul", {}, ...players),
    ...(mistakes.length ? [el("p", { text: "Costliest decisions:" }), el("ol", {}, ...mistakes)] : []),
  );
}
