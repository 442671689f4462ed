"""The game screen's lines of text: title, turn, roll and what the keys do (markup, current language)."""

from __future__ import annotations

from textual.markup import escape

from fivedice.engine.actions import Action, Roll
from fivedice.engine.state import Phase
from fivedice.i18n import _, ngettext
from fivedice.table import Table
from fivedice.tui.session import rules_title

__all__ = ["keys_text", "title_text", "turn_text"]


def title_text(table: Table) -> str:
    """The game's title as markup: the rule set (Jetsi named) and the challenge, if any."""
    title = escape(rules_title(table.rules))
    if table.challenge is not None:
        title = _("{game} · challenge {code}", game=title, code=escape(table.challenge))
    return f"[b]{title}[/b]"


def turn_text(table: Table) -> tuple[str, str]:
    """Whose turn it is (with the title) and which roll, as markup."""
    state = table.state
    rules = state.rules
    if state.phase is Phase.ROLLOFF:
        return _("{game} · roll-off to decide who starts", game=title_text(table)), ""
    name = escape(state.players[state.current])
    who = _("[b]{name}[/b] (computer)", name=name) if table.seat().is_computer else f"[b]{name}[/b]"
    turn = _(
        "{game} · round {round}/{rounds} · {player} to play",
        game=title_text(table),
        round=state.round,
        rounds=rules.rounds,
        player=who,
    )
    if state.rolls == 0:
        roll = _("Roll 1 of {rolls} next", rolls=rules.rolls)
    elif state.rolls_left == 0:
        roll = _("Roll {roll} of {rolls} · score a box", roll=state.rolls, rolls=rules.rolls)
    else:
        roll = _("Roll {roll} of {rolls}", roll=state.rolls, rolls=rules.rolls)
    return turn, roll


def keys_text(table: Table, kept: set[int], pending: Action | None) -> str:
    """What the keys do now, for the dice ``kept`` and a computer's ``pending`` roll."""
    state = table.state
    if table.automatic() is not None:
        return _("Roll-off · +/- pace")
    if table.computer_to_move:
        if isinstance(pending, Roll) and state.dice is not None:
            faces = " ".join(str(state.dice[p]) for p in pending.held)
            return _("{name} keeps {dice}", name=state.players[state.current], dice=faces)
        return _("Computer playing · +/- pace · c reasoning")
    if state.dice is None:
        return _("Space: roll · ? help")
    if state.rolls_left == 0:
        return _("↑↓ Enter: score a box · u undo")
    n = state.rules.dice
    if len(kept) == n:
        return _("Keeping every die · ↑↓ Enter: score a box")
    if kept:
        faces = " ".join(str(state.dice[p]) for p in sorted(kept))
        other = n - len(kept)
        if other == 1:
            return _("Keeping {dice} · Space rolls the last die", dice=faces)
        return ngettext(
            "Keeping {dice} · Space rolls the other {n} die",
            "Keeping {dice} · Space rolls the other {n} dice",
            other,
            dice=faces,
            n=other,
        )
    return _("1-{n} keep · Space roll · ↑↓ Enter score", n=n)
