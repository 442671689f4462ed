// "How to play": a short page (a dialog) with the chosen rule set's rules, written from the rule data the
// server sends with /api/rules (each box with what it needs and what it scores, the rolls, the bonuses).
import { t, tn } from "./i18n.js";
import { $, el } from "./render.js";

// Fill and open the dialog for `rule` (an entry of the /api/rules catalogue) with the options `chosen`
// (option name -> value; the default choice when missing).
export function showHowToPlay(rule, chosen = new Map()) {
  const dialog = $("#how");
  const title = rule.explained && rule.description.includes(":") ? rule.description.split(":")[0] : rule.name;
  const turn = t("Each turn, roll the {dice} dice up to {rolls} times: after each roll keep the dice you like (tap them) and roll the others. Then score the dice in one open box of your card, even for 0.", rule);
  const end = tn("The game ends after {n} round; the highest total wins.", "The game ends after {n} rounds; the highest total wins.", rule.rounds);
  const bonus = (rule.upper_bonus || []).map((b) => t("Upper boxes totalling {threshold} or more earn a bonus of {points}.", b));
  const options = (rule.explained || []).map((o) => {
    const choice = o.choices.find((c) => c.value === chosen.get(o.name)) || o.choices[0];
    return el("li", {}, el("strong", { text: `${o.title}: ${choice.label}. ` }), choice.help);
  });
  const row = (b) => el("tr", {}, el("th", { scope: "row", text: t(b.label) }), el("td", { text: b.rule }));
  const section = (name, caption) => {
    const boxes = rule.boxes.filter((b) => b.section === name);
    return boxes.length ? el("table", { class: "how-boxes" }, el("caption", { text: caption }), el("tbody", {}, ...boxes.map(row))) : null;
  };
  $("#how-body").replaceChildren(
    el("h2", { id: "how-title", text: t("How to play {rules}", { rules: title }) }),
    el("p", { text: rule.description }),
    el("p", { text: turn }),
    el("p", { text: end }),
    ...bonus.map((text) => el("p", { text })),
    section("upper", t("Upper section")),
    section("lower", t("Lower section")),
    options.length ? el("h3", { text: t("This game's options") }) : null,
    options.length ? el("ul", {}, ...options) : null,
  );
  if (!dialog.open) dialog.showModal();
  $("#how-close").focus();
}

export function initHowToPlay() {
  $("#how-close").addEventListener("click", () => $("#how").close());
  // a tap outside the dialog's box closes it
  $("#how").addEventListener("click", (event) => event.target === $("#how") && $("#how").close());
}
