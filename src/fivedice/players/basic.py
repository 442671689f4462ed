"""Players that need no solver: ``random``, ``greedy`` and the GNOME Tali heuristic ``tali``.

Each works for every rule set (any boxes, Joker policy, fill order, number of cards),
because legality and points always come from :meth:`Scorecard.option_indices`.
"""

from __future__ import annotations

import random
from typing import ClassVar

import numpy as np

from fivedice.dice import FACES
from fivedice.engine.actions import Action, Roll, RollOff, Score
from fivedice.engine.scorecard import Scorecard
from fivedice.engine.state import GameState, Phase
from fivedice.players.turn import FloatArray, IntArray, TurnPlan, dice_space, gains, option_table, turn_plan
from fivedice.rules.kinds import AllAlike, Chance, Face, OfAKind
from fivedice.rules.ruleset import RuleSet

__all__ = ["GreedyPlayer", "PlanPlayer", "RandomPlayer", "TaliPlayer"]


def opening(state: GameState) -> Action | None:
    """The only move before a decision exists: roll off, or the turn's first roll."""
    if state.phase is Phase.ROLLOFF:
        return RollOff(state.current)
    if state.dice is None:
        return Roll()
    return None


class RandomPlayer:
    """Picks uniformly among the legal moves (every distinct keep and every legal box)."""

    name: ClassVar[str] = "random"

    def __init__(self, rules: RuleSet, seed: int | None = None) -> None:
        self.rules = rules
        self.rng = random.Random(seed)

    def choose(self, state: GameState) -> Action:
        """A legal move at random."""
        first = opening(state)
        if first is not None:
            return first
        return self.rng.choice(state.legal_actions())


class PlanPlayer:
    """Base of players that plan a whole turn by an end-of-turn utility.

    Subclasses give :meth:`utility`: for card ``k`` of the player to move, an array
    ``(rolls, boxes)`` of the worth of scoring each roll in each box (only legal boxes
    are read). The turn plan is built once per turn and reused for each decision.
    """

    name: ClassVar[str] = "plan"

    def __init__(self, rules: RuleSet, seed: int | None = None) -> None:
        self.rules = rules
        self.space = dice_space(rules.dice)
        self._key: object = None
        self._plan: tuple[TurnPlan, IntArray] | None = None

    def utility(self, state: GameState, k: int, card: Scorecard, legal_gains: IntArray, roll: int) -> FloatArray:
        """The worth of each (roll, box) on card ``k``; ``legal_gains`` is this turn's points."""
        raise NotImplementedError

    def plan(self, state: GameState) -> tuple[TurnPlan, IntArray]:
        """The current turn's plan and, per (rolls made, roll), the best option column."""
        key = (state.turns, state.current, state.cards)
        if self._plan is not None and self._key == key:
            return self._plan
        rules = self.rules
        first_roll_matters = any(b.points.first_roll is not None for b in rules.boxes)
        stops = np.empty((rules.rolls, len(self.space.rolls)))
        choice = np.empty((rules.rolls, len(self.space.rolls)), dtype=np.int64)
        cached: tuple[FloatArray, IntArray] | None = None
        for m in range(1, rules.rolls + 1):
            if cached is None or (first_roll_matters and m <= 2):
                columns = []
                for k, card in enumerate(state.cards[state.current]):
                    table = option_table(card, m)
                    worth = self.utility(state, k, card, gains(card, table), m)
                    columns.append(np.where(table.legal, worth, -np.inf))
                full = np.concatenate(columns, axis=1) if len(columns) > 1 else columns[0]
                best = np.argmax(full, axis=1)
                cached = (full[np.arange(full.shape[0]), best], best)
            stops[m - 1], choice[m - 1] = cached
        plan = turn_plan(self.space, stops)
        self._key, self._plan = key, (plan, choice)
        return plan, choice

    def choose(self, state: GameState) -> Action:
        """Keep what the turn plan says, or score its best box."""
        first = opening(state)
        if first is not None:
            return first
        assert state.dice is not None
        plan, choice = self.plan(state)
        keep, _ = plan.best_keep(state.rolls, state.dice)
        if keep is not None:
            return Roll(state.positions_of(keep))
        column = int(choice[state.rolls - 1, self.space.index_of(state.dice)])
        card, box = divmod(column, len(self.rules.boxes))
        return Score(self.rules.boxes[box].name, card)


class GreedyPlayer(PlanPlayer):
    """Maximises this turn's points (box points, upper-bonus change, extra-Yahtzee bonus),
    rerolling to maximise their expectation; ties go to the first box on the card."""

    name: ClassVar[str] = "greedy"

    def utility(self, state: GameState, k: int, card: Scorecard, legal_gains: IntArray, roll: int) -> FloatArray:
        """This turn's points."""
        return legal_gains.astype(np.float64)


class TaliPlayer:
    """GNOME Tali's computer opponent, generalised to every rule set.

    A one-step table rates the dice for each open box: an upper box by how many dice show
    its face (``(count - 2) * face * 4 - face``), a lower box by its points, a chance-like
    box at half its points and only after the last roll, an all-alike box at 150 when made,
    four-of-a-kind boxes one point over three-of-a-kind. To reroll, it tries every subset
    of dice to reroll (keeping none rerolled means stop) with ``trials`` random rerolls
    each and keeps the subset with the best average table value, as Tali does.
    """

    name: ClassVar[str] = "tali"

    def __init__(self, rules: RuleSet, seed: int | None = None, trials: int = 100) -> None:
        self.rules = rules
        self.trials = trials
        self.rng = np.random.default_rng(seed)
        self.space = dice_space(rules.dice)
        self.weights = (rules.dice + 1) ** np.arange(FACES, dtype=np.int64)

    def table(self, state: GameState, last: bool) -> tuple[FloatArray, IntArray]:
        """The table value of every roll (best open box) and that box's column."""
        rules = self.rules
        counts = self.space.counts
        columns = []
        for card in state.cards[state.current]:
            table = option_table(card, max(state.rolls, 1))
            worth = table.points.astype(np.float64)
            for i, box in enumerate(rules.boxes):
                kind = box.kind
                if isinstance(kind, Face):
                    c = counts[:, kind.face - 1]
                    worth[:, i] = (c - (rules.dice - 3)) * kind.face * 4 - kind.face
                elif isinstance(kind, Chance):
                    worth[:, i] = worth[:, i] / 2 if last else 0.0
                elif isinstance(kind, AllAlike):
                    worth[:, i] = np.where(counts.max(axis=1) == rules.dice, 150.0, worth[:, i])
                elif isinstance(kind, OfAKind) and kind.n >= 4:
                    worth[:, i] = np.where(worth[:, i] > 0, worth[:, i] + 1, worth[:, i])
            if rules.yahtzee_bonus:
                worth += (table.extra * rules.yahtzee_bonus)[:, None]
            columns.append(np.where(table.legal, worth, -np.inf))
        full = np.concatenate(columns, axis=1) if len(columns) > 1 else columns[0]
        best = np.argmax(full, axis=1)
        return full[np.arange(full.shape[0]), best], best

    def choose(self, state: GameState) -> Action:
        """Reroll the subset with the best Monte Carlo average, or score the best box."""
        first = opening(state)
        if first is not None:
            return first
        assert state.dice is not None
        dice = state.dice
        if state.rolls_left > 0:
            values, _ = self.table(state, last=False)
            n = len(dice)
            masks = np.arange(2**n)
            reroll = (masks[:, None] >> np.arange(n)) & 1 == 1
            rolled = self.rng.integers(1, FACES + 1, size=(len(masks), self.trials, n))
            trial = np.where(reroll[:, None, :], rolled, np.array(dice))
            codes = self.weights[trial - 1].sum(axis=2)
            averages = values[self.space.lookup[codes]].mean(axis=1)
            best_mask = int(len(masks) - 1 - np.argmax(averages[::-1]))
            if best_mask:
                return Roll(tuple(p for p in range(n) if not best_mask >> p & 1))
        _, boxes = self.table(state, last=True)
        column = int(boxes[self.space.index_of(dice)])
        card, box = divmod(column, len(self.rules.boxes))
        return Score(self.rules.boxes[box].name, card)
