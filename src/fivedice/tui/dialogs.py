"""The game screen's dialogs and panels: the physical-dice entry and the advisor's ranked options."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.markup import escape
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from fivedice.actions import Roll
from fivedice.advice import Advice, describe
from fivedice.dice import parse_dice
from fivedice.errors import FiveDiceError
from fivedice.i18n import N_, _, format_decimal, ngettext
from fivedice.rules import RuleSet

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
    expected points still to come, or the points now) and its loss against the best."""
    label = N_("to come") if advice.source == "solver" else N_("points")
    value, loss = _(label)[:10], _("loss")[:9]
    vw, lw = max(7, len(value)), max(6, len(loss))
    ow = 26 - (vw - 7) - (lw - 6)  # longer headings take room from the option column
    option = _("option")[:ow]
    rows = [f"[dim]{option:<{ow}} {value:>{vw}} {loss:>{lw}}[/]"]
    for o in advice.options[:top]:
        text = describe(o, rules)
        if isinstance(o.action, Roll) and o.action.held:
            text += " · " + _("dice {positions}", positions=" ".join(str(p + 1) for p in o.action.held))
        if len(text) > ow:
            text = text[: ow - 1] + "…"
        rows.append(f"{escape(text):<{ow}} {format_decimal(o.value, 2):>{vw}} {format_decimal(o.loss, 2):>{lw}}")
    return "\n".join(rows)
