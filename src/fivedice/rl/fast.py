"""The fast path of :class:`~fivedice.rl.solitaire.SolitaireEnv`: one player's game on plain lists.

An environment step must cost microseconds, and the engine's immutable
:class:`~fivedice.engine.state.GameState` costs about a hundred. :class:`FastGame` keeps the
same game as a few mutable lists and answers from tables the engine fills in once per rule set:

- the points of every box for every multiset of dice on every roll (``Box.score``);
- which boxes each card's fill order allows for each set of filled boxes
  (``Scorecard.allowed_by_order``), as one :class:`Turn` per set of filled boxes on every card:
  the legal score actions as a bit set, and the action masks and the 0/1 row the observation's
  scores are multiplied by;
- the held positions of every reroll mask for every order of the dice shown;
- for five alike (the Joker rule, the extra-Yahtzee bonus: where the card's history matters)
  the engine's own :meth:`~fivedice.engine.scorecard.Scorecard.option_indices` and
  :meth:`~fivedice.engine.scorecard.Scorecard.is_extra_yahtzee` on the real card.

Score actions are numbered flat, ``card * boxes + box``. :meth:`FastGame.state` builds the
engine's :class:`GameState` of the moment, and the tests play thousands of games of every rule
set checking each state, observation, mask and reward against the engine's.

>>> from fivedice import rules
>>> game = FastGame(rules.get("yacht"))
>>> game.roll_dice((6, 6, 6, 2, 2))
>>> game.options[game.rules.box_index("full_house")], game.score(0, game.rules.box_index("sixes"))
(22, 18)
>>> game.state().total(0)
18
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
from numpy.typing import NDArray

from fivedice.dice import FACES, counts_of, multisets
from fivedice.engine.scorecard import Scorecard
from fivedice.engine.state import GameState, Phase
from fivedice.rules import RuleSet

__all__ = ["PLAYER", "TURN_CACHE", "FastGame", "Move", "Tables", "Turn", "draw", "filled_bits"]

PLAYER = "player"
"""The name of the environment's one player."""

TURN_CACHE = 1 << 15
"""Turns (sets of filled boxes) a rule set's tables remember: every one of a single card of up to 15
boxes (about 0.7 kB each: 24 MB once every one of Yatzy's has been met); beyond, a turn not met
before is built again each time (about 15 us)."""

DRAW_TABLE = 5
"""Rolls of at most this many dice are drawn with one random number from a table of every outcome."""

Move = tuple[tuple[int, ...], tuple[int, ...]] | tuple[int, int, int]
"""A move as :class:`FastGame` records it: ``(held, dice)`` for a roll, ``(box, card, points)`` for a score."""


@dataclass(frozen=True, slots=True)
class Turn:
    """What a turn with a given set of filled boxes allows (before five alike's engine answer)."""

    legal: int
    """Bit ``j`` set: score action ``j`` (``card * boxes + box``) is allowed."""
    open: NDArray[np.float32]
    """1.0 where a score action is allowed (the observation's scores are the points times this)."""
    mask_roll: NDArray[np.int8]
    """The action mask while the player may still reroll."""
    mask_last: NDArray[np.int8]
    """The action mask after the turn's last roll."""


class Tables:
    """What :class:`FastGame` looks up for one rule set (built once, shared by every game)."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.sets: tuple[tuple[int, ...], ...] = multisets(rules.dice)
        self.index: dict[tuple[int, ...], int] = {m: i for i, m in enumerate(self.sets)}
        self.by_dice: dict[tuple[int, ...], int] = {}
        """The multiset of dice in position order, filled as they show (at most ``6**dice``)."""
        self.counts = [counts_of(m) for m in self.sets]
        self.five = [rules.dice in c for c in self.counts]
        boxes = rules.boxes
        self.boxes = len(boxes)
        self.cards = len(rules.cards)
        self.rerolls = 1 << rules.dice
        # points[roll - 1][multiset][box]; flat[roll - 1][multiset][card * boxes + box]
        self.points = [[[b.score(c, roll) for b in boxes] for c in self.counts] for roll in range(1, rules.rolls + 1)]
        self.flat = [[row * self.cards for row in by_set] for by_set in self.points]
        self.is_upper = [i in rules.upper_indices for i in range(self.boxes)]
        self.yahtzee = rules.box_index(rules.yahtzee_box) if rules.yahtzee_box else -1
        self.instant = rules.box_index(rules.instant_win) if rules.instant_win else -1
        self.qualifies = (
            [rules.box(rules.instant_win).kind.qualifies(c) for c in self.counts] if rules.instant_win else []
        )
        self.draws = [tuple(itertools.product(range(1, FACES + 1), repeat=k)) for k in range(DRAW_TABLE + 1)]
        """Every outcome of rolling ``k`` dice, for ``k`` up to :data:`DRAW_TABLE`."""
        self._allowed: list[dict[int, tuple[int, ...]]] = [{} for _ in rules.cards]
        self._turns: dict[int, Turn] = {}
        self._last_prefix = bytes(self.rerolls)
        self._roll_prefix = b"\x00" + b"\x01" * (self.rerolls - 1)
        self.plans: dict[tuple[int, ...], list[tuple[tuple[int, ...], tuple[int, ...]]]] = {}
        """:meth:`plan` of the dice seen so far."""
        self._by_order: dict[tuple[int, ...], list[tuple[tuple[int, ...], tuple[int, ...]]]] = {}

    @classmethod
    def of(cls, rules: RuleSet) -> Tables:
        """The tables of ``rules``, built once per process (many environments share them)."""
        return _tables_of(rules)

    def multiset(self, dice: tuple[int, ...]) -> int:
        """The index of the multiset of ``dice`` (in position order)."""
        m = self.by_dice.get(dice)
        if m is None:
            m = self.by_dice[dice] = self.index[tuple(sorted(dice))]
        return m

    def allowed(self, card: int, filled: int) -> tuple[int, ...]:
        """The boxes card ``card`` may fill when the boxes in bit set ``filled`` are filled (the engine's answer)."""
        known = self._allowed[card].get(filled)
        if known is None:
            entries = tuple(0 if filled >> i & 1 else None for i in range(self.boxes))
            known = Scorecard(self.rules, self.rules.cards[card], entries).allowed_by_order()
            self._allowed[card][filled] = known
        return known

    def turn(self, filled: int) -> Turn:
        """The :class:`Turn` when the score actions in bit set ``filled`` are filled."""
        known = self._turns.get(filled)
        if known is None:
            b, full = self.boxes, (1 << self.boxes) - 1
            legal = 0
            for k in range(self.cards):
                for i in self.allowed(k, filled >> k * b & full):
                    legal |= 1 << (k * b + i)
            bits = bytes([legal >> j & 1 for j in range(self.cards * b)])
            known = Turn(
                legal,
                np.frombuffer(bits, dtype=np.int8).astype(np.float32),
                np.frombuffer(self._roll_prefix + bits, dtype=np.int8),
                np.frombuffer(self._last_prefix + bits, dtype=np.int8),
            )  # (read-only: the environment hands over copies)
            if len(self._turns) < TURN_CACHE:
                self._turns[filled] = known
        return known

    def plan(self, dice: tuple[int, ...]) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
        """For every reroll mask (bits in ascending order of face, ties by position): the held
        positions and the rerolled ones, for ``dice`` in position order."""
        known = self.plans.get(dice)
        if known is None:
            order = tuple(sorted(range(len(dice)), key=dice.__getitem__))
            known = self._by_order.get(order)
            if known is None:
                known = self._by_order[order] = [
                    (
                        tuple(sorted(p for i, p in enumerate(order) if not a >> i & 1)),
                        tuple(sorted(p for i, p in enumerate(order) if a >> i & 1)),
                    )
                    for a in range(self.rerolls)
                ]
            self.plans[dice] = known
        return known


def filled_bits(cards: tuple[Scorecard, ...]) -> int:
    """The filled boxes of a player's cards as a bit set: bit ``card * boxes + box`` (as :meth:`Tables.turn` takes)."""
    bits, j = 0, 0
    for card in cards:
        for entry in card.entries:
            if entry is not None:
                bits |= 1 << j
            j += 1
    return bits


@cache
def _tables_of(rules: RuleSet) -> Tables:
    return Tables(rules)


def draw(tables: Tables, rng: random.Random, n: int) -> tuple[int, ...]:
    """``n`` dice: one random number picks among every outcome (per die beyond :data:`DRAW_TABLE`)."""
    if n <= DRAW_TABLE:
        outcomes = tables.draws[n]
        return outcomes[int(rng.random() * len(outcomes))]
    return tuple([int(rng.random() * FACES) + 1 for _ in range(n)])


class FastGame:
    """One player's game of ``rules`` as mutable lists (see the module's docstring).

    ``dice`` are in position order as the engine keeps them. ``turn`` is the :class:`Turn` of
    the filled boxes; ``row`` the points of every score action for the dice shown and ``special``
    the engine's options for five alike (None otherwise), so the legal score actions are
    ``turn.legal``'s bits, or ``special``'s keys. ``count`` is how many boxes are filled on every
    card; ``moves`` records every move since the start (see :data:`Move`).
    """

    __slots__ = (
        "bonuses",
        "count",
        "dice",
        "entries",
        "filled",
        "instant",
        "lower",
        "moves",
        "multiset",
        "over",
        "rng",
        "rolls",
        "row",
        "rules",
        "special",
        "tables",
        "totals",
        "turn",
        "turns",
        "upper",
    )

    def __init__(self, rules: RuleSet, tables: Tables | None = None, rng: random.Random | None = None) -> None:
        self.rules = rules
        self.tables = tables if tables is not None else Tables(rules)
        self.rng = rng if rng is not None else random.Random()
        cards = len(rules.cards)
        self.entries: list[list[int | None]] = [[None] * len(rules.boxes) for _ in range(cards)]
        self.filled = 0
        """Bit ``card * boxes + box`` set: that box is filled."""
        self.upper = [0] * cards
        self.lower = [0] * cards
        self.bonuses = [0] * cards
        self.totals = [0] * cards
        self.dice: tuple[int, ...] | None = None
        self.multiset = -1
        self.rolls = 0
        self.turns = 0
        self.over = False
        self.instant = False
        self.count = 0
        self.turn = self.tables.turn(0)
        self.row: list[int] = []
        self.special: dict[int, int] | None = None
        self.moves: list[Move] = []

    @classmethod
    def of(cls, state: GameState, tables: Tables | None = None, rng: random.Random | None = None) -> FastGame:
        """The game of a one-player engine state (its cards, dice and rolls)."""
        game = cls(state.rules, tables, rng)
        game.filled = filled_bits(state.cards[0])
        for k, card in enumerate(state.cards[0]):
            game.entries[k] = list(card.entries)
            game.upper[k] = card.upper_total
            game.lower[k] = card.lower_total
            game.bonuses[k] = card.yahtzee_bonuses
            game.totals[k] = card.total
        game.count = game.filled.bit_count()
        game.turn = game.tables.turn(game.filled)
        game.turns = state.turns
        game.over = state.is_over
        game.instant = state.instant_winner is not None
        if state.dice is not None and not game.over:
            game.rolls = state.rolls - 1
            game.roll_dice(state.dice)
        return game

    @property
    def total(self) -> int:
        """The grand total over every card."""
        return sum(self.totals)

    @property
    def options(self) -> dict[int, int]:
        """Every legal score action for the dice shown and its points (empty when no dice show)."""
        if self.dice is None:
            return {}
        if self.special is not None:
            return dict(self.special)
        legal = self.turn.legal
        return {j: p for j, p in enumerate(self.row) if legal >> j & 1}

    def card(self, k: int) -> Scorecard:
        """Card ``k`` as the engine's immutable :class:`Scorecard`."""
        rules = self.rules
        return Scorecard(rules, rules.cards[k], tuple(self.entries[k]), self.bonuses[k])

    def state(self) -> GameState:
        """The engine's state of the moment."""
        cards = (tuple(self.card(k) for k in range(len(self.rules.cards))),)
        phase = Phase.OVER if self.over else Phase.PLAY
        dice = None if self.over else self.dice
        return GameState(
            self.rules, (PLAYER,), cards, phase, 0, starter=0, dice=dice, rolls=self.rolls if dice else 0,
            turns=self.turns, instant_winner=0 if self.instant else None,
        )  # fmt: skip

    # -- moves -----------------------------------------------------------------------------
    def roll_dice(self, dice: Sequence[int]) -> None:
        """Show ``dice`` (position order) as the turn's next roll and find the options."""
        self._show(tuple(dice))

    def _show(self, shown: tuple[int, ...]) -> None:
        self.dice = shown
        self.rolls += 1
        t = self.tables
        m = t.by_dice.get(shown)
        if m is None:
            m = t.by_dice[shown] = t.index[tuple(sorted(shown))]
        self.multiset = m
        self.row = t.flat[self.rolls - 1][m]
        if t.five[m]:
            b = t.boxes
            self.special = {
                k * b + i: p
                for k in range(t.cards)
                for i, p in self.card(k).option_indices(t.counts[m], self.rolls).items()
            }
        else:
            self.special = None

    def reroll(self, held: Sequence[int]) -> tuple[int, ...]:
        """Roll every die but those at positions ``held`` (the turn's first roll when no dice show)."""
        if self.dice is None:
            self.first_roll()
        else:
            order = sorted(range(len(self.dice)), key=self.dice.__getitem__)
            self.reroll_mask(sum(1 << i for i, p in enumerate(order) if p not in held))
        assert self.dice is not None
        return self.dice

    def reroll_mask(self, mask: int) -> None:
        """Reroll the dice of reroll mask ``mask`` (bit ``i``: the ``i``-th die in ascending order)."""
        dice, t = self.dice, self.tables
        assert dice is not None
        plan = t.plans.get(dice)
        held, rerolled = (plan if plan is not None else t.plan(dice))[mask]
        k = len(rerolled)
        if k <= DRAW_TABLE:
            outcomes = t.draws[k]
            drawn = outcomes[int(self.rng.random() * len(outcomes))]
        else:
            drawn = draw(t, self.rng, k)
        if held:
            new = list(dice)
            for p, d in zip(rerolled, drawn, strict=False):  # (of one length)
                new[p] = d
            drawn = tuple(new)
        self.moves.append((held, drawn))
        self._show(drawn)

    def first_roll(self) -> None:
        """The turn's first roll."""
        new = draw(self.tables, self.rng, self.rules.dice)
        self.moves.append(((), new))
        self._show(new)

    def legal(self, action: int) -> bool:
        """Whether score action ``action`` (``card * boxes + box``) is allowed for the dice shown."""
        if self.dice is None:
            return False
        special = self.special
        return bool(self.turn.legal >> action & 1) if special is None else action in special

    def score(self, card: int, box: int) -> int:
        """Fill ``box`` on ``card`` with the current dice (it must be legal); returns the points
        the grand total gains (bonuses included) and clears the dice for the next turn."""
        t = self.tables
        j = card * t.boxes + box
        special = self.special
        points = self.row[j] if special is None else special[j]
        before = self.totals[card]
        if special is not None and self.dice is not None and self.card(card).is_extra_yahtzee(self.dice):
            self.bonuses[card] += 1
        self.entries[card][box] = points
        self.filled |= 1 << j
        if t.is_upper[box]:
            self.upper[card] += points
        else:
            self.lower[card] += points
        rules = self.rules
        upper = self.upper[card]
        total = self.totals[card] = (
            upper + rules.upper_bonus_for(upper) + self.lower[card] + self.bonuses[card] * rules.yahtzee_bonus
        )
        self.turns += 1
        self.count += 1
        if box == t.instant and self.rolls == 1 and t.qualifies[self.multiset]:
            self.over = self.instant = True
        if self.turns >= rules.rounds:
            self.over = True
        self.moves.append((box, card, points))
        self.turn = t.turn(self.filled)
        self.dice = None
        self.multiset = -1
        self.rolls = 0
        self.special = None
        return total - before
