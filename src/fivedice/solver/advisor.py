"""The :class:`Solver`: state values and the advisor (every option with its value and loss)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from fivedice.dice import FACES, Dice, count_error
from fivedice.dice import multisets as dice_multisets
from fivedice.engine.scorecard import Scorecard
from fivedice.errors import DiceError, IllegalActionError, RuleSetError
from fivedice.i18n import _, box_name, ngettext
from fivedice.rules import RuleSet
from fivedice.solver import plain
from fivedice.solver.cache import Progress, Readiness, Table, load_or_build
from fivedice.solver.cache import readiness as _readiness
from fivedice.solver.tables import Tables

__all__ = ["BatchValues", "Option", "OptionArrays", "Solver", "readiness", "solve"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int32]
_INTS = {int}


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

    @property
    def key(self) -> tuple[str, object]:
        """What the option does, to match it across rankings: ``("keep", dice)`` or ``("score", box)``."""
        return (self.action, self.dice if self.action == "keep" else self.box)

    def to_dict(self) -> dict[str, Any]:
        """The option as JSON-friendly data."""
        if self.action == "keep":
            return {"action": "keep", "dice": list(self.dice), "value": self.value, "loss": self.loss}
        out: dict[str, Any] = {"action": "score", "box": self.box, "points": self.points}
        if self.bonus:
            out["bonus"] = self.bonus
        out.update(value=self.value, loss=self.loss)
        return out


class OptionArrays(NamedTuple):
    """Every option of one situation as arrays (from :meth:`Solver.values`); :meth:`options`
    makes the ranked :class:`Option` list from them.

    ``keeps`` are multiset indices (:meth:`Solver.keep_dice` names them) with their values in
    ``keep_values``; ``box_points[b]`` is what box ``b`` scores (-1 where not allowed) and
    ``box_values[b]`` its value; ``best`` is ``-(box + 1)`` or the position of the best keep;
    ``bonus`` is the extra-Yahtzee bonus a score earns.
    """

    solver: Solver
    keeps: IntArray
    keep_values: FloatArray
    box_points: IntArray
    box_values: FloatArray
    best: int
    bonus: int

    @property
    def value(self) -> float:
        """The best option's value (expected points still to come, points on the card excluded)."""
        return float(self.keep_values[self.best] if self.best >= 0 else self.box_values[-self.best - 1])

    def best_option(self) -> Option:
        """The best option (ties: scoring before keeping, then card order, then smaller keeps)."""
        if self.best >= 0:
            return Option("keep", self.value, dice=self.solver.keep_dice(int(self.keeps[self.best])))
        b = -self.best - 1
        name = self.solver.rules.boxes[b].name
        return Option("score", self.value, box=name, points=int(self.box_points[b]), bonus=self.bonus)

    def options(self) -> list[Option]:
        """Every legal option (each distinct keep, each legal box), best first, with its loss."""
        top = self.value
        names, keeps = self.solver._names, self.solver._keeps
        pts = self.box_points.tolist()
        values = self.box_values.tolist()
        # (-value, scores before keeps, then card order / keep order) as in Solver.best
        ranked = [(-values[b], 0, b) for b in range(len(pts)) if pts[b] >= 0]
        ranked += [(-v, 1, j) for j, v in enumerate(self.keep_values.tolist())]
        ranked.sort()
        keep_idx = self.keeps.tolist()
        out = []
        for neg, kind, i in ranked:
            if kind:
                out.append(Option("keep", -neg, top + neg, keeps[keep_idx[i]]))
            else:
                out.append(Option("score", -neg, top + neg, (), names[i], pts[i], self.bonus))
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
    """Exact optimal values for one single-card rule set (objective: expected final score).

    ``jit`` chooses how single situations are answered: with the compiled kernel (numba; a
    few microseconds each, after numba's import of about 1 s and 140 MB in the process) or,
    with ``jit=False``, with numpy (about 0.2 ms each, nothing to import or compile). The
    answers are the same to the last bit. ``jit=None`` (the default) uses numba when it is
    installed (the ``fast`` extra). Batches and simulations always use the kernel.
    """

    def __init__(self, table: Table, jit: bool | None = None) -> None:
        self.table = table
        t = table.tables
        self.rules: RuleSet = t.rules
        self.jit = _numba_installed() if jit is None else jit
        self._t = t
        self._ints = t.ints
        self._values = table.values
        self._reach = table.reach
        self._upper = [bool(u) for u in t.is_upper]
        self._possible = [frozenset(int(p) for p in row if p >= 0) for row in t.pvals]
        self._keeps = [tuple(f + 1 for f in range(FACES) for _f in range(row[f])) for row in t.counts.tolist()]
        self._names = self.rules.box_names
        self._roll_of = self._rolls(t)
        self._cap = t.cap
        self._maxrem: list[int] = t.maxrem.tolist()
        self._bonus_of: list[int] = t.bonus_of.tolist()
        self._sw = t.subsets.shape[1]
        self._width = self._sw + t.nboxes
        self._order = self.rules.cards[0]
        self._memo: dict[tuple[int | None, ...], int] = {}
        """State index of the cards seen lately (a turn asks about the same card up to three times)."""
        self._kernel: object = None
        self._advise: Any = None
        self._five: list[int] = t.five.tolist()
        self._ybonus = int(t.ybonus) if t.ybits == 2 else 0
        self.expected_score: float = self.state_value(Scorecard.empty(self.rules))
        """The optimal expected final score from an empty card."""

    @staticmethod
    def _rolls(t: Tables) -> dict[tuple[int, ...], int]:
        """Each roll (its dice sorted) -> its roll index."""
        return {tuple(ms): i for i, ms in enumerate(dice_multisets(t.n))}

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
        possible, upper = self._possible, self._upper
        for b, e in enumerate(card.entries):
            if e is not None:
                if e not in possible[b]:
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
                if upper[b]:
                    up += e
        y = 1 if t.ybits == 2 and card.entries[t.ybox] else 0
        if up > self._cap:
            up = self._cap
        top = up + self._maxrem[mask]
        if self._bonus_of[top if top < self._cap else self._cap] == self._bonus_of[up]:
            up = self._cap  # no bonus can change any more: the state forgets the upper total
        index = (mask * t.units + up) * t.ybits + y
        if not self._reach[index]:
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
    def _situation(self, card: Scorecard, dice: Dice | Sequence[int], rolls_left: int) -> tuple[int, int, int]:
        """``(state index, roll index, rolls left)``, each checked."""
        index: int | None = None
        if card.rules is self.rules and card.order is self._order:
            index = self._memo.get(card.entries)
        if index is None:
            index = self.state_index(card)
            if len(self._memo) >= 65536:
                self._memo.clear()
            if card.rules is self.rules:
                self._memo[card.entries] = index
        if card.is_full:
            raise IllegalActionError(_("The score card is full; there is nothing left to decide."))
        values = dice if type(dice) is tuple else dice.values if isinstance(dice, Dice) else tuple(dice)
        d = self._roll_of.get(values)
        if d is None or {*map(type, values)} != _INTS:
            d = None
            if all(type(v) is int for v in values):
                d = self._roll_of.get(tuple(sorted(values)))
            if d is None:
                d = self._roll_index(values)
        if type(rolls_left) is not int or not 0 <= rolls_left < self.rules.rolls:
            raise IllegalActionError(
                _(
                    "Rolls left {rolls!r} is not valid; expected 0 to {most}.",
                    rolls=rolls_left,
                    most=self.rules.rolls - 1,
                )
            )
        return index, d, rolls_left

    def _roll_index(self, values: Sequence[object]) -> int:
        t = self._t
        if len(values) != t.n:
            shown = " ".join(map(str, values))
            raise DiceError(count_error(shown, len(values), t.n))
        d = 0
        for v in values:
            if isinstance(v, bool) or not isinstance(v, int | np.integer) or not 1 <= v <= FACES:
                raise DiceError(_("Die value {value!r} is not a whole number from 1 to {faces}.", value=v, faces=FACES))
            d = int(t.add[d, int(v) - 1])
        return d - t.off

    @property
    def kernel(self) -> Any:
        """The numba kernel module (imported on first use)."""
        if self._kernel is None:
            from fivedice.solver import kernel

            self._kernel = kernel
        return self._kernel

    def values(self, card: Scorecard, dice: Dice | Sequence[int], rolls_left: int) -> OptionArrays:
        """Every option of a situation as arrays (the fast path; :meth:`advise` ranks them)."""
        index, d, k = self._situation(card, dice, rolls_left)
        bonus = self._ybonus if self._five[d] >= 0 and index % 2 == 1 else 0  # y = 1 is the last bit when tracked
        if self.jit:
            fout = np.empty(self._width)
            iout = np.empty(self._width, dtype=np.int32)
            if self._advise is None:
                self._advise = self.kernel.advise
            n, code = self._advise(self._ints, self._values, index, d, k, fout, iout)
            sw = self._sw
            return OptionArrays(self, iout[:n], fout[:n], iout[sw:], fout[sw:], code, bonus)
        keeps, keep_values, box_points, box_values, code = plain.advise(self._t, self._values, index, d, k)
        return OptionArrays(self, keeps, keep_values, box_points, box_values, code, bonus)

    def option_values(
        self, card: Scorecard, dice: Dice | Sequence[int], rolls_left: int
    ) -> tuple[list[tuple[int, ...]], list[float], list[int], list[int], list[float]]:
        """The raw options: keeps and their values, then legal box indices, points and values."""
        a = self.values(card, dice, rolls_left)
        keeps = [self._keeps[i] for i in a.keeps.tolist()]
        pts = a.box_points.tolist()
        boxes = [b for b, p in enumerate(pts) if p >= 0]
        return keeps, a.keep_values.tolist(), boxes, [pts[b] for b in boxes], a.box_values[boxes].tolist()

    def advise(self, card: Scorecard, dice: Dice | Sequence[int], rolls_left: int) -> list[Option]:
        """Every legal option (each distinct keep, each legal box), best first, with its loss."""
        return self.values(card, dice, rolls_left).options()

    def best(self, card: Scorecard, dice: Dice | Sequence[int], rolls_left: int) -> Option:
        """The best option (ties: scoring before keeping, then card order, then smaller keeps)."""
        return self.values(card, dice, rolls_left).best_option()

    def situation_arrays(
        self, situations: Sequence[tuple[Scorecard, Dice | Sequence[int], int]]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """``(card, dice, rolls_left)`` situations as the arrays :meth:`option_values_batch` takes
        (state indices, roll indices, rolls left); each is checked as :meth:`advise` would."""
        rows = [self._situation(card, dice, left) for card, dice, left in situations]
        states, rolls, left = (np.array(col, dtype=np.int64).reshape(-1) for col in zip(*rows, strict=True))
        return states, rolls, left

    def option_values_batch(
        self, states: npt.NDArray[np.int64], rolls: npt.NDArray[np.int64], rolls_left: npt.NDArray[np.int64]
    ) -> BatchValues:
        """Every option's value for many situations at once, on every CPU (numba, without the GIL)."""
        from concurrent.futures import ThreadPoolExecutor

        from fivedice.solver.cache import default_threads

        t = self._t
        n, sw = len(states), t.subsets.shape[1]
        fout = np.full((n, self._width), np.nan)
        iout = np.full((n, self._width), -1, dtype=np.int32)
        nkeep = np.zeros(n, dtype=np.int64)
        best = np.zeros(n, dtype=np.int64)
        workers = default_threads()
        step = max(1, -(-n // (4 * workers)))
        with ThreadPoolExecutor(workers) as pool:
            jobs = [
                pool.submit(
                    self.kernel.advise_many,
                    self._ints,
                    self._values,
                    states,
                    rolls,
                    rolls_left,
                    a,
                    min(n, a + step),
                    nkeep,
                    best,
                    fout,
                    iout,
                )
                for a in range(0, n, step)
            ]
            for job in jobs:
                job.result()
        keep_value = fout[:, :sw].copy()
        keep_value[np.arange(sw)[None, :] >= nkeep[:, None]] = np.nan
        return BatchValues(
            nkeep=nkeep,
            best=best,
            keep_index=iout[:, :sw].copy(),
            keep_value=keep_value,
            box_points=iout[:, sw:].copy(),
            box_value=fout[:, sw:].copy(),
        )

    def keep_dice(self, index: int) -> tuple[int, ...]:
        """The dice values of keep (multiset) ``index``."""
        return self._keeps[index]

    @property
    def size_bytes(self) -> int:
        """Bytes of the reachable part of the state-value table (8 per state)."""
        return self.table.states * 8


def _numba_installed() -> bool:
    """Whether numba can be imported (without importing it)."""
    import importlib.util

    return importlib.util.find_spec("numba") is not None


def solve(rules: RuleSet, cache: bool = True, progress: Progress | None = None, jit: bool | None = None) -> Solver:
    """A :class:`Solver` for ``rules``: its table from the user cache or the tables shipped with
    fivedice, else built now (and cached). ``progress(share_done)`` is called while building;
    ``jit`` as in :class:`Solver`. :func:`readiness` tells beforehand whether a build is needed.

    >>> from fivedice import rules
    >>> round(solve(rules.get("yacht"), cache=False).expected_score, 4)
    169.7739
    """
    return Solver(load_or_build(rules, cache=cache, progress=progress), jit=jit)


def readiness(rules: RuleSet) -> Readiness:
    """Whether :func:`solve` will answer at once for ``rules`` (``ready``: a table is cached or
    shipped), and roughly how many seconds it will take (``seconds``; a build when not ready).

    >>> from fivedice import rules
    >>> readiness(rules.get("yahtzee")).ready   # shipped with the package
    True
    """
    return _readiness(rules)
