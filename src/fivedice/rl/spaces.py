"""The flat action space and the fixed-size observation the environments share.

Actions (``Discrete(2**dice + cards * boxes)``, 45 for Yahtzee):

- ``0 .. 2**dice - 1``: a *reroll mask*. Bit ``i`` set means the ``i``-th die in ascending
  order of face (the order of the observation's ``dice`` field) is rolled again; the others
  are kept. Mask 0 would keep every die, which the engine treats as stopping, so it is never
  legal: score a box instead.
- ``2**dice + card * boxes + box``: fill ``box`` (card order, see ``RuleSet.boxes``) on
  score card ``card`` (0 for every rule set but Jetsi, whose cards are 0 free, 1 top-down,
  2 bottom-up).

>>> from fivedice import rules
>>> from fivedice.engine.state import GameState
>>> from fivedice.engine.actions import Roll
>>> state = GameState.new(rules.get("yahtzee"), ("Ann",)).apply(Roll((), (6, 2, 6, 1, 2)))
>>> codec = ActionCodec(rules.get("yahtzee"))
>>> codec.size
45
>>> codec.decode(0b00011, state)   # reroll the two lowest dice (the 1 and a 2)
Roll(held=(0, 2, 4), dice=None)
>>> codec.describe(32 + 12)
'score chance'
>>> int(codec.mask(state).sum())   # 31 reroll masks and 13 boxes
44
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

from fivedice.dice import FACES, counts_of, multisets
from fivedice.engine.actions import Action, Roll, Score
from fivedice.engine.state import GameState, Phase
from fivedice.errors import FiveDiceError, IllegalActionError
from fivedice.i18n import _
from fivedice.rules import RuleSet

__all__ = [
    "ActionCodec",
    "ActionIndex",
    "EnvSetupError",
    "Field",
    "ObservationLayout",
    "Options",
    "ascending_positions",
    "box_maxima",
]


class EnvSetupError(FiveDiceError):
    """An environment, policy or evaluation setting that is not valid."""


ActionIndex = int | np.integer[Any]
"""An action as Gymnasium hands it over: a Python or numpy integer."""

Options = dict[tuple[int, str], int]
"""What ``GameState.options()`` returns: ``(card, box name) -> points``."""


def ascending_positions(dice: Sequence[int]) -> tuple[int, ...]:
    """Die positions ordered by face (ties by position): bit ``i`` of a reroll mask
    names die ``ascending_positions(dice)[i]``.

    >>> ascending_positions((6, 2, 6, 1, 2))
    (3, 1, 4, 0, 2)
    """
    return tuple(sorted(range(len(dice)), key=lambda p: (dice[p], p)))


@dataclass(frozen=True, slots=True)
class ActionCodec:
    """Maps the flat action indices to engine intents and back, and builds the action mask."""

    rules: RuleSet

    @property
    def rerolls(self) -> int:
        """How many reroll-mask actions there are (``2**dice``)."""
        return 1 << self.rules.dice

    @property
    def size(self) -> int:
        """The number of actions."""
        return self.rerolls + len(self.rules.cards) * len(self.rules.boxes)

    def decode(self, index: ActionIndex, state: GameState) -> Action:
        """The engine intent for action ``index`` in ``state`` (not checked for legality)."""
        if isinstance(index, bool) or not isinstance(index, int | np.integer) or not 0 <= index < self.size:
            raise IllegalActionError(
                _("Action {index!r} is not an action; expected 0 to {most}.", index=index, most=self.size - 1)
            )
        n = int(index)
        if n < self.rerolls:
            order = ascending_positions(state.dice or (1,) * self.rules.dice)
            return Roll(tuple(sorted(p for i, p in enumerate(order) if not n >> i & 1)))
        card, box = divmod(n - self.rerolls, len(self.rules.boxes))
        return Score(self.rules.boxes[box].name, card)

    def encode(self, action: Action, state: GameState) -> int:
        """The action index of an engine intent or record in ``state``."""
        if isinstance(action, Score):
            return self.rerolls + action.card * len(self.rules.boxes) + self.rules.box_index(action.box)
        if isinstance(action, Roll):
            order = ascending_positions(state.dice or (1,) * self.rules.dice)
            return sum(1 << i for i, p in enumerate(order) if p not in action.held)
        raise IllegalActionError(_("Action {action!r} has no index; only rolls and scores do.", action=action))

    def keeps(self, dice: Sequence[int]) -> list[tuple[int, ...]]:
        """The faces each reroll action keeps with ``dice`` showing, sorted (index = action).

        >>> from fivedice import rules
        >>> ActionCodec(rules.get("yacht")).keeps((6, 2, 6, 1, 2))[0b00011]   # reroll the 1 and a 2
        (2, 6, 6)
        """
        order = ascending_positions(dice)
        return [tuple(sorted(dice[p] for i, p in enumerate(order) if not n >> i & 1)) for n in range(self.rerolls)]

    def scores(self, card: int = 0) -> slice:
        """The actions that fill card ``card``'s boxes, in box order (``RuleSet.boxes``)."""
        start = self.rerolls + card * len(self.rules.boxes)
        return slice(start, start + len(self.rules.boxes))

    def mask(self, state: GameState, options: Options | None = None) -> NDArray[np.int8]:
        """1 for every legal action in ``state``, else 0 (all zero when the game is over).

        ``options`` may pass ``state.options()`` if already computed."""
        out = np.zeros(self.size, dtype=np.int8)
        if state.phase is not Phase.PLAY or state.dice is None:
            return out
        if state.can(Roll(())):
            out[1 : self.rerolls] = 1
        boxes, index = len(self.rules.boxes), _box_positions(self.rules)
        for card, name in state.options() if options is None else options:
            out[self.rerolls + card * boxes + index[name]] = 1
        return out

    def describe(self, index: int) -> str:
        """Action ``index`` in words (dice are counted from the lowest face).

        >>> from fivedice import rules
        >>> ActionCodec(rules.get("yacht")).describe(0b00101)
        'reroll sorted dice 1,3'
        """
        if index < self.rerolls:
            dice = [str(i + 1) for i in range(self.rules.dice) if index >> i & 1]
            return _("reroll sorted dice {dice}", dice=",".join(dice)) if dice else _("keep all (never legal)")
        card, box = divmod(index - self.rerolls, len(self.rules.boxes))
        label = self.rules.boxes[box].name
        if len(self.rules.cards) > 1:
            return _("score {box} on card {card}", box=label, card=card)
        return _("score {box}", box=label)


@dataclass(frozen=True, slots=True)
class Field:
    """One named block of the observation vector: ``vector[start : start + size]``."""

    name: str
    start: int
    size: int
    high: int
    meaning: str

    @property
    def slice(self) -> slice:
        """The block's slice of the observation vector."""
        return slice(self.start, self.start + self.size)


@cache
def _box_positions(rules: RuleSet) -> dict[str, int]:
    return {name: i for i, name in enumerate(rules.box_names)}


@cache
def box_maxima(rules: RuleSet) -> tuple[int, ...]:
    """The most each box can score (Joker values included), by evaluating every roll."""
    all_counts = [counts_of(m) for m in multisets(rules.dice)]
    rolls = range(1, rules.rolls + 1)
    return tuple(max(max(b.full_value(c, r), b.score(c, r)) for c in all_counts for r in rolls) for b in rules.boxes)


@dataclass(frozen=True, slots=True)
class ObservationLayout:
    """The observation of one seat: a flat ``float32`` vector of whole numbers.

    Blocks, in order (``B`` boxes, ``K`` cards, ``N`` players, ``D`` dice):

    ============== ======= ===========================================================
    field          size    meaning
    ============== ======= ===========================================================
    counts         6       how many dice show each face (all 0 when no dice show)
    dice           D       the faces in ascending order (reroll-mask bit order)
    roll           1       rolls made this turn (1 to ``rules.rolls``; 0 at the end)
    round          1       the seat's round, 1 to ``rules.rounds``
    filled         K*B     1 where the box is filled, card by card
    scores         K*B     points each box would score now (0 if it may not be filled)
    upper_total    K       each card's upper-section points
    upper_bonus    K       each card's upper bonus earned so far
    bonus_ready    K       1 if five alike would now earn the extra-Yahtzee bonus
    totals         N       grand totals, this seat first, then the next seats in order
    ============== ======= ===========================================================
    """

    rules: RuleSet
    players: int
    fields: tuple[Field, ...]

    @classmethod
    def of(cls, rules: RuleSet, players: int = 1) -> ObservationLayout:
        """The layout for ``rules`` seen by one of ``players`` players."""
        b, k, d = len(rules.boxes), len(rules.cards), rules.dice
        maxima = box_maxima(rules)
        upper = sum(maxima[i] for i in rules.upper_indices)
        bonus = max((t.points for t in rules.upper_bonus), default=0)
        card_total = sum(maxima) + bonus + rules.yahtzee_bonus * max(b - 1, 0)
        blocks = [
            ("counts", FACES, d, "how many dice show each face"),
            ("dice", d, FACES, "the faces in ascending order (the order of the reroll-mask bits)"),
            ("roll", 1, rules.rolls, "rolls made this turn (0 once the game is over)"),
            ("round", 1, rules.rounds, "the seat's current round"),
            ("filled", k * b, 1, "1 where a box is filled (card by card, boxes in card order)"),
            ("scores", k * b, max(maxima), "points each box would score now (0 where it may not be filled)"),
            ("upper_total", k, upper, "each card's upper-section points"),
            ("upper_bonus", k, bonus, "each card's upper bonus earned so far"),
            ("bonus_ready", k, 1, "1 where five alike would now earn the extra-Yahtzee bonus"),
            ("totals", players, k * card_total, "grand totals: this seat first, then the following seats"),
        ]
        fields, start = [], 0
        for name, size, high, meaning in blocks:
            fields.append(Field(name, start, size, max(high, 1), meaning))
            start += size
        return cls(rules, players, tuple(fields))

    @property
    def size(self) -> int:
        """The length of the observation vector."""
        last = self.fields[-1]
        return last.start + last.size

    def field(self, name: str) -> Field:
        """A block by name."""
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)

    def space(self, scaled: bool = False) -> spaces.Box:
        """The Gymnasium ``Box`` of this layout: from 0 to each field's maximum, or to 1 when ``scaled``."""
        high = np.concatenate([np.full(f.size, f.high, dtype=np.float32) for f in self.fields])
        if scaled:
            high = np.ones(self.size, dtype=np.float32)
        return spaces.Box(np.zeros(self.size, dtype=np.float32), high, dtype=np.float32)

    def scales(self) -> NDArray[np.float32]:
        """What each entry is multiplied by to scale it to [0, 1] (one over its field's maximum)."""
        scales: NDArray[np.float32] = np.float32(1) / self.space().high
        return scales

    def scale(self, observation: NDArray[np.float32]) -> NDArray[np.float32]:
        """An observation of whole numbers scaled to [0, 1] (each field divided by its maximum)."""
        scaled: NDArray[np.float32] = observation * self.scales()
        return scaled

    def encode(self, state: GameState, seat: int = 0, options: Options | None = None) -> NDArray[np.float32]:
        """The observation of ``state`` from ``seat``'s side (``options``: ``state.options()``, if known)."""
        rules = self.rules
        b = len(rules.boxes)
        out = np.zeros(self.size, dtype=np.float32)
        cards = state.cards[seat]
        live = state.phase is Phase.PLAY and state.dice is not None
        if live and state.dice is not None:
            out[self.fields[0].slice] = state.counts
            out[self.fields[1].slice] = sorted(state.dice)
            out[self.fields[2].start] = state.rolls
        out[self.fields[3].start] = state.round_of(seat)
        filled, scores = self.fields[4].start, self.fields[5].start
        ready = self.fields[8].start
        for k, card in enumerate(cards):
            for i, entry in enumerate(card.entries):
                if entry is not None:
                    out[filled + k * b + i] = 1
            out[self.fields[6].start + k] = card.upper_total
            out[self.fields[7].start + k] = card.upper_bonus
            out[ready + k] = card.is_extra_yahtzee((1,) * rules.dice)
        if live and seat == state.current:
            index = _box_positions(rules)
            for (k, name), points in (state.options() if options is None else options).items():
                out[scores + k * b + index[name]] = points
        totals = self.fields[9].start
        n = len(state.players)
        for j in range(n):
            out[totals + j] = state.total((seat + j) % n)
        return out

    def table(self) -> str:
        """The layout as a Markdown table (offset, size, field, meaning)."""
        rows = ["| offset | size | field | meaning |", "| --- | --- | --- | --- |"]
        rows += [f"| {f.start} | {f.size} | `{f.name}` | {f.meaning} |" for f in self.fields]
        return "\n".join(rows)
