"""The table as a picture: the ``rgb_array`` render mode of the environments (numpy only).

A frame shows the dice on the felt (pips drawn), one dot per roll made this turn, and each score
card as a row of cells: a filled box is a gold bar as high as its share of the box's best score,
an open box a dark cell with a green bar for what the dice would score there now.

>>> from fivedice import rules
>>> from fivedice.engine.state import GameState
>>> from fivedice.engine.actions import Roll
>>> state = GameState.new(rules.get("yahtzee"), ("Ann",), starter=0).apply(Roll((), (6, 2, 6, 1, 2)))
>>> image = frame(state)
>>> image.shape, image.dtype.name
((192, 384, 3), 'uint8')
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from fivedice.engine.state import GameState, Phase
from fivedice.rl.spaces import box_maxima

__all__ = ["HEIGHT", "WIDTH", "frame"]

WIDTH, HEIGHT = 384, 192
"""The size of a frame in pixels (cards add rows of 28 pixels beyond the first)."""

FELT = (28, 110, 64)
DIE = (246, 244, 236)
PIP = (24, 24, 24)
EMPTY = (18, 60, 36)
GOLD = (236, 186, 48)
HINT = (120, 220, 140)
DOT = (250, 250, 250)

_PIPS = {
    1: [(1, 1)],
    2: [(0, 0), (2, 2)],
    3: [(0, 0), (1, 1), (2, 2)],
    4: [(0, 0), (0, 2), (2, 0), (2, 2)],
    5: [(0, 0), (0, 2), (1, 1), (2, 0), (2, 2)],
    6: [(0, 0), (1, 0), (2, 0), (0, 2), (1, 2), (2, 2)],
}


def _die(image: NDArray[np.uint8], top: int, left: int, face: int, size: int = 48) -> None:
    image[top : top + size, left : left + size] = DIE
    step, r = size // 4, size // 12
    for row, col in _PIPS[face]:
        y, x = top + step * (row + 1), left + step * (col + 1)
        image[y - r : y + r, x - r : x + r] = PIP


def frame(state: GameState, seat: int = 0) -> NDArray[np.uint8]:
    """The picture of ``state`` from ``seat``'s side as an ``(height, width, 3)`` ``uint8`` array."""
    rules = state.rules
    cards = state.cards[seat]
    height = HEIGHT + 28 * (len(cards) - 1)
    image = np.empty((height, WIDTH, 3), dtype=np.uint8)
    image[:] = FELT
    live = state.phase is Phase.PLAY and state.dice is not None and state.current == seat
    if live and state.dice is not None:
        for i, face in enumerate(state.dice):
            _die(image, 16, 16 + i * 60, face)
        for r in range(rules.rolls):
            y, x = 76, 22 + r * 14
            image[y : y + 8, x : x + 8] = DOT if r < state.rolls else EMPTY
    options = state.options() if live else {}
    maxima: Any = box_maxima(rules)
    cell = min(28, (WIDTH - 16) // len(rules.boxes))
    for k, card in enumerate(cards):
        top = 100 + 28 * k
        for i, box in enumerate(rules.boxes):
            left = 8 + i * cell
            image[top : top + 24, left : left + cell - 3] = EMPTY
            entry = card.entries[i]
            value, colour = (entry, GOLD) if entry is not None else (options.get((k, box.name)), HINT)
            if value:
                bar = max(2, round(24 * min(1.0, value / max(1, maxima[i]))))
                image[top + 24 - bar : top + 24, left : left + cell - 3] = colour
    total = state.total(seat)
    best = max(1, sum(maxima) * len(cards))
    bottom = height - 20
    image[bottom : bottom + 8, 8 : WIDTH - 8] = EMPTY
    image[bottom : bottom + 8, 8 : 8 + round((WIDTH - 16) * min(1.0, total / best))] = GOLD
    return image
