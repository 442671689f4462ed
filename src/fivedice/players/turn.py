"""Within-turn machinery shared by the table-driven players.

:class:`DiceSpace` enumerates the dice multisets of one roll and every keep, with the
exact transition probabilities; :class:`OptionTable` asks the score card once per dice
multiset which boxes are legal and what they score (so the rules stay in
:mod:`fivedice.engine.scorecard`); :func:`turn_plan` runs the within-turn dynamic programme
for any end-of-turn utility, e.g. this turn's points (``greedy``) or the chance of
winning (``win``).

>>> space = dice_space(5)
>>> len(space.rolls), len(space.keeps)
(252, 210)
>>> round(float(space.trans[space.keep_index[(6, 6, 6, 6)]].sum()), 12)
1.0
"""

from __future__ import annotations

import itertools
import math
from collections import OrderedDict
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from fivedice.dice import FACES, counts_of, multisets
from fivedice.engine.scorecard import Scorecard
from fivedice.rules.ruleset import RuleSet

__all__ = ["DiceSpace", "OptionTable", "TurnPlan", "dice_space", "option_table", "turn_plan"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True, slots=True, eq=False)
class DiceSpace:
    """Every roll (sorted multiset of ``n`` dice) and every keep (a smaller multiset).

    ``trans[k, j]`` is the chance that keeping ``keeps[k]`` and rolling the rest gives
    ``rolls[j]``; ``sub[k, j]`` says whether ``keeps[k]`` can be kept from ``rolls[j]``.
    ``lookup[code]`` maps a counts code (base ``n + 1`` digits) to its roll index.
    """

    n: int
    rolls: tuple[tuple[int, ...], ...]
    roll_index: dict[tuple[int, ...], int]
    counts: IntArray
    keeps: tuple[tuple[int, ...], ...]
    keep_index: dict[tuple[int, ...], int]
    trans: FloatArray
    sub: BoolArray
    lookup: IntArray

    def code(self, counts: IntArray) -> IntArray:
        """Counts codes of rows of face counts (for :attr:`lookup`)."""
        weights = (self.n + 1) ** np.arange(FACES, dtype=np.int64)
        result: IntArray = counts @ weights
        return result

    def index_of(self, dice: tuple[int, ...] | list[int]) -> int:
        """The roll index of some dice, in any order."""
        return self.roll_index[tuple(sorted(dice))]


@cache
def dice_space(n: int) -> DiceSpace:
    """The (cached) dice space of ``n`` dice."""
    rolls = multisets(n)
    roll_index = {r: i for i, r in enumerate(rolls)}
    counts = np.array([counts_of(r) for r in rolls], dtype=np.int64)
    keeps = tuple(k for size in range(n) for k in multisets(size))
    keep_index = {k: i for i, k in enumerate(keeps)}
    trans = np.zeros((len(keeps), len(rolls)))
    for k, keep in enumerate(keeps):
        free = n - len(keep)
        for rolled in multisets(free):
            c = counts_of(rolled)
            ways = math.factorial(free)
            for x in c:
                ways //= math.factorial(x)
            trans[k, roll_index[tuple(sorted(keep + rolled))]] += ways / FACES**free
    sub = np.zeros((len(keeps), len(rolls)), dtype=bool)
    for j, roll in enumerate(rolls):
        for size in range(n):
            for keep in set(itertools.combinations(roll, size)):
                sub[keep_index[keep], j] = True
    lookup = np.full((n + 1) ** FACES, -1, dtype=np.int64)
    weights = (n + 1) ** np.arange(FACES, dtype=np.int64)
    lookup[counts @ weights] = np.arange(len(rolls))
    return DiceSpace(n, rolls, roll_index, counts, keeps, keep_index, trans, sub, lookup)


@dataclass(frozen=True, slots=True, eq=False)
class OptionTable:
    """What one score card allows for every roll: ``legal[j, i]`` and ``points[j, i]`` for
    box ``i`` and roll ``j``, and ``extra[j]`` (filling any box earns an extra-Yahtzee bonus)."""

    legal: BoolArray
    points: IntArray
    extra: BoolArray


_TABLES: OrderedDict[tuple[object, ...], OptionTable] = OrderedDict()
_TABLES_MAX = 4096


def _signature(card: Scorecard, roll: int) -> tuple[object, ...]:
    rules = card.rules
    ybox = card.entries[rules.box_index(rules.yahtzee_box)] if rules.yahtzee_box else None
    ystate = None if ybox is None else bool(ybox)
    first = roll == 1 and any(b.points.first_roll is not None for b in rules.boxes)
    return (id(rules), card.order, tuple(e is None for e in card.entries), ystate, first)


def natural_points(rules: RuleSet, roll: int) -> IntArray:
    """``Box.score`` of every roll in every box (no Joker), for dice made on roll ``roll``."""
    first = roll == 1 and any(b.points.first_roll is not None for b in rules.boxes)
    key = (id(rules), first)
    table = _NATURAL.get(key)
    if table is None:
        rules_keepalive.setdefault(id(rules), rules)
        space = dice_space(rules.dice)
        table = np.array(
            [[box.score(counts_of(r), 1 if first else 2) for box in rules.boxes] for r in space.rolls], dtype=np.int64
        )
        _NATURAL[key] = table
    return table


_NATURAL: dict[tuple[int, bool], IntArray] = {}


def option_table(card: Scorecard, roll: int) -> OptionTable:
    """The (cached) option table of ``card`` for dice made on roll number ``roll``.

    The card is asked (:meth:`Scorecard.option_indices`) once for an ordinary roll, which
    gives the boxes its fill order allows (each at its natural :meth:`Box.score`), and once
    for each all-alike roll, where the Joker rule and the extra-Yahtzee bonus may apply.
    Cards with the same open boxes and Yahtzee-box state share a table.
    """
    key = _signature(card, roll)
    table = _TABLES.get(key)
    if table is not None:
        _TABLES.move_to_end(key)
        return table
    rules = card.rules
    space = dice_space(rules.dice)
    points = natural_points(rules, roll).copy()
    legal = np.zeros(points.shape, dtype=bool)
    extra = np.zeros(len(space.rolls), dtype=bool)
    alike = np.flatnonzero(space.counts.max(axis=1) == rules.dice)
    ordinary = next(j for j in range(len(space.rolls)) if j not in set(alike.tolist()))
    allowed = list(card.option_indices(counts_of(space.rolls[ordinary]), roll))
    legal[:, allowed] = True
    for j in alike.tolist():
        legal[j] = False
        for i, p in card.option_indices(counts_of(space.rolls[j]), roll).items():
            legal[j, i] = True
            points[j, i] = p
        extra[j] = card.is_extra_yahtzee(space.rolls[j])
    table = OptionTable(legal, points, extra)
    _TABLES[key] = table
    if len(_TABLES) > _TABLES_MAX:
        _TABLES.popitem(last=False)
    rules_keepalive.setdefault(id(rules), rules)
    return table


rules_keepalive: dict[int, RuleSet] = {}
"""Rule sets whose ``id`` keys the option-table cache (kept alive so ids stay unique)."""


def gains(card: Scorecard, table: OptionTable) -> IntArray:
    """This turn's points for every roll and box: the box's points, the change in the
    upper bonus, and the extra-Yahtzee bonus (illegal boxes hold 0; mask with ``legal``)."""
    rules = card.rules
    result: IntArray = table.points.copy()
    upper = list(rules.upper_indices)
    if rules.upper_bonus and upper:
        base = card.upper_total
        top = base + int(table.points[:, upper].max(initial=0)) + 1
        lut = np.array([rules.upper_bonus_for(t) for t in range(base, top + 1)], dtype=np.int64)
        result[:, upper] += lut[table.points[:, upper]] - lut[0]
    if rules.yahtzee_bonus:
        result += (table.extra * rules.yahtzee_bonus)[:, None]
    return result


@dataclass(frozen=True, slots=True, eq=False)
class TurnPlan:
    """The within-turn values for one end-of-turn utility.

    ``stop[m - 1, j]`` is the utility of scoring roll ``j`` after ``m`` rolls (the best
    box); ``keep[m - 1, k]`` the expected value of keeping ``keeps[k]`` after ``m`` rolls
    and playing on well; ``value[m - 1, j]`` the value of holding roll ``j`` after ``m``.
    """

    space: DiceSpace
    stop: FloatArray
    keep: FloatArray
    value: FloatArray

    def best_keep(self, rolls_made: int, dice: tuple[int, ...]) -> tuple[tuple[int, ...] | None, float]:
        """The best keep for ``dice`` after ``rolls_made`` rolls (None means score now)
        and its value; scoring wins ties."""
        j = self.space.index_of(dice)
        stop = float(self.stop[rolls_made - 1, j])
        if rolls_made >= self.stop.shape[0]:
            return None, stop
        candidates = np.flatnonzero(self.space.sub[:, j])
        values = self.keep[rolls_made - 1, candidates]
        best = int(np.argmax(values))
        if values[best] <= stop + 1e-12:
            return None, stop
        return self.space.keeps[int(candidates[best])], float(values[best])


def turn_plan(space: DiceSpace, stop: FloatArray) -> TurnPlan:
    """Run the within-turn programme: ``stop[m - 1, j]`` is the utility of scoring roll
    ``j`` after ``m`` rolls, for ``m`` from 1 to the rolls per turn."""
    rolls = stop.shape[0]
    value = np.empty_like(stop)
    keep = np.full((rolls, len(space.keeps)), -np.inf)
    value[rolls - 1] = stop[rolls - 1]
    for m in range(rolls - 1, 0, -1):
        keep[m - 1] = space.trans @ value[m]
        best = np.where(space.sub, keep[m - 1][:, None], -np.inf).max(axis=0)
        value[m - 1] = np.maximum(stop[m - 1], best)
    return TurnPlan(space, stop, keep, value)
