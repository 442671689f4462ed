"""Golden tables: every dice multiset x every box of every rule set, against formulas
written here independently of the scorers (from RULES.md and VARIANTS.md)."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable

import pytest

from fivedice import rules

ALL = list(itertools.combinations_with_replacement(range(1, 7), 5))
COLOUR = {1: "black", 6: "black", 2: "red", 5: "red", 3: "green", 4: "green"}

Formula = Callable[[tuple[int, ...], int], int]


def groups(d: tuple[int, ...]) -> list[int]:
    return sorted(Counter(d).values(), reverse=True)


def has_run(d: tuple[int, ...], run: range) -> bool:
    return set(run) <= set(d)


def is_full_house(d: tuple[int, ...]) -> bool:
    return groups(d) == [3, 2]


def n_kind_face(d: tuple[int, ...], n: int) -> int:
    faces = [f for f, c in Counter(d).items() if c >= n]
    return max(faces) if faces else 0


def upper(face: int) -> Formula:
    return lambda d, roll: face * d.count(face)


def yahtzee_table() -> dict[str, Formula]:
    t: dict[str, Formula] = {
        n: upper(f) for f, n in enumerate(("aces", "twos", "threes", "fours", "fives", "sixes"), 1)
    }
    t["three_of_a_kind"] = lambda d, r: sum(d) if groups(d)[0] >= 3 else 0
    t["four_of_a_kind"] = lambda d, r: sum(d) if groups(d)[0] >= 4 else 0
    t["full_house"] = lambda d, r: 25 if is_full_house(d) else 0
    t["small_straight"] = lambda d, r: 30 if any(has_run(d, range(s, s + 4)) for s in (1, 2, 3)) else 0
    t["large_straight"] = lambda d, r: 40 if any(has_run(d, range(s, s + 5)) for s in (1, 2)) else 0
    t["yahtzee"] = lambda d, r: 50 if groups(d) == [5] else 0
    t["chance"] = lambda d, r: sum(d)
    return t


def yacht_table(four_dice: bool) -> dict[str, Formula]:
    t: dict[str, Formula] = {
        n: upper(f) for f, n in enumerate(("ones", "twos", "threes", "fours", "fives", "sixes"), 1)
    }
    t["full_house"] = lambda d, r: sum(d) if is_full_house(d) else 0
    if four_dice:
        t["four_of_a_kind"] = lambda d, r: 4 * n_kind_face(d, 4)
    else:
        t["four_of_a_kind"] = lambda d, r: sum(d) if groups(d)[0] >= 4 else 0
    t["small_straight"] = lambda d, r: 30 if sorted(d) == [1, 2, 3, 4, 5] else 0
    t["large_straight"] = lambda d, r: 30 if sorted(d) == [2, 3, 4, 5, 6] else 0
    t["choice"] = lambda d, r: sum(d)
    t["yacht"] = lambda d, r: 50 if groups(d) == [5] else 0
    return t


def yatzy_table(fh_five: bool) -> dict[str, Formula]:
    t: dict[str, Formula] = {
        n: upper(f) for f, n in enumerate(("ones", "twos", "threes", "fours", "fives", "sixes"), 1)
    }
    t["one_pair"] = lambda d, r: 2 * n_kind_face(d, 2)

    def two_pairs(d: tuple[int, ...], r: int) -> int:
        pairs = sorted((f for f, c in Counter(d).items() if c >= 2), reverse=True)
        return 2 * (pairs[0] + pairs[1]) if len(pairs) >= 2 else 0

    t["two_pairs"] = two_pairs
    t["three_of_a_kind"] = lambda d, r: 3 * n_kind_face(d, 3)
    t["four_of_a_kind"] = lambda d, r: 4 * n_kind_face(d, 4)
    t["small_straight"] = lambda d, r: 15 if sorted(d) == [1, 2, 3, 4, 5] else 0
    t["large_straight"] = lambda d, r: 20 if sorted(d) == [2, 3, 4, 5, 6] else 0
    t["full_house"] = lambda d, r: sum(d) if is_full_house(d) or (fh_five and groups(d) == [5]) else 0
    t["chance"] = lambda d, r: sum(d)
    t["yatzy"] = lambda d, r: 50 if groups(d) == [5] else 0
    return t


def kismet_table(tali: bool) -> dict[str, Formula]:
    t: dict[str, Formula] = {
        n: upper(f) for f, n in enumerate(("aces", "twos", "threes", "fours", "fives", "sixes"), 1)
    }

    def two_pair_colour(d: tuple[int, ...], r: int) -> int:
        c = Counter(d)
        if max(c.values()) >= 4:
            return sum(d)
        pairs = [f for f, n in c.items() if n >= 2]
        return sum(d) if len(pairs) == 2 and COLOUR[pairs[0]] == COLOUR[pairs[1]] else 0

    def fh(d: tuple[int, ...]) -> bool:
        return is_full_house(d) or (tali and groups(d) == [5])

    def fh_colour(d: tuple[int, ...]) -> bool:
        return fh(d) and len({COLOUR[f] for f in d}) == 1

    t["two_pair_same_colour"] = two_pair_colour
    t["three_of_a_kind"] = lambda d, r: sum(d) if groups(d)[0] >= 3 else 0
    t["straight"] = lambda d, r: (40 if tali else 30) if sorted(d) in ([1, 2, 3, 4, 5], [2, 3, 4, 5, 6]) else 0
    t["flush"] = lambda d, r: 35 if len({COLOUR[f] for f in d}) == 1 else 0
    t["full_house"] = lambda d, r: sum(d) + 15 if fh(d) else 0
    t["full_house_same_colour"] = lambda d, r: sum(d) + 20 if fh_colour(d) else 0
    t["four_of_a_kind"] = lambda d, r: sum(d) + 25 if groups(d)[0] >= 4 else 0
    t["yarborough"] = lambda d, r: sum(d)
    t["kismet"] = lambda d, r: sum(d) + 50 if groups(d) == [5] else 0
    return t


def generala_table(g: int, extra: int) -> dict[str, Formula]:
    t: dict[str, Formula] = {
        n: upper(f) for f, n in enumerate(("ones", "twos", "threes", "fours", "fives", "sixes"), 1)
    }

    def first(base: int) -> Callable[[int], int]:
        return lambda r: base + extra if r == 1 else base

    straight = first(20)
    full = first(30)
    poker = first(40)
    t["straight"] = lambda d, r: straight(r) if sorted(d) in ([1, 2, 3, 4, 5], [2, 3, 4, 5, 6]) else 0
    t["full"] = lambda d, r: full(r) if is_full_house(d) else 0
    t["poker"] = lambda d, r: poker(r) if groups(d)[0] >= 4 else 0
    t["generala"] = lambda d, r: g if groups(d) == [5] else 0
    return t


CASES: list[tuple[str, dict[str, str], dict[str, Formula]]] = [
    ("yahtzee", {}, yahtzee_table()),
    ("yahtzee", {"joker": "free", "cards": "jetsi"}, yahtzee_table()),
    ("yacht", {}, yacht_table(False)),
    ("yacht", {"four_kind": "four_dice"}, yacht_table(True)),
    ("yatzy", {}, yatzy_table(False)),
    ("yatzy", {"full_house_five_alike": "yes", "forced": "yes"}, yatzy_table(True)),
    ("kismet", {}, kismet_table(False)),
    ("kismet", {"tali": "yes"}, kismet_table(True)),
    ("generala", {}, generala_table(50, 5)),
    ("generala", {"generala_points": "60", "served_bonus": "10"}, generala_table(60, 10)),
]


@pytest.mark.parametrize(("name", "options", "table"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_every_multiset_every_box(name: str, options: dict[str, str], table: dict[str, Formula]) -> None:
    rs = rules.get(name, **options)
    assert set(rs.box_names) == set(table), "the test table covers exactly the rule set's boxes"
    for roll in (1, 2, 3):
        for dice in ALL:
            for box, formula in table.items():
                shuffled = dice[::-1]
                assert rs.score(box, shuffled, roll) == formula(dice, roll), (name, box, dice, roll)


def test_worked_examples() -> None:
    yacht = rules.get("yacht")
    assert yacht.score("four of a kind", (4, 4, 4, 4, 1)) == 17
    assert yacht.score("Four-Of-A_kind", (6, 6, 6, 6, 6)) == 30
    assert rules.get("yacht", four_kind="four_dice").score("four_of_a_kind", (4, 4, 4, 4, 1)) == 16
    assert yacht.score("full house", (3, 3, 3, 6, 6)) == 21
    assert yacht.score("full house", (3, 3, 3, 3, 3)) == 0
    yatzy = rules.get("yatzy")
    assert yatzy.score("two pairs", (2, 2, 2, 5, 5)) == 14
    assert yatzy.score("two pairs", (4, 4, 4, 4, 1)) == 0
    assert yatzy.score("full house", (6, 6, 6, 6, 6)) == 0
    # The upper example of the seeds: three 3s, a 2 and a 4.
    yahtzee = rules.get("yahtzee")
    assert [yahtzee.score(b, (3, 3, 3, 2, 4)) for b in ("threes", "twos", "fours")] == [9, 2, 4]
    assert rules.get("generala").score("straight", (2, 3, 4, 5, 6), roll=1) == 25
    assert rules.get("generala").score("straight", (2, 3, 4, 5, 6), roll=2) == 20
