"""The fast path of :class:`~fivedice.rl.solitaire.SolitaireEnv`: one player's game on plain lists.

An environment step must cost microseconds, and the engine's immutable
:class:`~fivedice.engine.state.GameState` costs about a hundred. :class:`FastGame` keeps the
same game as a few mutable lists and answers from tables the engine fills in once per rule set:

- the points of every box for every multiset of dice on every roll (``Box.score``);
- which boxes a card's fill order allows for each set of filled boxes
  (``Scorecard.allowed_by_order``, remembered per set);
- for five alike (the Joker rule, the extra-Yahtzee bonus: where the card's history matters)
  the engine's own :meth:`~fivedice.engine.scorecard.Scorecard.option_indices` and
  :meth:`~fivedice.engine.scorecard.Scorecard.is_extra_yahtzee` on the real card.

:meth:`FastGame.state` builds the engine's :class:`GameState` of the moment, and the tests play
thousands of games of every rule set checking each observation, mask and total against it.

>>> from fivedice import rules
>>> game = FastGame(rules.get("yacht"))
>>> game.roll_dice((6, 6, 6, 2, 2))
>>> game.options[game.rules.box_index("full_house")], game.score(0, game.rules.box_index("sixes"))
(22, 18)
>>> game.state().total(0)
18
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache

from fivedice.dice import FACES, counts_of, multisets
from fivedice.engine.scorecard import Scorecard
from fivedice.engine.state import GameState, Phase
from fivedice.rules import RuleSet

__all__ = ["PLAYER", "FastGame", "Tables"]

PLAYER = "player"
"""The name of the environment's one player."""


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
        # points[roll - 1][multiset][box]
        self.points = [[[b.score(c, roll) for b in boxes] for c in self.counts] for roll in range(1, rules.rolls + 1)]
        self.upper = frozenset(rules.upper_indices)
        self.yahtzee = rules.box_index(rules.yahtzee_box) if rules.yahtzee_box else -1
        self.instant = rules.box_index(rules.instant_win) if rules.instant_win else -1
        self.qualifies = (
            [rules.box(rules.instant_win).kind.qualifies(c) for c in self.counts] if rules.instant_win else []
        )
        self._allowed: list[dict[int, tuple[int, ...]]] = [{} for _ in rules.cards]

    @classmethod
    def of(cls, rules: RuleSet) -> Tables:
        """The tables of ``rules``, built once per process (many environments share them)."""
        return _tables_of(rules)

    def allowed(self, card: int, filled: int) -> tuple[int, ...]:
        """The boxes card ``card`` may fill when the boxes in bit set ``filled`` are filled (the engine's answer)."""
        known = self._allowed[card].get(filled)
        if known is None:
            entries = tuple(0 if filled >> i & 1 else None for i in range(len(self.rules.boxes)))
            known = Scorecard(self.rules, self.rules.cards[card], entries).allowed_by_order()
            self._allowed[card][filled] = known
        return known


@cache
def _tables_of(rules: RuleSet) -> Tables:
    return Tables(rules)


class FastGame:
    """One player's game of ``rules`` as mutable lists (see the module's docstring).

    ``dice`` are in position order as the engine keeps them; ``options`` maps every legal
    ``card * boxes + box`` for them to its points (empty before the turn's first roll and at the
    end); ``count`` is how many boxes are filled on every card.
    """

    __slots__ = (
        "bonuses",
        "count",
        "dice",
        "entries",
        "filled",
        "instant",
        "lower",
        "multiset",
        "options",
        "over",
        "rng",
        "rolls",
        "rules",
        "tables",
        "totals",
        "turns",
        "upper",
    )

    def __init__(self, rules: RuleSet, tables: Tables | None = None, rng: random.Random | None = None) -> None:
        self.rules = rules
        self.tables = tables if tables is not None else Tables(rules)
        self.rng = rng if rng is not None else random.Random()
        cards = len(rules.cards)
        self.entries: list[list[int | None]] = [[None] * len(rules.boxes) for _ in range(cards)]
        self.filled = [0] * cards
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
        self.options: dict[int, int] = {}
        self.count = 0

    @classmethod
    def of(cls, state: GameState, tables: Tables | None = None, rng: random.Random | None = None) -> FastGame:
        """The game of a one-player engine state (its cards, dice and rolls)."""
        game = cls(state.rules, tables, rng)
        for k, card in enumerate(state.cards[0]):
            game.entries[k] = list(card.entries)
            game.filled[k] = sum(1 << i for i, e in enumerate(card.entries) if e is not None)
            game.upper[k] = card.upper_total
            game.lower[k] = card.lower_total
            game.bonuses[k] = card.yahtzee_bonuses
            game.totals[k] = card.total
        game.count = sum(f.bit_count() for f in game.filled)
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
        shown = self.dice = tuple(dice)
        self.rolls += 1
        t = self.tables
        m = t.by_dice.get(shown)
        if m is None:
            m = t.by_dice[shown] = t.index[tuple(sorted(shown))]
        self.multiset = m
        if t.five[m]:
            b = len(self.rules.boxes)
            self.options = {
                k * b + i: p
                for k in range(len(self.entries))
                for i, p in self.card(k).option_indices(t.counts[m], self.rolls).items()
            }
            return
        points = t.points[self.rolls - 1][m]
        if len(self.entries) == 1:
            self.options = {i: points[i] for i in t.allowed(0, self.filled[0])}
        else:
            b = len(self.rules.boxes)
            self.options = {
                k * b + i: points[i] for k in range(len(self.entries)) for i in t.allowed(k, self.filled[k])
            }

    def reroll(self, held: Sequence[int]) -> tuple[int, ...]:
        """Roll every die but those at positions ``held`` (the turn's first roll when no dice show)."""
        rng = self.rng.random
        if self.dice is None:
            new = tuple([int(rng() * FACES) + 1 for _ in range(self.rules.dice)])  # (a list is quicker to build)
        else:
            new = tuple([d if p in held else int(rng() * FACES) + 1 for p, d in enumerate(self.dice)])
        self.roll_dice(new)
        return new

    def score(self, card: int, box: int) -> int:
        """Fill ``box`` on ``card`` with the current dice (it must be in :attr:`options`); returns the
        points the grand total gains (bonuses included) and clears the dice for the next turn."""
        points = self.options[card * len(self.rules.boxes) + box]
        t = self.tables
        before = self.totals[card]
        if t.five[self.multiset] and self.dice is not None and self.card(card).is_extra_yahtzee(self.dice):
            self.bonuses[card] += 1
        self.entries[card][box] = points
        self.filled[card] |= 1 << box
        if box in t.upper:
            self.upper[card] += points
        else:
            self.lower[card] += points
        total = self.upper[card] + self.rules.upper_bonus_for(self.upper[card]) + self.lower[card]
        self.totals[card] = total + self.bonuses[card] * self.rules.yahtzee_bonus
        self.turns += 1
        self.count += 1
        if box == t.instant and self.rolls == 1 and t.qualifies[self.multiset]:
            self.over = self.instant = True
        if self.turns >= self.rules.rounds:
            self.over = True
        self.dice = None
        self.multiset = -1
        self.rolls = 0
        self.options = {}
        return self.totals[card] - before
