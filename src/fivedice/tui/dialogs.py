"""The game screen's dialogs and panels: the physical-dice entry and the advisor's ranked options."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.markup import escape
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from fivedice.dice import parse_dice
from fivedice.engine.actions import Roll
from fivedice.errors import FiveDiceError
from fivedice.i18n import N_, _, format_decimal, format_percent, ngettext
from fivedice.rules import RuleSet
from fivedice.services.advice import Advice, describe

__all__ = ["DiceEntry", "format_advice"]


class DiceEntry(ModalScreen[tuple[int, ...] | None]):
    """Asks for the faces of the dice rolled at a real table (``--physical``)."""

    DEFAULT_CSS = """
    DiceEntry { align: center middle; }
    DiceEntry > Vertical { width: 50; height: auto; border: round $accent; padding: 0 1; background: $surface; }
    DiceEntry #entry-error { color: $error; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", N_("Cancel"))]

    def __init__(self, count: int) -> None:
        super().__init__()
        self.count = count

    def compose(self) -> ComposeResult:
        """A prompt, an input and an error line."""
        with Vertical():
            example = " ".join("35126"[: self.count])
            yield Static(
                ngettext(
                    "Type the {n} die rolled, e.g. {example}:",
                    "Type the {n} dice rolled, e.g. {example}:",
                    self.count,
                    n=self.count,
                    example=example,
                )
            )
            yield Input(compact=True, id="entry")
            yield Static("", id="entry-error")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Check the dice and return them."""
        try:
            self.dismiss(parse_dice(event.value, self.count).values)
        except FiveDiceError as exc:
            self.query_one("#entry-error", Static).update(escape(str(exc)))

    def action_cancel(self) -> None:
        """Roll nothing."""
        self.dismiss(None)


def format_advice(advice: Advice, rules: RuleSet, top: int = 5) -> str:
    """Ranked options as markup: what (a keep also names the positions, as keys 1-5 do), its value (the
    expected points still to come, or the points now), its loss against the best and, where the advice
    carries them, its chance to win or to beat the goal."""
    label = N_("to come") if advice.source == "solver" else N_("points")
    value, loss = _(label)[:10], _("loss")[:9]
    chance = _chance_heading(advice)
    vw, lw = max(7, len(value)), max(6, len(loss))
    cw = max(6, len(chance)) if chance else -1
    ow = 26 - (vw - 7) - (lw - 6) - (cw + 1)  # longer headings take room from the option column
    option = _("option")[:ow]
    head = f"{option:<{ow}} {value:>{vw}} {loss:>{lw}}" + (f" {chance:>{cw}}" if chance else "")
    rows = [f"[dim]{head}[/]"]
    for o in advice.options[:top]:
        text = describe(o, rules)
        if isinstance(o.action, Roll) and o.action.held and not chance:
            text += " · " + _("dice {positions}", positions=" ".join(str(p + 1) for p in o.action.held))
        if len(text) > ow:
            text = text[: ow - 1] + "…"
        row = f"{escape(text):<{ow}} {format_decimal(o.value, 2):>{vw}} {format_decimal(o.loss, 2):>{lw}}"
        odds = o.win if o.win is not None else o.beat
        if chance and odds is not None:
            row += f" {format_percent(odds, 1):>{cw}}"
        rows.append(row)
    return "\n".join(rows)


def _chance_heading(advice: Advice) -> str:
    """The chance column's heading: ``win`` or ``> 287`` (beating the goal), or "" without chances."""
    if advice.chances == "win":
        return _("win")[:8]
    if advice.chances == "beat" and advice.goal is not None:
        return _("beat {goal}", goal=advice.goal)[:10]
    return ""
