"""The :class:`Solver`: state values and the advisor (every option with its value and loss)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from fivedice.dice import FACES, Dice, count_error
from fivedice.errors import DiceError, IllegalActionError, RuleSetError
from fivedice.i18n import _, box_name, ngettext
from fivedice.rules import RuleSet
from fivedice.scorecard import Scorecard
from fivedice.solver import kernel
from fivedice.solver.cache import Table, load_or_build

__all__ = ["BatchValues", "Option", "Solver", "solve"]

Buffers = tuple[npt.NDArray[np.int32], npt.NDArray[np.float64], npt.NDArray[np.int32], npt.NDArray[np.float64]]


@dataclass(frozen=True, slots=True)
class Option:
    """One option of a situation: keep ``dice`` and roll the rest, or score ``box``.

    ``points`` is what the box scores; ``bonus`` is the extra-Yahtzee bonus the score earns
    (kept separate; the upper bonus a fill completes is part of ``value`` only). ``value`` is
    the expected points still to come from here under optimal play, points already on the
    card excluded; ``loss`` is how much less than the best option's value it is.
    """

    action: str
    value: float
    loss: float = 0.0
    dice: tuple[int, ...] = ()
    box: str | None = None
    points: int | None = None
    bonus: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The option as JSON-friendly data."""
        if self.action == "keep":
            return {"action": "keep", "dice": list(self.dice), "value": self.value, "loss": self.loss}
        out: dict[str, Any] = {"action": "score", "box": self.box, "points": self.points}
        if self.bonus:
            out["bonus"] = self.bonus
        out.update(value=self.value, loss=self.loss)
        return out


@dataclass(frozen=True, slots=True, eq=False)
class BatchValues:
    """Option values of many situations (row per situation), from :meth:`Solver.option_values_batch`.

    ``best`` is ``-(box + 1)`` or the position of the best keep in its row; keeps are multiset
    indices (``Solver.keep_dice`` names them); ``box_points`` is -1 where a box is not allowed.
    """

    nkeep: npt.NDArray[np.int64]
    best: npt.NDArray[np.int64]
    keep_index: npt.NDArray[np.int32]
    keep_value: npt.NDArray[np.float64]
    box_points: npt.NDArray[np.int32]
    box_value: npt.NDArray[np.float64]


class Solver:
    """Exact optimal values for one single-card rule set (objective: expected final score)."""

    def __init__(self, table: Table) -> None:
        self.table = table
        t = table.tables
        self.rules: RuleSet = t.rules
        self._t = t
        self._prm = t.params()
        self._arrays = t.arrays()
        self._values = table.values
        self._add = t.add.tolist()
        self._upper = [bool(u) for u in t.is_upper]
        self._possible = [{int(p) for p in row if p >= 0} for row in t.pvals]
        self._keeps = [tuple(f + 1 for f in range(FACES) for _f in range(row[f])) for row in t.counts.tolist()]
        self._names = self.rules.box_names
        nb = t.nboxes
        self._widths = (t.subsets.shape[1], nb)
        self._local = threading.local()  # output buffers per thread: the kernel runs without the GIL
        self.expected_score: float = self.state_value(Scorecard.empty(self.rules))
        """The optimal expected final score from an empty card."""

    # -- states -------------------------------------------------------------------------
    def state_index(self, card: Scorecard) -> int:
        """The dense index of the turn-start state of ``card``; raises if it cannot arise."""
        t = self._t
        if (card.rules is not self.rules and card.rules != self.rules) or card.order is not self.rules.cards[0]:
            raise RuleSetError(
                _(
                    "The score card is for {card!r}; this solver is for {solver!r}.",
                    card=card.rules.spec,
                    solver=self.rules.spec,
                )
            )
        mask = up = 0
        for b, e in enumerate(card.entries):
            if e is not None:
                if e not in self._possible[b]:
                    raise IllegalActionError(
                        ngettext(
                            "Box {box!r} holds {points} point, which it can never score in {rules}.",
                            "Box {box!r} holds {points} points, which it can never score in {rules}.",
                            e,
                            box=box_name(self.rules.boxes[b]),
                            points=e,
                            rules=self.rules.spec,
                        )
                    )
                mask |= 1 << b
                if self._upper[b]:
                    up += e
        y = 1 if t.ybits == 2 and card.entries[t.ybox] else 0
        index = (mask * t.units + t.frozen_up(mask, up)) * t.ybits + y
        if not self.table.reach[index]:
            boxes = self.rules.boxes
            filled = ", ".join(f"{box_name(boxes[b])}={e}" for b, e in enumerate(card.entries) if e is not None)
            raise IllegalActionError(
                _("The score card {{{filled}}} cannot arise under {rules}.", filled=filled, rules=self.rules.spec)
            )
        return index

    def state_value(self, card: Scorecard) -> float:
        """Expected points still to come from the start of a turn on ``card``."""
        return float(self._values[self.state_index(card)])

    # -- advice -------------------------------------------------------------------------
    def _situation(self, card: Scorecard, dice: Dice | Sequence[int], rolls_left: int) -> tuple[int, int, int, int]:
        t = self._t
        index = self.state_index(card)
        if card.is_full:
            raise IllegalActionError(_("The score card is full; there is nothing left to decide."))
        values = dice.values if isinstance(dice, Dice) else tuple(dice)
        if len(values) != t.n:
            shown = " ".join(map(str, values))
            raise DiceError(count_error(shown, len(values), t.n))
        d = 0
        add = self._add
        for v in values:
            if isinstance(v, bool) or not isinstance(v, int | np.integer) or not 1 <= v <= FACES:
                raise DiceError(_("Die value {value!r} is not a whole number from 1 to {faces}.", value=v, faces=FACES))
            d = add[d][v - 1]
        if isinstance(rolls_left, bool) or not isinstance(rolls_left, int) or not 0 <= rolls_left < self.rules.rolls:
            raise IllegalActionError(
                _(
                    "Rolls left {rolls!r} is not valid; expected 0 to {most}.",
                    rolls=rolls_left,
                    most=self.rules.rolls - 1,
                )
            )
        return index, d - t.off, rolls_left, d

    def _buffers(self) -> Buffers:
        try:
            buffers: Buffers = self._local.buffers
        except AttributeError:
            keeps, boxes = self._widths
            buffers = (
                np.empty(keeps, dtype=np.int32), np.empty(keeps), np.empty(boxes, dtype=np.int32), np.empty(boxes)
            )  # fmt: skip
            self._local.buffers = buffers
        return buffers

    def _run(self, card: Scorecard, dice: Dice | Sequence[int], rolls_left: int) -> tuple[int, int, Buffers]:
        index, d, k, _d = self._situation(card, dice, rolls_left)
        t = self._t
        y = index % t.ybits
        up = (index // t.ybits) % t.units
        mask = index // (t.ybits * t.units)
        buffers = self._buffers()
        n, code = kernel.advise(mask, up, y, d, k, self._prm, self._arrays, self._values, *buffers)
        return int(n), int(code), buffers

    def option_values(
        self, card: Scorecard, dice: Dice | Sequence[int], rolls_left: int
    ) -> tuple[list[tuple[int, ...]], list[float], list[int], list[int], list[float]]:
        """The raw options: keeps and their values, then legal box indices, points and values."""
        n, _c, (keep_idx, keep_val, box_pts, box_val) = self._run(card, dice, rolls_left)
        keeps = [self._keeps[i] for i in keep_idx[:n].tolist()]
        pts = box_pts.tolist()
        boxes = [b for b, p in enumerate(pts) if p >= 0]
        return keeps, keep_val[:n].tolist(), boxes, [pts[b] for b in boxes], box_val[boxes].tolist()

    def advise(self, card: Scorecard, dice: Dice | Sequence[int], rolls_left: int) -> list[Option]:
        """Every legal option (each distinct keep, each legal box), best first, with its loss."""
        n, code, (keep_idx_a, keep_val_a, box_pts, box_val) = self._run(card, dice, rolls_left)
        top = float(keep_val_a[code]) if code >= 0 else float(box_val[-code - 1])
        bonus = self._bonus(card, dice)
        names, keeps = self._names, self._keeps
        pts = box_pts.tolist()
        values = box_val.tolist()
        # (-value, scores before keeps, then card order / keep order) as in Solver.best
        ranked = [(-values[b], 0, b) for b in range(len(pts)) if pts[b] >= 0]
        keep_vals = keep_val_a[:n].tolist()
        ranked += [(-v, 1, j) for j, v in enumerate(keep_vals)]
        ranked.sort()
        keep_idx = keep_idx_a[:n].tolist()
        out = []
        for neg, kind, i in ranked:
            if kind:
                out.append(Option("keep", -neg, top + neg, keeps[keep_idx[i]]))
            else:
                out.append(Option("score", -neg, top + neg, (), names[i], pts[i], bonus))
        return out

    def best(self, card: Scorecard, dice: Dice | Sequence[int], rolls_left: int) -> Option:
        """The best option (ties: scoring before keeping, then card order, then smaller keeps)."""
        _n, code, (keep_idx, keep_val, box_pts, box_val) = self._run(card, dice, rolls_left)
        if code >= 0:
            return Option("keep", float(keep_val[code]), dice=self._keeps[int(keep_idx[code])])
        b = -code - 1
        value, points = float(box_val[b]), int(box_pts[b])
        return Option("score", value, box=self._names[b], points=points, bonus=self._bonus(card, dice))

    def situation_arrays(
        self, situations: Sequence[tuple[Scorecard, Dice | Sequence[int], int]]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """``(card, dice, rolls_left)`` situations as the arrays :meth:`option_values_batch` takes
        (state indices, roll indices, rolls left); each is checked as :meth:`advise` would."""
        rows = [self._situation(card, dice, left)[:3] for card, dice, left in situations]
        states, rolls, left = (np.array(col, dtype=np.int64).reshape(-1) for col in zip(*rows, strict=True))
        return states, rolls, left

    def option_values_batch(
        self, states: npt.NDArray[np.int64], rolls: npt.NDArray[np.int64], rolls_left: npt.NDArray[np.int64]
    ) -> BatchValues:
        """Every option's value for many situations at once, in parallel (numba threads)."""
        t = self._t
        n, width = len(states), t.subsets.shape[1]
        out = BatchValues(
            nkeep=np.zeros(n, dtype=np.int64),
            best=np.zeros(n, dtype=np.int64),
            keep_index=np.full((n, width), -1, dtype=np.int32),
            keep_value=np.full((n, width), np.nan),
            box_points=np.empty((n, t.nboxes), dtype=np.int32),
            box_value=np.empty((n, t.nboxes)),
        )
        with kernel.PARALLEL:
            kernel.advise_batch(
                states, rolls, rolls_left, self._prm, self._arrays, self._values,
                out.nkeep, out.best, out.keep_index, out.keep_value, out.box_points, out.box_value,
            )  # fmt: skip
        return out

    def _bonus(self, card: Scorecard, dice: Dice | Sequence[int]) -> int:
        return self.rules.yahtzee_bonus if card.is_extra_yahtzee(dice) else 0

    def keep_dice(self, index: int) -> tuple[int, ...]:
        """The dice values of keep (multiset) ``index``."""
        return self._keeps[index]

    @property
    def size_bytes(self) -> int:
        """Bytes of the reachable part of the state-value table (8 per state)."""
        return self.table.states * 8


def solve(rules: RuleSet, cache: bool = True) -> Solver:
    """A :class:`Solver` for ``rules``: the table loaded from the cache, or built (and cached).

    >>> from fivedice import rules
    >>> round(solve(rules.get("yacht"), cache=False).expected_score, 4)
    169.7739
    """
    return Solver(load_or_build(rules, cache=cache))
