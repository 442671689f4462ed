"""The solver against a brute-force evaluation through the foundation's Scorecard on tiny rule sets."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest

from fivedice import rules
from fivedice.dice import FACES, counts_of
from fivedice.engine.scorecard import Scorecard
from fivedice.rules import RuleSet
from fivedice.solver import solve


@cache
def outcomes(k: int) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Every sorted roll of ``k`` dice with its chance (made once per ``k``: the brute force asks for it
    at every decision)."""
    out = []
    for ms in itertools.combinations_with_replacement(range(1, FACES + 1), k):
        ways = math.factorial(k) / math.prod(math.factorial(c) for c in counts_of(ms))
        out.append((ms, ways / FACES**k))
    return tuple(out)


@cache
def keeps(dice: tuple[int, ...]) -> frozenset[tuple[int, ...]]:
    """Every sorted proper sub-multiset of ``dice`` (what can be kept before a roll; made once per roll)."""
    return frozenset(tuple(sorted(c)) for r in range(len(dice)) for c in itertools.combinations(dice, r))


def card_key(card: Scorecard) -> tuple[object, ...]:
    """What tells apart two cards of one rule set, as a memo key: a card's own hash hashes its whole frozen
    RuleSet again at every look-up, which took three quarters of a brute force's time."""
    return (card.order, card.entries, card.yahtzee_bonuses)


def brute_utility(rs: RuleSet, utility: Callable[[int], float]) -> Callable[[Scorecard], float]:
    """``value(card)``: the best expected ``utility(final total)`` from the start of a turn on ``card``."""
    values: dict[tuple[object, ...], float] = {}
    bests: dict[tuple[object, ...], float] = {}

    def value(card: Scorecard) -> float:
        key = card_key(card)
        if key not in values:
            if card.is_full:
                values[key] = utility(card.total)
            else:
                values[key] = sum(p * best(card, ms, rs.rolls - 1) for ms, p in outcomes(rs.dice))
        return values[key]

    def best(card: Scorecard, dice: tuple[int, ...], left: int) -> float:
        key = (*card_key(card), dice, left)
        if key in bests:
            return bests[key]
        roll = rs.rolls - left
        options = [value(card.fill(b, dice, roll)) for b in card.option_indices(counts_of(dice), roll)]
        if left:
            for keep in keeps(dice):
                rolled = outcomes(rs.dice - len(keep))
                options.append(sum(p * best(card, tuple(sorted(keep + ms)), left - 1) for ms, p in rolled))
        bests[key] = max(options)
        return bests[key]

    return value


def brute_force(rs: RuleSet) -> Any:
    """``value(card)``: the optimal expected final total from the start of a turn on ``card``."""
    return brute_utility(rs, float)


def tiny(**extra: Any) -> RuleSet:
    data: dict[str, Any] = {
        "name": "tiny",
        "dice": 3,
        "boxes": [
            {"name": "ones", "kind": "face", "face": 1},
            {"name": "sixes", "kind": "face", "face": 6},
            {"name": "triple", "kind": "all_alike", "points": 30},
        ],
        "upper_bonus": [[6, 20]],
        "yahtzee_box": "triple",
    }
    data.update(extra)
    return rules.from_data(data)


CASES = {
    "plain": tiny(rolls=2),
    "forced-joker-bonus": tiny(joker="forced", yahtzee_bonus=100),
    "free-joker": tiny(joker="free", yahtzee_bonus=40),
    "none-joker-bonus": tiny(joker="none", yahtzee_bonus=100, rolls=2),
    "top-down": tiny(cards=["top_down"], joker="forced", yahtzee_bonus=100),
    "bottom-up": tiny(cards=["bottom_up"], rolls=2),
    "upper-first": tiny(cards=["upper_first"], joker="forced"),
    "tiers-two-rolls": tiny(upper_bonus=[[4, 5], [9, 25], [14, 40]], rolls=2),
    "one-roll": tiny(rolls=1, joker="forced", yahtzee_bonus=100),
    "four-rolls-two-dice": tiny(dice=2, rolls=4, joker="free", yahtzee_bonus=20),
    "chance-two-dice": tiny(
        dice=2,
        boxes=[
            {"name": "threes", "kind": "face", "face": 3},
            {"name": "pair", "kind": "all_alike", "points": 15},
            {"name": "chance", "kind": "chance"},
        ],
        yahtzee_box="pair",
        yahtzee_bonus=10,
        joker="forced",
        upper_bonus=[[3, 4]],
    ),
    "first-roll-points": tiny(
        dice=2,
        boxes=[
            {"name": "twos", "kind": "face", "face": 2},
            {"name": "straight", "kind": "straight", "runs": [[1, 2], [5, 6]], "points": 10, "first_roll_points": 25},
            {"name": "pair", "kind": "all_alike", "points": 20, "first_roll_points": 50},
        ],
        yahtzee_box="pair",
        upper_bonus=[],
    ),
    "four-dice": tiny(
        dice=4,
        boxes=[
            {"name": "fives", "kind": "face", "face": 5},
            {"name": "run", "kind": "straight", "runs": [[1, 2, 3, 4], [3, 4, 5, 6]], "points": 20},
            {"name": "kind", "kind": "all_alike", "points": 50},
        ],
        yahtzee_box="kind",
        yahtzee_bonus=100,
        joker="forced",
        upper_bonus=[[10, 7]],
        rolls=2,
    ),
    # Generala's Double Generala: a box of all dice alike once more, scoring only while the first holds points.
    "second-alike": tiny(
        dice=2,
        boxes=[
            {"name": "ones", "kind": "face", "face": 1},
            {"name": "pair", "kind": "all_alike", "points": 30, "first_roll_points": 45},
            {"name": "double", "kind": "second_alike", "points": 60},
        ],
        yahtzee_box="pair",
        upper_bonus=[],
    ),
    "second-alike-joker-bonus": tiny(
        dice=2,
        boxes=[
            {"name": "sixes", "kind": "face", "face": 6},
            {"name": "pair", "kind": "all_alike", "points": 30},
            {"name": "double", "kind": "second_alike", "points": 60},
            {"name": "chance", "kind": "chance"},
        ],
        yahtzee_box="pair",
        joker="forced",
        yahtzee_bonus=50,
        upper_bonus=[[12, 10]],
        rolls=2,
    ),
}


@cache
def brute(name: str) -> Any:
    """The brute-force value function of a case (shared by the tests)."""
    return brute_force(CASES[name])


@pytest.mark.parametrize("name", list(CASES))
def test_expected_score_matches_brute_force(name: str) -> None:
    rs = CASES[name]
    value = brute(name)
    solver = solve(rs, cache=False)
    assert solver.expected_score == pytest.approx(value(Scorecard.empty(rs)), abs=1e-9)


def reachable_cards(rs: RuleSet) -> set[Scorecard]:
    """Every card that can arise, by filling boxes with every roll on every roll number."""
    rolls = list(itertools.combinations_with_replacement(range(1, FACES + 1), rs.dice))
    empty = Scorecard.empty(rs)
    seen = {card_key(empty): empty}
    todo = [empty]
    while todo:
        card = todo.pop()
        for dice in rolls:
            for roll in {1, rs.rolls}:
                for b in card.option_indices(counts_of(dice), roll):
                    nxt = card.fill(b, dice, roll)
                    if card_key(nxt) not in seen:
                        seen[card_key(nxt)] = nxt
                        todo.append(nxt)
    return set(seen.values())


@pytest.mark.parametrize(
    "name",
    ["forced-joker-bonus", "free-joker", "tiers-two-rolls", "upper-first", "second-alike", "second-alike-joker-bonus"],
)
def test_state_values_match_brute_force_on_every_reachable_card(name: str) -> None:
    rs = CASES[name]
    value = brute(name)
    solver = solve(rs, cache=False)
    cards = reachable_cards(rs)
    assert len(cards) > 20
    for card in cards:
        assert solver.state_value(card) == pytest.approx(value(card) - card.total, abs=1e-9)
