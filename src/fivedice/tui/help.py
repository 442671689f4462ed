"""The keys of the game, over the game or the start screen."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widgets import Static

from fivedice.i18n import N_, _

__all__ = ["HELP", "HelpScreen"]

HELP = N_("""[b]Keys[/b]

  [b]1[/b]-[b]5[/b]         keep or release a die (or click it)
  [b]Space[/b] [b]r[/b]     roll the dice not kept (a turn's first roll too)
  [b]↑[/b] [b]↓[/b] [b]j[/b] [b]k[/b]     move between the boxes open to you
  [b]Enter[/b]       score the highlighted box (or click a box)
  [b]u[/b]           undo your last decision (a roll once seen stays)
  [b]Ctrl+R[/b]      redo
  [b]h[/b]           hint: the advisor's ranked options; the dice to keep light up
  [b]a[/b]           apply the top hint (keep those dice and roll, or score)
  [b]c[/b]           show or hide the computer's reasoning
  [b]+[/b] [b]-[/b]         computer pace faster / slower
  [b]s[/b]           save;  [b]q[/b] save and quit (resume from the start screen)
  [b]t[/b]           dark or light theme
  [b]l[/b]           next language (the game goes on; the choice is remembered)
  [b]?[/b] [b]F1[/b]        this help

Points in (brackets): what the dice showing score in each box you may
fill now, by the engine's rules (Joker, fill order). Esc or any key closes.""")


class HelpScreen(ModalScreen[None]):
    """The keys, over the game (or the start screen); Esc, any key or a click closes it."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Static { width: 80; max-width: 100%; height: auto; border: round $accent; padding: 0 1;
                          background: $surface; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", N_("Close"), priority=True)]

    def compose(self) -> ComposeResult:
        """The help text."""
        yield Static(_(HELP))

    def action_close(self) -> None:
        """Close the help (Esc must never reach the screen below, where it quits)."""
        self.dismiss()

    def on_key(self) -> None:
        """Any key closes the help."""
        self.dismiss()

    def on_click(self) -> None:
        """A click closes the help."""
        self.dismiss()
