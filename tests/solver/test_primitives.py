"""Every kernel's output, to the bit, as before the solver's primitives were given one home.

The digests were taken from the code before the change (commit dabc0b2): the expectation values, the
advice of both paths (numba and numpy), the threshold tables (reach a target, beat a score), the
single decisions valued by a chance (exact and fast, both paths), the moments and the distribution,
on the brute-force test's tiny rule sets (every Joker, bonus and card-order rule). The shipped tables of
Yacht and Generala are compared with fresh builds to the bit in :mod:`tests.solver.test_paths`.
"""

from __future__ import annotations

import hashlib
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


def _rounded(found: Iterable[Option]) -> bytes:
    """As :func:`_options` with values to 12 significant digits: the fast chances' numpy path sums with a
    matrix product, whose last bits depend on the machine's BLAS kernel (the digests differed between CPUs)."""
    rows = [(o.action, f"{o.value:.12g}", f"{o.loss:.12g}", o.dice, o.box, o.points, o.bonus) for o in found]
    return repr(rows).encode()


def _arrays(*arrays: object) -> bytes:
    return b"".join(np.ascontiguousarray(a).tobytes() for a in arrays)


def _rows(table: chances.ChanceTable) -> bytes:
    """Each state's row of chances, in state order: where the rows lie in the table (``goff``) is the
    build's layout, not its result (the streamed build stores them fullest layer first)."""
    rows = (_arrays(table.G[o : o + n]) for o, n in zip(table.goff.tolist(), table.glen.tolist(), strict=True))
    return _arrays(table.glen) + b"".join(rows)


def digests(rs: RuleSet) -> dict[str, str]:
    """A SHA-256 (first 10 hex digits) of every kind of output for rule set ``rs``."""
    out: dict[str, bytes] = dict.fromkeys(KINDS, b"")
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
                out["fast"] += _rounded(fast.fast_options(solver, card, dice, left, goal))
                out["fast"] += _rounded(fast.fast_mixture_options(solver, card, dice, left, rival))
    found = fast.build_moments(jit, threads=1)
    out["moments"] = _arrays(found.mean, found.sd, found.skew)
    dist = chances.distribution(jit, start, cache=False)
    out["dist"] = _arrays(dist.scores, dist.probs)
    return {k: hashlib.sha256(v).hexdigest()[:10] for k, v in out.items()}


RULE_SETS = CASES

BEFORE_TEXT = """
plain 39707b890d b230c62440 b73618ca15 49e36bb12b 7f2112f494 6fd734efce 7c94cc3e38
forced-joker-bonus 3574fcc9dc b7c6feb9e6 b073b37e52 ddd2c790a8 c70d34a394 bc6825ec02 52b13a32eb
free-joker 04da82ed74 4ba646a775 11a79dd1de 9ac8ef2aa9 e2267c0134 186537803b 43969660fd
none-joker-bonus 89d03adfcc adf5975c98 ff201c1af3 599e258de1 e75721ea68 fecc24b3a3 d40568f27e
top-down 8d65f601dc 64377e1ec5 55abecbbc7 0b69927a51 e23dfcd29a d20e80b06e 322cbd0f34
bottom-up f5960fe087 a82c3c987d ccb7199a2f d2e2f5cfb7 af38001dc4 7f6d5bdc45 852ea80465
upper-first 7fa06f1379 98089983cc a2fdb1e5e1 fa7c029576 fad31462ec 373f4e0a41 f2b69b011a
tiers-two-rolls 455ce5e747 91ee92450e 0904e153d4 d2b229513b d11ec2ff5c 51536cba15 480f90b83b
one-roll 138db2386b 11f6c65e7c 10787094b7 9ac395c242 2bbfac26b3 daea6c85ad 1c1fc177ea
four-rolls-two-dice a8cb5b525d 2b55741ab8 a6220d6d3d d813eea34a f9b6ccb1d7 23975139ea 03a4a52642
chance-two-dice 568a6d59e5 95b855b530 8e793592d9 7c277a6d56 043c9254b2 588c1421de e8afe893ac
first-roll-points c091f771d4 4137ae1b0e 92c7209455 c05e5c1244 8520c3e24c 749d18af69 e85697d708
four-dice aee7e09ab8 49934ca272 17c28d5c80 4498056d49 87ef829360 ea4e633d3c 87d02cce30
second-alike 1256d4932f 1268c8ace4 5e94dccf81 6323c3f0fe 4fedf2472c b5964c68b5 f0e1671803
second-alike-joker-bonus a7c19867c8 e2dd2c7625 3b175e8388 c7734b5fee 3c0e0f8a97 90a246b0d3 9988617b80
"""
"""Per rule set, the digest of each of :data:`KINDS` before the change (first 10 hex digits)."""
BEFORE = {row.split()[0]: dict(zip(KINDS, row.split()[1:], strict=True)) for row in BEFORE_TEXT.strip().splitlines()}


@pytest.mark.parametrize("name", list(RULE_SETS))
def test_every_kernel_gives_the_same_bits_as_before(name: str) -> None:
    assert digests(RULE_SETS[name]) == BEFORE[name]


def test_a_layout_is_not_taken_for_another_rule_set_under_a_reused_id() -> None:
    """The numpy path's per-rule-set layout was found by ``id`` alone: once a rule set's tables were freed,
    another's could get the same ``id`` and its layout (an IndexError, or wrong values)."""
    a, b = build_tables(CASES["four-dice"]), build_tables(CASES["second-alike-joker-bonus"])
    plain._layout(a)
    plain._LAYOUTS[id(b.ints)] = plain._LAYOUTS[id(a.ints)]  # as if b's tables had a's freed id
    found, fresh = plain._layout(b), plain._Layout(b)
    assert found.levels == fresh.levels
    assert found.sub.tolist() == fresh.sub.tolist()


if __name__ == "__main__":  # prints BEFORE_TEXT for the code checked out
    for name, rs in RULE_SETS.items():
        print(name, *digests(rs).values())
