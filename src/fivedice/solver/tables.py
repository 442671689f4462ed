"""Per-rule-set lookup tables for the solver kernels, built by calling the foundation's rules.

Every score, Joker value and legality fact comes from :class:`~fivedice.rules.Box` and
:class:`~fivedice.engine.scorecard.Scorecard` (called once per situation class); the kernels only
read the numpy arrays built here.

Dice multisets of 0 to ``n`` dice share one index space ("keeps"): sorted by size, then in
:func:`fivedice.dice.multisets` order, so the ``n``-dice multisets (the rolls) come last,
from index ``off``.

The kernels (numba in :mod:`~fivedice.solver.kernel`, numpy in :mod:`~fivedice.solver.plain`)
read every table from one packed ``int32`` array (:attr:`Tables.ints`): a header of
parameters (positions ``P_*``) and offsets (positions ``O_*``), then the tables. One array
keeps a compiled call cheap (one argument instead of a dozen) and is what the cache stores.

>>> from fivedice import rules
>>> t = build_tables(rules.get("yahtzee"))
>>> t.nkeep, t.nroll, t.off, t.units, t.ybits
(462, 252, 210, 64, 2)
>>> from_packed(t.rules, t.ints).joker.shape == t.joker.shape
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fivedice.dice import FACES, multisets
from fivedice.engine.scorecard import Scorecard
from fivedice.errors import RuleSetError
from fivedice.rules import Joker, RuleSet
from fivedice.rules.ruleset import SOLVER_MAX_BOXES

__all__ = ["Tables", "build_tables", "from_packed"]

IntArray = npt.NDArray[np.int32]
FloatArray = npt.NDArray[np.float64]

MAX_BOXES = SOLVER_MAX_BOXES
"""The solver's state space has 2**boxes masks; beyond this it would not fit in memory."""

# Header of the packed array: parameters, then the offsets of the tables.
(P_N, P_NB, P_NKEEP, P_NROLL, P_OFF, P_ROLLS, P_UNITS, P_YBITS, P_CAP, P_YBOX, P_YBONUS, P_JOKER,
 P_RTYPES, P_PW, P_SW, P_DEN, P_UPMASK) = range(17)  # fmt: skip
(O_COUNTS, O_ADD, O_SUB, O_SUBSETS, O_WAYS, O_FIVE, O_FIVES, O_POINTS, O_PIDX, O_ALLOWED, O_JOKER,
 O_ISUP, O_BONUS, O_PVALS, O_NPV, O_MAXREM) = range(17, 33)  # fmt: skip
P_PMAX = 33
"""Position of the largest points value any box can take, plus one."""
P_JOKY = 34
"""Position of the flag saying the Joker table also depends on whether the Yahtzee box holds points
(a box of all dice alike once more, Generala's Double Generala); 0 in tables made before it."""
HEADER = 40
PACKED = ("counts", "add", "sub", "subsets", "ways", "five", "fives", "points", "pidx", "allowed", "joker",
          "is_upper", "bonus_of", "pvals", "npv", "maxrem")  # fmt: skip
"""The packed tables, in the order of the ``O_*`` positions."""


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
    """``(2**nboxes * joky, 6, rolltypes, nboxes)`` points of ``n`` alike under the Joker rule (-1: not
    allowed), for masks with the Yahtzee box filled (row :meth:`joker_row`); a dummy ``(1, 1, 1, 1)``
    without Joker."""
    has_joker: bool
    joky: int
    """2 when the Joker table's rows also depend on whether the Yahtzee box holds points, else 1."""
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
    ways: IntArray
    """``(nroll,)`` ways to roll each multiset (``prob * 6**n``)."""
    fives: IntArray
    """``(6,)`` the roll index of ``n`` alike of each face."""
    pidx: IntArray
    """``(rolltypes, nboxes, nroll)`` position of each roll's points in its box's ``pvals`` row."""
    npv: IntArray
    """``(nboxes,)`` how many points values each box can take."""
    ints: IntArray
    """Every integer table packed into one array (header ``P_*``/``O_*``, then :data:`PACKED`)."""

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

    def joker_row(self, mask: int, y: int) -> int:
        """The :attr:`joker` row of filled mask ``mask`` with ``y`` (whether the Yahtzee box holds points)."""
        return mask * self.joky + (y if self.joky == 2 else 0)

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
    ways = np.array([math.factorial(n) // math.prod(math.factorial(c) for c in _counts(ms)) for ms in rolls])
    five = np.array([_counts(ms).index(n) if n in _counts(ms) else -1 for ms in rolls], dtype=np.int32)

    # Natural points for roll 1 and later rolls (one row if the roll number never matters).
    pts = np.array(
        [[[box.score(_counts(ms), roll) for box in rules.boxes] for ms in rolls] for roll in (1, 2)], dtype=np.int32
    )
    if np.array_equal(pts[0], pts[1]):
        pts = pts[:1].copy()
    rolltypes = pts.shape[0]

    # Fill-order legality per filled mask, and the Joker's boxes and points for five alike, from
    # Scorecard.allowed_by_order and Scorecard.option_indices.
    order = rules.cards[0]
    allowed = np.zeros(1 << nb, dtype=np.int32)
    ybox = -1 if rules.yahtzee_box is None else rules.box_index(rules.yahtzee_box)
    # Five alike once the Yahtzee box is filled: the Joker's boxes and points, and a box of all dice alike
    # once more, which scores only while the Yahtzee box holds points (so its rows depend on that too).
    joky = 2 if rules.second_indices else 1
    has_joker = (rules.joker is not Joker.NONE or joky == 2) and ybox >= 0
    poss: list[set[int]] = [set(pts[:, :, b].ravel().tolist()) for b in range(nb)]
    joker = np.full((joky << nb, FACES, rolltypes, nb) if has_joker else (1, 1, 1, 1), -1, dtype=np.int32)
    alike = [tuple(n if g == f else 0 for g in range(FACES)) for f in range(FACES)]
    for mask in range(1 << nb):
        entries = [0 if mask >> b & 1 else None for b in range(nb)]
        card = Scorecard(rules, order, tuple(entries))
        allowed[mask] = sum(1 << b for b in card.allowed_by_order())
        if has_joker and mask >> ybox & 1 and mask != (1 << nb) - 1:
            for y in range(joky):
                entries[ybox] = y  # 1: holds points (how many does not matter here)
                card = Scorecard(rules, order, tuple(entries))
                for f in range(FACES):
                    for rt in range(rolltypes):
                        for b, p in card.option_indices(alike[f], 1 if rt == 0 else 2).items():
                            joker[mask * joky + y, f, rt, b] = p
                            poss[b].add(p)

    upper = rules.upper_indices
    cap = max((t.threshold for t in rules.upper_bonus), default=0)
    units = cap + 1
    bonus_of = np.array([rules.upper_bonus_for(u) for u in range(units)], dtype=np.int32)
    ybonus = rules.yahtzee_bonus if ybox >= 0 else 0
    ybits = 2 if ybonus or joky == 2 else 1
    width = max(len(values) for values in poss)
    pvals = np.full((nb, width), -1, dtype=np.int32)
    npv = np.array([len(values) for values in poss], dtype=np.int32)
    pidx = np.zeros((rolltypes, nb, nroll), dtype=np.int32)
    for b, values in enumerate(poss):
        row = sorted(values)
        pvals[b, : len(row)] = row
        where = {p: i for i, p in enumerate(row)}
        for rt in range(rolltypes):
            pidx[rt, b] = [where[int(p)] for p in pts[rt, :, b]]
    masks = np.arange(1 << nb, dtype=np.int64)
    maxrem = np.zeros(1 << nb, dtype=np.int32)
    for b in upper:
        maxrem += np.where((masks >> b) & 1 == 0, int(pvals[b].max()), 0).astype(np.int32)
    fives = np.full(FACES, -1, dtype=np.int32)
    for d, f in enumerate(five):
        if f >= 0:
            fives[f] = d
    fields = {
        "counts": counts, "add": add, "sub": sub, "subsets": subsets, "ways": ways.astype(np.int32),
        "five": five, "fives": fives, "points": np.ascontiguousarray(pts.transpose(0, 2, 1)), "pidx": pidx,
        "allowed": allowed, "joker": joker, "is_upper": np.array([int(b in upper) for b in range(nb)], dtype=np.int32),
        "bonus_of": bonus_of, "pvals": pvals, "npv": npv, "maxrem": maxrem,
    }  # fmt: skip
    head = np.zeros(HEADER, dtype=np.int64)
    head[: O_COUNTS] = [
        n, nb, nkeep, nroll, off, rules.rolls, units, ybits, cap, ybox, ybonus, int(has_joker), rolltypes, width,
        subsets.shape[1], FACES**n, sum(1 << b for b in upper),
    ]  # fmt: skip
    head[P_PMAX] = int(pvals.max()) + 1
    head[P_JOKY] = int(joky == 2)
    parts: list[npt.NDArray[np.int64]] = []
    at = HEADER
    for i, name in enumerate(PACKED):
        flat = np.asarray(fields[name], dtype=np.int64).ravel()
        head[O_COUNTS + i] = at
        parts.append(flat)
        at += flat.size
    ints = np.concatenate([head, *parts]).astype(np.int32)
    return from_packed(rules, ints)


def from_packed(rules: RuleSet, ints: IntArray) -> Tables:
    """The :class:`Tables` of ``rules`` from their packed array (views into ``ints``)."""
    h = [int(v) for v in ints[:HEADER]]
    n, nb, nkeep, nroll, rtypes, width = h[P_N], h[P_NB], h[P_NKEEP], h[P_NROLL], h[P_RTYPES], h[P_PW]
    jok = h[P_JOKER] == 1
    joky = 2 if h[P_JOKY] == 1 else 1
    shapes = {
        "counts": (nkeep, FACES), "add": (nkeep, FACES), "sub": (nkeep, FACES), "subsets": (nroll, h[P_SW]),
        "ways": (nroll,), "five": (nroll,), "fives": (FACES,), "points": (rtypes, nb, nroll),
        "pidx": (rtypes, nb, nroll), "allowed": (1 << nb,),
        "joker": (joky << nb, FACES, rtypes, nb) if jok else (1, 1, 1, 1), "is_upper": (nb,),
        "bonus_of": (h[P_UNITS],), "pvals": (nb, width), "npv": (nb,), "maxrem": (1 << nb,),
    }  # fmt: skip
    view: dict[str, IntArray] = {}
    for i, name in enumerate(PACKED):
        start = h[O_COUNTS + i]
        size = math.prod(shapes[name])
        view[name] = ints[start : start + size].reshape(shapes[name])
    ways = view["ways"]
    return Tables(
        rules=rules, n=n, nboxes=nb, nkeep=nkeep, nroll=nroll, off=h[P_OFF], counts=view["counts"], add=view["add"],
        sub=view["sub"], subsets=view["subsets"], prob=ways / float(h[P_DEN]), five=view["five"],
        points=np.ascontiguousarray(view["points"].transpose(0, 2, 1)), allowed=view["allowed"],
        joker=view["joker"], has_joker=jok, joky=joky, upper_mask=h[P_UPMASK], is_upper=view["is_upper"], cap=h[P_CAP],
        units=h[P_UNITS], ybits=h[P_YBITS], ybox=h[P_YBOX], ybonus=h[P_YBONUS], bonus_of=view["bonus_of"],
        pvals=view["pvals"], maxrem=view["maxrem"], ways=ways, fives=view["fives"], pidx=view["pidx"],
        npv=view["npv"], ints=ints,
    )  # fmt: skip


def _sub_multisets(ms: tuple[int, ...]) -> set[tuple[int, ...]]:
    out: set[tuple[int, ...]] = {()}
    for v in ms:
        out |= {tuple(sorted((*s, v))) for s in out}
    return out
