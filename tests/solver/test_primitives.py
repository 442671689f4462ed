"""Every kernel's output, to the bit, as before the solver's primitives were given one home.

The digests were taken from the code before the change (commit dabc0b2): the expectation values, the
advice of both paths (numba and numpy), the threshold tables (reach a target, beat a score), the
single decisions valued by a chance (exact and fast, both paths), the moments and the distribution,
on the brute-force test's tiny rule sets (every Joker, bonus and card-order rule). The shipped tables of
Yacht and Generala are compared with fresh builds to the bit in :mod:`tests.solver.test_paths`.

The fast chances alone are not compared to the bit: their numpy path sums with a BLAS matrix product and
their curves go through libm, whose last bits depend on the CPU's kernels, and where two options are
nearly tied that noise can also swap their order. Their options (which moves, with which points) are
hashed in a fixed order, and their values enter a few random projections (:data:`FAST_SKETCH`), compared
within :data:`SKETCH_TOLERANCE`: the noise moves a projection by about 1e-13, a real change of one value
by 1e-6 moves it by about as much. The digests at 12 significant digits differed on another CPU (CI).
"""

from __future__ import annotations

import hashlib
import itertools
import random
from collections.abc import Iterable

import numpy as np
import pytest

from fivedice.engine.scorecard import Scorecard
from fivedice.rules import RuleSet
from fivedice.solver import Solver, chances, fast, plain, solve
from fivedice.solver.advisor import Option
from fivedice.solver.tables import build_tables

from .test_bruteforce import CASES, reachable_cards

KINDS = ("values", "advise", "chances", "custom", "fast", "moments", "dist")
"""What :func:`digests` hashes."""


def _options(found: Iterable[Option]) -> bytes:
    return repr([(o.action, o.value.hex(), o.loss.hex(), o.dice, o.box, o.points, o.bonus) for o in found]).encode()


def _fast(found: list[Option], values: list[float]) -> bytes:
    """The fast options' moves in a fixed order (bytes to hash); their values, in that order, onto
    ``values``. The list must be ranked best first (up to the machine's noise)."""
    assert all(a.value >= b.value - 1e-12 for a, b in itertools.pairwise(found))
    rows = sorted(found, key=lambda o: (o.action, o.dice, o.box or ""))
    values.extend(o.value for o in rows)
    return repr([(o.action, o.dice, o.box, o.points, o.bonus) for o in rows]).encode()


SKETCHES = 4
"""How many random projections of the fast values :func:`digests` returns."""
SKETCH_TOLERANCE = 1e-9
"""How far a projection may move with the machine's rounding (see the module's docstring)."""


def sketch(values: list[float]) -> list[float]:
    """:data:`SKETCHES` projections of ``values`` on fixed random normal directions."""
    v = np.asarray(values)
    rng = np.random.default_rng(2026)
    return [float(rng.standard_normal(len(v)) @ v) for _ in range(SKETCHES)]


def _arrays(*arrays: object) -> bytes:
    return b"".join(np.ascontiguousarray(a).tobytes() for a in arrays)


def _rows(table: chances.ChanceTable) -> bytes:
    """Each state's row of chances, in state order: where the rows lie in the table (``goff``) is the
    build's layout, not its result (the streamed build stores them fullest layer first)."""
    rows = (_arrays(table.G[o : o + n]) for o, n in zip(table.goff.tolist(), table.glen.tolist(), strict=True))
    return _arrays(table.glen) + b"".join(rows)


def digests(rs: RuleSet) -> tuple[dict[str, str], list[float]]:
    """A SHA-256 (first 10 hex digits) of every kind of output for rule set ``rs``, and the
    :func:`sketch` of the fast chances' values."""
    out: dict[str, bytes] = dict.fromkeys(KINDS, b"")
    values: list[float] = []
    jit = solve(rs, cache=False, jit=True)
    plain = Solver(jit.table, jit=False)
    out["values"] = _arrays(jit.table.values, jit.table.reach)
    start = Scorecard.empty(rs)
    most = int(jit.expected_score) * 2
    need = int(jit.expected_score)
    target = chances.build_chances(jit, most, 1.0, threads=1)
    beat = chances.build_chances(jit, most, 0.5, threads=1)
    out["chances"] = _rows(target) + _rows(beat)
    rival = chances.Distribution(np.arange(need - 10, need + 10, dtype=np.int64), np.full(20, 1 / 20))
    rng = random.Random(rs.name)
    cards = sorted(reachable_cards(rs) - {c for c in reachable_cards(rs) if c.is_full}, key=repr)
    for card in rng.sample(cards, min(40, len(cards))):
        for _ in range(4):
            dice = tuple(rng.randint(1, 6) for _ in range(rs.dice))
            if rng.random() < 0.3:
                dice = (rng.randint(1, 6),) * rs.dice
            left = rng.randrange(rs.rolls)
            for solver in (jit, plain):
                v = solver.values(card, dice, left)
                out["advise"] += _arrays(v.keeps, v.keep_values, v.box_points, v.box_values) + repr(v.best).encode()
            goal = card.total + rng.randrange(need)
            out["custom"] += _options(chances.chance_options(target, card, dice, left, goal))
            out["custom"] += _options(chances.mixture_options(beat, card, dice, left, rival))
            for solver in (jit, plain):
                out["fast"] += _fast(fast.fast_options(solver, card, dice, left, goal), values)
                out["fast"] += _fast(fast.fast_mixture_options(solver, card, dice, left, rival), values)
    found = fast.build_moments(jit, threads=1)
    out["moments"] = _arrays(found.mean, found.sd, found.skew)
    dist = chances.distribution(jit, start, cache=False)
    out["dist"] = _arrays(dist.scores, dist.probs)
    return {k: hashlib.sha256(v).hexdigest()[:10] for k, v in out.items()}, sketch(values)


RULE_SETS = CASES

BEFORE_TEXT = """
plain 39707b890d b230c62440 b73618ca15 49e36bb12b f7e95c43e7 6fd734efce 7c94cc3e38
forced-joker-bonus 3574fcc9dc b7c6feb9e6 b073b37e52 ddd2c790a8 70b95507e1 bc6825ec02 52b13a32eb
free-joker 04da82ed74 4ba646a775 11a79dd1de 9ac8ef2aa9 64fe967f12 186537803b 43969660fd
none-joker-bonus 89d03adfcc adf5975c98 ff201c1af3 599e258de1 31c6de6a83 fecc24b3a3 d40568f27e
top-down 8d65f601dc 64377e1ec5 55abecbbc7 0b69927a51 0550b8be12 d20e80b06e 322cbd0f34
bottom-up f5960fe087 a82c3c987d ccb7199a2f d2e2f5cfb7 7097755444 7f6d5bdc45 852ea80465
upper-first 7fa06f1379 98089983cc a2fdb1e5e1 fa7c029576 b9043f6959 373f4e0a41 f2b69b011a
tiers-two-rolls 455ce5e747 91ee92450e 0904e153d4 d2b229513b b6128eab54 51536cba15 480f90b83b
one-roll 138db2386b 11f6c65e7c 10787094b7 9ac395c242 ba180c83a5 daea6c85ad 1c1fc177ea
four-rolls-two-dice a8cb5b525d 2b55741ab8 a6220d6d3d d813eea34a 7ee5d24f21 23975139ea 03a4a52642
chance-two-dice 568a6d59e5 95b855b530 8e793592d9 7c277a6d56 5f412b99e7 588c1421de e8afe893ac
first-roll-points c091f771d4 4137ae1b0e 92c7209455 c05e5c1244 8fc90ac4d7 749d18af69 e85697d708
four-dice aee7e09ab8 49934ca272 17c28d5c80 4498056d49 7bc45ef956 ea4e633d3c 87d02cce30
second-alike 1256d4932f 1268c8ace4 5e94dccf81 6323c3f0fe 579d245319 b5964c68b5 f0e1671803
second-alike-joker-bonus a7c19867c8 e2dd2c7625 3b175e8388 c7734b5fee ff85d594a5 90a246b0d3 9988617b80
"""
"""Per rule set, the digest of each of :data:`KINDS` before the change (first 10 hex digits; for the fast
chances, of their moves alone)."""
BEFORE = {row.split()[0]: dict(zip(KINDS, row.split()[1:], strict=True)) for row in BEFORE_TEXT.strip().splitlines()}

FAST_SKETCH: dict[str, list[float]] = {
    "plain": [-45.96813896355561, 22.181413256334903, -1.9075172051260367, -54.532014164200255],
    "forced-joker-bonus": [25.887753125612157, 22.243263684927623, 21.52754430407447, -5.004621067889423],
    "free-joker": [-10.55079886294551, 0.7779817605606676, -1.1821247661361889, -24.977244334070864],
    "none-joker-bonus": [-53.693370662742765, 48.44033368798753, 3.1781728493648647, 29.9279477077798],
    "top-down": [-15.98332664922096, -21.805947111901038, 29.237548898375042, 22.86010938781304],
    "bottom-up": [14.179954610984172, -7.567983969994096, -35.859431116076486, -21.578011775991463],
    "upper-first": [-9.77764566582291, -16.73931073420476, 15.419757481698795, 16.93792223274879],
    "tiers-two-rolls": [-1.6731267202996989, 46.546740470889766, -12.291242610488286, 6.163030510930104],
    "one-roll": [12.425742555963067, -21.12137671150843, -32.37034660587305, 9.086256239943404],
    "four-rolls-two-dice": [-26.731562205630986, -2.75000082795677, 32.325040000962716, -4.222126080827577],
    "chance-two-dice": [1.9944944703180514, -1.3905543906411983, 19.414286236276457, 13.763668901398553],
    "first-roll-points": [-3.1178777154467308, -17.402306672453385, -1.5653285593899104, 3.0311423068532632],
    "four-dice": [-82.2803003037553, 57.93990543597738, -0.31502092361199346, 29.60217000845275],
    "second-alike": [4.5127834794685375, -28.84315424044502, 1.7194182358045982, 13.406852771826983],
    "second-alike-joker-bonus": [-6.479739551402799, -22.96394845668592, 25.286526394570355, 32.40590135645055],
}
"""Per rule set, the :func:`sketch` of the fast chances' values. The fast column of :data:`BEFORE_TEXT`
and these were taken at commit 7e5ab50 on a machine where that code's digests of the fast values (to 12
significant digits) still equalled those of dabc0b2."""


@pytest.mark.parametrize("name", list(RULE_SETS))
def test_every_kernel_gives_the_same_bits_as_before(name: str) -> None:
    found, projections = digests(RULE_SETS[name])
    assert found == BEFORE[name]
    assert np.allclose(projections, FAST_SKETCH[name], rtol=0.0, atol=SKETCH_TOLERANCE), projections


def test_the_sketch_sees_a_small_change() -> None:
    """A change of 1e-6 in one value of thousands moves a projection by far more than the tolerance."""
    values = [random.Random(i).random() for i in range(5000)]
    moved = list(values)
    moved[1234] += 1e-6
    assert max(abs(a - b) for a, b in zip(sketch(values), sketch(moved), strict=True)) > 50 * SKETCH_TOLERANCE


def test_a_layout_is_not_taken_for_another_rule_set_under_a_reused_id() -> None:
    """The numpy path's per-rule-set layout was found by ``id`` alone: once a rule set's tables were freed,
    another's could get the same ``id`` and its layout (an IndexError, or wrong values)."""
    a, b = build_tables(CASES["four-dice"]), build_tables(CASES["second-alike-joker-bonus"])
    plain._layout(a)
    plain._LAYOUTS[id(b.ints)] = plain._LAYOUTS[id(a.ints)]  # as if b's tables had a's freed id
    found, fresh = plain._layout(b), plain._Layout(b)
    assert found.levels == fresh.levels
    assert found.sub.tolist() == fresh.sub.tolist()


if __name__ == "__main__":  # prints BEFORE_TEXT and FAST_SKETCH for the code checked out
    found = {name: digests(rs) for name, rs in RULE_SETS.items()}
    for name, (d, _p) in found.items():
        print(name, *d.values())
    for name, (_d, p) in found.items():
        print(f"    {name!r}: {p!r},")
