"""How the game screen shares the terminal's width between the score cards and the dice.

The widest cards come first, then the dice closer together (no gap between them), then narrower
cards (Jetsi's six columns of two players fit at 80 that way); below the narrowest layout, or
below :data:`MIN_HEIGHT` rows, the screen says the terminal is too small.
"""

from __future__ import annotations

from dataclasses import dataclass

from fivedice.engine.state import GameState
from fivedice.i18n import _
from fivedice.tui.widgets import DIE_WIDTH, TIGHT, WIDTHS, card_width

__all__ = ["MIN_HEIGHT", "Fit", "fit"]

MIN_HEIGHT = 16
"""Rows the side needs: turn, roll, the dice, keys, status, three events, the footer and a little room."""


@dataclass(frozen=True, slots=True)
class Fit:
    """The cells the cards may take, whether the dice stand without gaps, and the too-small notice (or None)."""

    room: int
    close: bool
    too_small: str | None


def fit(state: GameState, width: int, height: int) -> Fit:
    """The layout of a ``width`` x ``height`` game screen for ``state``'s rule set and players."""
    dice = state.rules.dice
    need = card_width(state, TIGHT) + dice * DIE_WIDTH + 2
    small = None
    if width < need or height < MIN_HEIGHT:
        small = _(
            "The terminal is {width}x{height}; the game needs at least {need}x{least}: make it larger.",
            width=width,
            height=height,
            need=need,
            least=MIN_HEIGHT,
        )
    for widths in WIDTHS:
        for close in (False, True):
            side = dice * (DIE_WIDTH if close else DIE_WIDTH + 1) + 2
            if card_width(state, widths) + side <= width:
                return Fit(width - side, close, small)
    return Fit(max(1, width - dice * DIE_WIDTH - 2), True, small)
