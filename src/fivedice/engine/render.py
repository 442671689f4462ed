"""Plain-text views of rule sets, score cards and standings (no colour, screen-reader safe)."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from fivedice.engine.scorecard import Scorecard
from fivedice.engine.state import GameState
from fivedice.i18n import N_, _, box_label, box_name, ngettext
from fivedice.rules import RuleSet, describe
from fivedice.rules.ruleset import FillOrder, Joker
from fivedice.rules.words import aliases, note

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
    FillOrder.FREE: N_("any open box"),
    FillOrder.UPPER_FIRST: N_("the upper boxes first"),
    FillOrder.TOP_DOWN: N_("top to bottom"),
    FillOrder.BOTTOM_UP: N_("bottom to top"),
}
_JOKER = {
    Joker.FORCED: N_("forced (matching upper box if open, else any lower box at full value)"),
    Joker.FREE: N_("free (any open box; straights and full house at full value once the upper box is filled)"),
    Joker.NONE: N_("none"),
}


def rules_card(rules: RuleSet) -> str:
    """The rule set's score card: each box, what it needs and what it scores, then the rest,
    in the current language."""
    rows = [[_("Box"), _("Name"), _("Needs"), _("Scores")]]
    for box in rules.boxes:
        rows.append([box_label(box), box.name, box.kind.needs(), str(box.points)])
    title = _("{title} ({spec}): {description}", title=_(rules.title), spec=rules.spec, description=describe(rules))
    lines = [title, "", table(rows), "", *_other_names(rules)]
    if rules.upper_bonus:
        tiers = ", ".join(
            _("+{points} at {threshold}", points=t.points, threshold=t.threshold) for t in rules.upper_bonus
        )
        lines.append(_("Upper bonus: {tiers}.", tiers=tiers))
    else:
        lines.append(_("Upper bonus: none."))
    if rules.yahtzee_bonus:
        lines.append(
            _(
                "Extra {box} bonus: +{points} each while the box holds points.",
                box=box_name(rules.box(rules.yahtzee_box or "")),
                points=rules.yahtzee_bonus,
            )
        )
    if rules.yahtzee_box and rules.joker is not Joker.NONE:
        lines.append(_("Joker rule: {joker}.", joker=_(_JOKER[rules.joker])))
    if rules.instant_win:
        lines.append(
            _(
                "Instant win: {box} made on a turn's first roll wins the game at once.",
                box=box_name(rules.box(rules.instant_win)),
            )
        )
    if rules.extra_alike_penalty:
        lines.append(
            _(
                "A {box} again while the {box} box holds one: every other player puts a zero in the topmost "
                "open box of their card.",
                box=box_label(rules.box(rules.yahtzee_box or "")),
            )
        )
    if rules.rolloff_dice:
        lines.append(
            ngettext(
                "Who starts: each player rolls {n} die; the highest starts.",
                "Who starts: each player rolls {n} dice; the highest total starts.",
                rules.rolloff_dice,
                n=rules.rolloff_dice,
            )
        )
    cards = "; ".join(_("card {card}: {order}", card=i + 1, order=_(_ORDER[o])) for i, o in enumerate(rules.cards))
    lines.append(_("Fill order: {cards}.", cards=cards))
    dice = ngettext("{n} die", "{n} dice", rules.dice, n=rules.dice)
    rolls = ngettext("up to {n} roll a turn", "up to {n} rolls a turn", rules.rolls, n=rules.rolls)
    rounds = ngettext("{n} round", "{n} rounds", rules.rounds, n=rules.rounds)
    lines.append(_("{dice}, {rolls}, {rounds}.", dice=dice, rolls=rolls, rounds=rounds))
    return "\n".join(lines)


def _other_names(rules: RuleSet) -> list[str]:
    """The rule sources' other names for the boxes in the current language (typed like the box
    names), and their notes on which box is which; each block ends with a blank line."""
    named = [(box_label(b), aliases(b)) for b in rules.boxes if aliases(b)]
    lines = []
    if named:
        lines.append(_("Other names of the boxes, typed like their names:"))
        lines.extend(f"  {label}: {', '.join(words)}" for label, words in named)
        lines.append("")
    notes = dict.fromkeys(n for n in map(note, rules.boxes) if n)
    if notes:
        lines.extend([*(textwrap.fill(n, 100) for n in notes), ""])
    return lines


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
    header = [_("Box")]
    columns: list[tuple[int, int, Scorecard]] = []
    for seat, name in enumerate(state.players):
        for k, card in enumerate(state.cards[seat]):
            header.append(name if len(rules.cards) == 1 else _("{player} {card}", player=name, card=k + 1))
            columns.append((seat, k, card))
    rows = [header]
    previews: list[dict[int, int] | None] = []
    for seat, _card, card in columns:
        live = preview and state.dice is not None and seat == state.current and not state.is_over
        previews.append(card.option_indices(state.counts, state.rolls) if live else None)
    upper = set(rules.upper_indices)
    for i, box in enumerate(rules.boxes):
        rows.append([box_label(box)] + [_cell(c, i, p) for (_s, _k, c), p in zip(columns, previews, strict=True)])
        if i == max(upper, default=-1):
            rows.append([_("Upper total")] + [f"{c.upper_total}" for _s, _k, c in columns])
            if rules.upper_bonus:
                goal = rules.upper_bonus[0].threshold
                rows.append([_("Upper bonus")] + [f"{c.upper_bonus} ({c.upper_total}/{goal})" for _s, _k, c in columns])
    if rules.yahtzee_bonus:
        label = box_label(rules.box(rules.yahtzee_box or ""))
        rows.append([_("{box} bonus", box=label)] + [str(c.yahtzee_bonus) for _s, _k, c in columns])
    rows.append([_("Total")] + [str(c.total) for _s, _k, c in columns])
    return table(rows, [False] + [True] * (len(rows[0]) - 1))


def standings_text(state: GameState) -> str:
    """The final ranking, one line a player."""
    lines = []
    for s in state.standings():
        if s.seat == state.instant_winner:
            lines.append(_("{place}. {name}: {total} (instant win)", place=s.place, name=s.name, total=s.total))
        else:
            lines.append(_("{place}. {name}: {total}", place=s.place, name=s.name, total=s.total))
    return "\n".join(lines)
