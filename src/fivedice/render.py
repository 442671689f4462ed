"""Plain-text views of rule sets, score cards and standings (no colour, screen-reader safe)."""

from __future__ import annotations

from collections.abc import Sequence

from fivedice.rules import RuleSet
from fivedice.rules.ruleset import FillOrder, Joker
from fivedice.scorecard import Scorecard
from fivedice.state import GameState

__all__ = ["rules_card", "score_table", "standings_text", "table"]


def table(rows: Sequence[Sequence[str]], right: Sequence[bool] | None = None) -> str:
    """Align ``rows`` in columns separated by two spaces (first row is the header)."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    right = right or [False] * len(widths)
    lines = []
    for row in rows:
        cells = [c.rjust(w) if r else c.ljust(w) for c, w, r in zip(row, widths, right, strict=True)]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


_ORDER = {
    FillOrder.FREE: "any open box",
    FillOrder.UPPER_FIRST: "the upper boxes first",
    FillOrder.TOP_DOWN: "top to bottom",
    FillOrder.BOTTOM_UP: "bottom to top",
}
_JOKER = {
    Joker.FORCED: "forced (matching upper box if open, else any lower box at full value)",
    Joker.FREE: "free (any open box; straights and full house at full value once the upper box is filled)",
    Joker.NONE: "none",
}


def rules_card(rules: RuleSet) -> str:
    """The rule set's score card: each box, what it needs and what it scores, then the rest."""
    rows = [["Box", "Name", "Needs", "Scores"]]
    for box in rules.boxes:
        rows.append([box.label, box.name, box.kind.needs(), str(box.points)])
    lines = [f"{rules.title} ({rules.spec}): {rules.description}", "", table(rows), ""]
    if rules.upper_bonus:
        tiers = ", ".join(f"+{t.points} at {t.threshold}" for t in rules.upper_bonus)
        lines.append(f"Upper bonus: {tiers}.")
    else:
        lines.append("Upper bonus: none.")
    if rules.yahtzee_bonus:
        lines.append(f"Extra {rules.yahtzee_box} bonus: +{rules.yahtzee_bonus} each while the box holds points.")
    if rules.yahtzee_box and rules.joker is not Joker.NONE:
        lines.append(f"Joker rule: {_JOKER[rules.joker]}.")
    if rules.instant_win:
        lines.append(f"Instant win: {rules.instant_win} made on a turn's first roll wins the game at once.")
    cards = "; ".join(f"card {i + 1}: {_ORDER[o]}" for i, o in enumerate(rules.cards))
    lines.append(f"Fill order: {cards}.")
    lines.append(f"{rules.dice} dice, up to {rules.rolls} rolls a turn, {rules.rounds} rounds.")
    return "\n".join(lines)


def _cell(card: Scorecard, i: int, preview: dict[int, int] | None) -> str:
    entry = card.entries[i]
    if entry is not None:
        return str(entry)
    if preview is not None and i in preview:
        return f"({preview[i]})"
    return "-"


def score_table(state: GameState, preview: bool = True) -> str:
    """Every player's cards side by side; open legal boxes show ``(points)`` for the
    current player's dice when ``preview`` is on."""
    rules = state.rules
    header = ["Box"]
    columns: list[tuple[int, int, Scorecard]] = []
    for seat, name in enumerate(state.players):
        for k, card in enumerate(state.cards[seat]):
            header.append(name if len(rules.cards) == 1 else f"{name} {k + 1}")
            columns.append((seat, k, card))
    rows = [header]
    previews: list[dict[int, int] | None] = []
    for seat, _k, card in columns:
        live = preview and state.dice is not None and seat == state.current and not state.is_over
        previews.append(card.option_indices(state.counts, state.rolls) if live else None)
    upper = set(rules.upper_indices)
    for i, box in enumerate(rules.boxes):
        rows.append([box.label] + [_cell(c, i, p) for (_, _, c), p in zip(columns, previews, strict=True)])
        if i == max(upper, default=-1):
            rows.append(["Upper total"] + [f"{c.upper_total}" for _, _, c in columns])
            if rules.upper_bonus:
                goal = rules.upper_bonus[0].threshold
                rows.append(["Upper bonus"] + [f"{c.upper_bonus} ({c.upper_total}/{goal})" for _, _, c in columns])
    if rules.yahtzee_bonus:
        rows.append(
            [f"{rules.box(rules.yahtzee_box or '').label} bonus"] + [str(c.yahtzee_bonus) for _, _, c in columns]
        )
    rows.append(["Total"] + [str(c.total) for _, _, c in columns])
    return table(rows, [False] + [True] * (len(rows[0]) - 1))


def standings_text(state: GameState) -> str:
    """The final ranking, one line a player."""
    lines = []
    for s in state.standings():
        note = " (instant win)" if s.seat == state.instant_winner else ""
        lines.append(f"{s.place}. {s.name}: {s.total}{note}")
    return "\n".join(lines)
