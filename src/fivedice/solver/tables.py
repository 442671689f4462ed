"""Per-rule-set lookup tables for the solver kernels, built by calling the foundation's rules.

Every score, Joker value and legality fact comes from :class:`~fivedice.rules.Box` and
:class:`~fivedice.scorecard.Scorecard` (called once per situation class); the kernels only
read the numpy arrays built here.

Dice multisets of 0 to ``n`` dice share one index space ("keeps"): sorted by size, then in
:func:`fivedice.dice.multisets` order, so the ``n``-dice multisets (the rolls) come last,
from index ``off``.

>>> from fivedice import rules
>>> t = build_tables(rules.get("yahtzee"))
>>> t.nkeep, t.nroll, t.off, t.units, t.ybits
(462, 252, 210, 64, 2)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fivedice.dice import FACES, multisets
from fivedice.errors import RuleSetError
from fivedice.rules import Joker, RuleSet
from fivedice.rules.ruleset import SOLVER_MAX_BOXES
from fivedice.scorecard import Scorecard

__all__ = ["Tables", "build_tables"]

IntArray = npt.NDArray[np.int32]
FloatArray = npt.NDArray[np.float64]

MAX_BOXES = SOLVER_MAX_BOXES
"""The solver's state space has 2**boxes masks; beyond this it would not fit in memory."""


@dataclass(frozen=True, slots=True, eq=False)
class Tables:
    """Numpy tables describing one single-card rule set for the numba kernels."""

    rules: RuleSet
    n: int
    """Dice per roll."""
    nboxes: int
    nkeep: int
    """Multisets of 0..n dice (the keeps; the last ``nroll`` are the rolls)."""
    nroll: int
    off: int
    """Index of the first ``n``-dice multiset."""
    counts: IntArray
    """``(nkeep, 6)`` face counts of each multiset."""
    add: IntArray
    """``(nkeep, 6)`` index of the multiset with one more die of face f+1 (-1 when full)."""
    sub: IntArray
    """``(nkeep, 6)`` indices of the multisets with one die fewer, packed first, -1 padded."""
    subsets: IntArray
    """``(nroll, m)`` every proper sub-multiset (keep) of each roll, -1 padded."""
    prob: FloatArray
    """``(nroll,)`` chance of each roll of all ``n`` dice."""
    five: IntArray
    """``(nroll,)`` the face index (0-5) of ``n`` alike, else -1."""
    points: IntArray
    """``(rolltypes, nroll, nboxes)`` natural points; row 0 is roll 1, row 1 (if any) later rolls."""
    allowed: IntArray
    """``(2**nboxes,)`` bitmask of the boxes the fill order allows, per filled mask."""
    joker: IntArray
    """``(2**nboxes, 6, rolltypes, nboxes)`` points of ``n`` alike under the Joker rule (-1: not
    allowed), for masks with the Yahtzee box filled; a dummy ``(1, 1, 1, 1)`` without Joker."""
    has_joker: bool
    upper_mask: int
    is_upper: IntArray
    cap: int
    """Upper totals are capped at the highest bonus threshold."""
    units: int
    """Upper-total values in the state (``cap + 1``)."""
    ybits: int
    """2 when the state tracks whether the Yahtzee box holds points (for the extra bonus), else 1."""
    ybox: int
    ybonus: int
    bonus_of: IntArray
    """``(units,)`` upper bonus earned by each (capped) upper total."""
    pvals: IntArray
    """``(nboxes, m)`` every distinct points value each box can take, -1 padded."""
    maxrem: IntArray
    """``(2**nboxes,)`` the most points the open upper boxes can still add, per filled mask."""

    def frozen_up(self, mask: int, up: int) -> int:
        """The state's upper value: ``up`` capped, or ``cap`` once no bonus can change any more."""
        up = min(up, self.cap)
        if self.bonus_of[min(self.cap, up + int(self.maxrem[mask]))] == self.bonus_of[up]:
            return self.cap
        return up

    @property
    def rolltypes(self) -> int:
        """1, or 2 when scores depend on the roll number (first roll or later)."""
        return int(self.points.shape[0])

    @property
    def nstates(self) -> int:
        """Size of the dense state index: ``2**nboxes * units * ybits``."""
        return (1 << self.nboxes) * self.units * self.ybits

    def params(self) -> npt.NDArray[np.int64]:
        """The scalar parameters as one array, in the order the kernels read them."""
        return np.array(
            [
                self.n, self.nboxes, self.nkeep, self.nroll, self.off, self.rules.rolls, self.units,
                self.ybits, self.cap, self.upper_mask, self.ybox, self.ybonus, int(self.has_joker),
                self.rolltypes,
            ],
            dtype=np.int64,
        )  # fmt: skip

    def arrays(self) -> tuple[IntArray, ...]:
        """The integer tables in the order the kernels unpack them."""
        fives = np.full(FACES, -1, dtype=np.int32)
        for d, f in enumerate(self.five):
            if f >= 0:
                fives[f] = d
        return (
            self.add, self.sub, self.subsets, self.five, np.ascontiguousarray(self.points.transpose(0, 2, 1)),
            self.allowed, self.joker, self.is_upper, self.bonus_of, self.pvals, fives, self.maxrem,
        )  # fmt: skip

    def roll_type(self, roll: int) -> int:
        """The ``points`` row for dice made on roll number ``roll``."""
        return 0 if roll == 1 or self.rolltypes == 1 else 1

    def keep_index(self, values: tuple[int, ...] | list[int]) -> int:
        """The index of a multiset of dice values."""
        idx = 0
        for v in values:
            idx = int(self.add[idx, v - 1])
        return idx


def check_supported(rules: RuleSet) -> None:
    """Raise unless the solver handles ``rules`` (one score card, at most 20 boxes; see
    :meth:`RuleSet.solver_refusal`)."""
    reason = rules.solver_refusal()
    if reason is not None:
        raise RuleSetError(reason)


def _multisets(n: int) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = []
    for size in range(n + 1):
        out.extend(multisets(size))
    return out


def _counts(ms: tuple[int, ...]) -> tuple[int, ...]:
    c = [0] * FACES
    for v in ms:
        c[v - 1] += 1
    return tuple(c)


def build_tables(rules: RuleSet) -> Tables:
    """The solver's tables for ``rules``, from the foundation's scoring and legality logic."""
    check_supported(rules)
    n, nb = rules.dice, len(rules.boxes)
    keeps = _multisets(n)
    index = {ms: i for i, ms in enumerate(keeps)}
    nkeep, nroll = len(keeps), math.comb(n + FACES - 1, FACES - 1)
    off = nkeep - nroll
    counts = np.array([_counts(ms) for ms in keeps], dtype=np.int32)
    add = np.full((nkeep, FACES), -1, dtype=np.int32)
    sub = np.full((nkeep, FACES), -1, dtype=np.int32)
    for i, ms in enumerate(keeps):
        if len(ms) < n:
            for f in range(1, FACES + 1):
                add[i, f - 1] = index[tuple(sorted((*ms, f)))]
        smaller = sorted({index[ms[:j] + ms[j + 1 :]] for j in range(len(ms))})
        sub[i, : len(smaller)] = smaller
    rolls = keeps[off:]
    proper = [sorted(_sub_multisets(ms) - {ms}, key=index.__getitem__) for ms in rolls]
    subsets = np.full((nroll, max(len(p) for p in proper)), -1, dtype=np.int32)
    for d, subs in enumerate(proper):
        subsets[d, : len(subs)] = [index[s] for s in subs]
    ways = np.array([math.factorial(n) / math.prod(math.factorial(c) for c in _counts(ms)) for ms in rolls])
    prob = ways / float(FACES**n)
    five = np.array([_counts(ms).index(n) if n in _counts(ms) else -1 for ms in rolls], dtype=np.int32)

    # Natural points for roll 1 and later rolls (one row if the roll number never matters).
    pts = np.array(
        [[[box.score(_counts(ms), roll) for box in rules.boxes] for ms in rolls] for roll in (1, 2)], dtype=np.int32
    )
    if np.array_equal(pts[0], pts[1]):
        pts = pts[:1].copy()
    rolltypes = pts.shape[0]

    # Fill-order legality per filled mask, from Scorecard.allowed_by_order.
    order = rules.cards[0]
    allowed = np.zeros(1 << nb, dtype=np.int32)
    for mask in range(1 << nb):
        card = Scorecard(rules, order, tuple(0 if mask >> b & 1 else None for b in range(nb)))
        allowed[mask] = sum(1 << b for b in card.allowed_by_order())

    ybox = -1 if rules.yahtzee_box is None else rules.box_index(rules.yahtzee_box)
    has_joker = rules.joker is not Joker.NONE and ybox >= 0
    poss: list[set[int]] = [set(pts[:, :, b].ravel().tolist()) for b in range(nb)]
    if has_joker:
        joker = np.full((1 << nb, FACES, rolltypes, nb), -1, dtype=np.int32)
        for mask in range(1 << nb):
            if not mask >> ybox & 1 or mask == (1 << nb) - 1:
                continue
            card = Scorecard(rules, order, tuple(0 if mask >> b & 1 else None for b in range(nb)))
            for f in range(FACES):
                c = tuple(n if g == f else 0 for g in range(FACES))
                for rt in range(rolltypes):
                    for b, p in card.option_indices(c, 1 if rt == 0 else 2).items():
                        joker[mask, f, rt, b] = p
                        poss[b].add(p)
    else:
        joker = np.full((1, 1, 1, 1), -1, dtype=np.int32)

    upper = rules.upper_indices
    cap = max((t.threshold for t in rules.upper_bonus), default=0)
    units = cap + 1
    bonus_of = np.array([rules.upper_bonus_for(u) for u in range(units)], dtype=np.int32)
    ybonus = rules.yahtzee_bonus if ybox >= 0 else 0
    ybits = 2 if ybonus else 1
    width = max(len(values) for values in poss)
    pvals = np.full((nb, width), -1, dtype=np.int32)
    for b, values in enumerate(poss):
        pvals[b, : len(values)] = sorted(values)
    masks = np.arange(1 << nb, dtype=np.int64)
    maxrem = np.zeros(1 << nb, dtype=np.int32)
    for b in upper:
        maxrem += np.where((masks >> b) & 1 == 0, int(pvals[b].max()), 0).astype(np.int32)
    return Tables(
        rules=rules, n=n, nboxes=nb, nkeep=nkeep, nroll=nroll, off=off, counts=counts, add=add, sub=sub,
        subsets=subsets, prob=prob, five=five, points=pts, allowed=allowed, joker=joker, has_joker=has_joker,
        upper_mask=sum(1 << b for b in upper), is_upper=np.array([int(b in upper) for b in range(nb)], dtype=np.int32),
        cap=cap, units=units, ybits=ybits, ybox=ybox, ybonus=ybonus, bonus_of=bonus_of, pvals=pvals,
        maxrem=maxrem,
    )  # fmt: skip


def _sub_multisets(ms: tuple[int, ...]) -> set[tuple[int, ...]]:
    out: set[tuple[int, ...]] = {()}
    for v in ms:
        out |= {tuple(sorted((*s, v))) for s in out}
    return out
