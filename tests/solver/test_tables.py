"""The solver's tables against the foundation's Scorecard logic over random cards."""

from __future__ import annotations

import random

import numpy as np
import pytest

from fivedice import rules
from fivedice.dice import Dice
from fivedice.engine.scorecard import Scorecard
from fivedice.errors import RuleSetError
from fivedice.solver import kernel
from fivedice.solver.tables import build_tables

SPECS = [
    "yahtzee",
    "yahtzee joker=free",
    "yahtzee joker=none",
    "yahtzee order=upper_first",
    "yahtzee order=bottom_up",
    "yatzy forced=yes",
    "kismet",
    "kismet second_kismet=yes",
    "generala",
    "generala double_generala=yes ace_straight=yes",
]


def random_card(rs: rules.RuleSet, rng: random.Random) -> Scorecard:
    card = Scorecard.empty(rs)
    for _ in range(rng.randrange(len(rs.boxes))):
        dice = tuple(rng.randint(1, 6) for _ in range(rs.dice))
        roll = rng.randint(1, rs.rolls)
        card = card.fill(rng.choice(list(card.option_indices(Dice(dice).counts, roll))), dice, roll)
    return card


@pytest.mark.parametrize("spec", SPECS)
def test_options_match_scorecard(spec: str) -> None:
    rs = rules.parse_spec(spec)
    t = build_tables(rs)
    rng = random.Random(spec)
    out = np.empty(t.nboxes, dtype=np.int32)
    rolls = [t.counts[t.off + d] for d in range(t.nroll)]
    for _ in range(25):
        card = random_card(rs, rng)
        mask = sum(1 << b for b, e in enumerate(card.entries) if e is not None)
        y = 1 if t.ybits == 2 and card.holds_alike() else 0
        # every five-alike roll and a sample of the others, on each roll number
        for d in [int(i) for i in np.flatnonzero(t.five >= 0)] + rng.sample(range(t.nroll), 12):
            counts = tuple(int(c) for c in rolls[d])
            for roll in (1, rs.rolls):
                kernel.score_options(t.ints, mask, y, d, t.roll_type(roll), out)
                expected = card.option_indices(counts, roll)
                got = {b: int(p) for b, p in enumerate(out) if p >= 0}
                assert got == expected, (card.entries, counts, roll)


def test_multisets_and_probabilities() -> None:
    t = build_tables(rules.get("yahtzee"))
    assert t.prob.sum() == pytest.approx(1.0, abs=1e-15)
    assert t.prob[t.keep_index((6, 6, 6, 6, 6)) - t.off] == pytest.approx(1 / 6**5)
    assert t.keep_index((3, 1)) == t.keep_index((1, 3))
    # each roll's proper keeps: 1 3 3 5 6 has 2*3*2*2*... distinct sub-multisets, less the whole roll
    d = t.keep_index((1, 3, 3, 5, 6)) - t.off
    assert int((t.subsets[d] >= 0).sum()) == 2 * 3 * 2 * 2 - 1


def test_state_pruning() -> None:
    t = build_tables(rules.get("yahtzee"))
    reach = kernel.reachable(t.ints)
    assert int(reach.sum()) < t.nstates // 2
    # an upper total of 5 with only the Aces filled is reachable; 7 is not
    aces = 1 << rules.get("yahtzee").box_index("aces")
    assert reach[(aces * t.units + t.frozen_up(aces, 5)) * t.ybits]
    assert not reach[(aces * t.units + 7) * t.ybits]


def test_multi_card_rule_sets_are_refused() -> None:
    with pytest.raises(RuleSetError, match="single-card"):
        build_tables(rules.get("yahtzee", cards="jetsi"))
