// The end of a game: the ranking, then each player's grade, a small chart of their score over the
// rounds against what an optimal player would have expected, and their costliest decisions
// (fivedice.analysis, computed by the server in the player's language).
import { t } from "./i18n.js";
import { $, el, nameOf, number } from "./render.js";

const SVG = "http://www.w3.org/2000/svg";

export function renderRanking(room) {
  const g = room.game;
  $("#ranking").replaceChildren(
    ...(g.standings || []).map((s) =>
      el(
        "li",
        { class: s.place === 1 ? "winner" : null },
        s.place === 1 ? el("span", { "aria-hidden": "true", text: "★", class: "star" }) : null,
        el("span", { text: t("{place}. {name} — {total} points", s) }),
      ),
    ),
  );
}

// One line of a challenge's leaderboard (equal totals share a rank; a guest, not an account, is marked).
export function boardLine(row) {
  const fields = { place: row.rank, name: row.name, total: row.total };
  return el("li", { text: row.account === false ? t("{place}. {name} (guest) — {total} points", fields) : t("{place}. {name} — {total} points", fields) });
}

// A finished challenge: the server's sentences (each player next to the benchmark player on the same
// dice, what their decisions cost), then the challenge's leaderboard.
export function renderChallenge(result) {
  const box = $("#challenge-result");
  box.hidden = !result;
  if (!result) return;
  const board = result.leaderboard.map(boardLine);
  box.replaceChildren(
    el("h3", { text: t("Challenge {code}", { code: result.code }) }),
    ...result.lines.map((line) => el("p", { text: line })),
    board.length ? el("ol", { class: "leaderboard", "aria-label": t("Leaderboard") }, ...board) : el("p", { class: "muted", text: t("This server keeps no leaderboard.") }),
  );
}

function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

// A line chart of one player's points after each round (solid) and the final score an optimal
// player would expect from there (dashed). An image with a text summary for screen readers.
export function progressChart(points, player) {
  const W = 320;
  const H = 150;
  const pad = { l: 34, r: 8, t: 10, b: 22 };
  const rounds = Math.max(1, points.length - 1);
  const top = Math.max(...points.map((p) => Math.max(p.score, p.expected)), 1);
  const x = (r) => pad.l + ((W - pad.l - pad.r) * r) / rounds;
  const y = (v) => H - pad.b - ((H - pad.t - pad.b) * v) / top;
  const first = points[0];
  const last = points[points.length - 1];
  const summary = t("{player}: final score {score}; an optimal player expected {start} at the start.", {
    player,
    score: last.score,
    start: number(first.expected, 1),
  });
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", class: "chart", "aria-label": summary });
  chart.append(svg("title", {}, summary));
  for (const v of [0, top / 2, top]) {
    chart.append(svg("line", { x1: pad.l, x2: W - pad.r, y1: y(v), y2: y(v), class: "grid" }));
    chart.append(svg("text", { x: pad.l - 4, y: y(v) + 4, "text-anchor": "end", class: "axis" }, number(v, 0)));
  }
  chart.append(svg("text", { x: pad.l, y: H - 6, class: "axis" }, "0"));
  chart.append(svg("text", { x: W - pad.r, y: H - 6, "text-anchor": "end", class: "axis" }, String(rounds)));
  const path = (pick) => points.map((p, i) => `${i ? "L" : "M"}${x(p.round).toFixed(1)},${y(pick(p)).toFixed(1)}`).join(" ");
  chart.append(svg("path", { d: path((p) => p.expected), class: "expected" }));
  chart.append(svg("path", { d: path((p) => p.score), class: "score" }));
  return chart;
}

// A line chart of two running sums over rounds or games: the dice's luck (solid) and the points lost by
// decisions (dashed), both in points; the score against the optimal mean is luck minus loss.
// `points` are objects with `luck` and `loss`; an image with a text summary for screen readers.
export function splitChart(points, summary) {
  const W = 320;
  const H = 150;
  const pad = { l: 34, r: 8, t: 10, b: 22 };
  const steps = Math.max(1, points.length - 1);
  const values = points.flatMap((p) => [p.luck, p.loss]);
  const top = Math.max(...values, 1);
  const bottom = Math.min(...values, 0);
  const x = (r) => pad.l + ((W - pad.l - pad.r) * r) / steps;
  const y = (v) => H - pad.b - ((H - pad.t - pad.b) * (v - bottom)) / (top - bottom);
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", class: "chart split", "aria-label": summary });
  chart.append(svg("title", {}, summary));
  for (const v of [bottom, 0, top]) {
    chart.append(svg("line", { x1: pad.l, x2: W - pad.r, y1: y(v), y2: y(v), class: v === 0 ? "grid zero" : "grid" }));
    chart.append(svg("text", { x: pad.l - 4, y: y(v) + 4, "text-anchor": "end", class: "axis" }, number(v, 0)));
  }
  chart.append(svg("text", { x: pad.l, y: H - 6, class: "axis" }, "0"));
  chart.append(svg("text", { x: W - pad.r, y: H - 6, "text-anchor": "end", class: "axis" }, String(steps)));
  const path = (pick) => points.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(pick(p)).toFixed(1)}`).join(" ");
  chart.append(svg("path", { d: path((p) => p.loss), class: "loss" }));
  chart.append(svg("path", { d: path((p) => p.luck), class: "luck" }));
  return chart;
}

// The legend of splitChart.
export function splitLegend() {
  return el(
    "p",
    { class: "legend muted" },
    el("span", { class: "key luck", "aria-hidden": "true" }),
    t("luck of the dice"),
    " ",
    el("span", { class: "key loss", "aria-hidden": "true" }),
    t("points lost by decisions"),
  );
}

// "409 = 254.6 expected + 180.7 luck − 26.3 decisions" for one player of an analysis.
export function splitText(p) {
  return t("Score {score} = {optimal} expected {sign} {luck} luck − {loss} decisions", {
    score: p.score,
    optimal: number(p.optimal, 1),
    sign: p.luck < 0 ? "−" : "+",
    luck: number(Math.abs(p.luck), 1),
    loss: number(p.points_loss, 1),
  });
}

// The analysis: null when this server has no solver for these rules.
export function renderAnalysis(analysis, room) {
  const box = $("#analysis");
  if (analysis === undefined) {
    box.replaceChildren(el("p", { class: "muted", text: t("The analysis is being prepared…") }));
    return;
  }
  if (typeof analysis === "string") {
    box.replaceChildren(el("p", { text: analysis })); // the server's sentence: why there is none
    return;
  }
  if (!analysis) {
    box.replaceChildren(el("p", { text: t("The analysis needs the solver, which this server does not have.") }));
    return;
  }
  const legend = el(
    "p",
    { class: "legend muted" },
    el("span", { class: "key score", "aria-hidden": "true" }),
    t("points so far"),
    " ",
    el("span", { class: "key expected", "aria-hidden": "true" }),
    t("final score an optimal player would expect from there"),
  );
  const players = (analysis.players || []).map((p) => {
    const worst = (analysis.decisions || [])
      .filter((d) => d.seat === p.seat && d.loss > 0)
      .sort((a, b) => b.loss - a.loss)
      .slice(0, 3);
    const progress = (analysis.progress || [])[p.seat];
    const name = room ? nameOf(room, p.seat) : p.player;
    return el(
      "article",
      { class: "player-analysis", "aria-labelledby": `analysis-${p.seat}` },
      el("h4", { id: `analysis-${p.seat}` }, el("span", { text: name }), " ", el("span", { class: `grade grade-${p.grade.replace("+", "plus")}`, text: t("grade {grade}", { grade: p.grade }) })),
      el("p", {
        text: t("Decisions that lost points: {mistakes} of {decisions}; expected points lost {lost} (mean {mean}).", {
          mistakes: p.mistakes,
          decisions: p.decisions,
          lost: number(p.total_loss, 1),
          mean: number(p.mean_loss, 2),
        }),
      }),
      progress && progress.length > 1 ? progressChart(progress, name) : null,
      el("p", { class: "split-text", text: splitText(p) }),
      progress && progress.length > 1
        ? splitChart(progress, t("{player}: luck {luck}, decisions cost {loss} points over the rounds.", { player: name, luck: number(p.luck, 1), loss: number(p.points_loss, 1) }))
        : null,
      worst.length
        ? el(
            "div",
            {},
            el("p", { text: t("Costliest decisions:") }),
            el(
              "ol",
              { class: "costly" },
              ...worst.map((d) =>
                el("li", {
                  text: t("Round {round}, roll {roll}, dice {dice}: {chosen} instead of {best} (−{loss})", {
                    ...d,
                    dice: d.dice.join(" "),
                    loss: number(d.loss, 2),
                  }),
                }),
              ),
            ),
          )
        : el("p", { class: "muted", text: t("No decision lost points: optimal play.") }),
    );
  });
  box.replaceChildren(el("h3", { text: t("Analysis") }), legend, splitLegend(), el("div", { class: "analysis-grid" }, ...players));
}
