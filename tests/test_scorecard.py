"""Score cards: totals, bonuses, the Joker policies and the fill orders."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from fivedice import rules
from fivedice.engine.scorecard import Scorecard
from fivedice.errors import IllegalActionError

FIVE_5S = (5, 5, 5, 5, 5)


def card_with(spec: str, filled: Mapping[str, tuple[int, ...]], **options: str) -> Scorecard:
    card = Scorecard.empty(rules.get(spec, **options))
    for box, dice in filled.items():
        card = card.fill(box, dice)
    return card


def test_seeds_joker_example_forced() -> None:
    # Five 5s, Yahtzee box holds 0, Fives used: 40 may go in Large Straight.
    card = card_with("yahtzee", {"yahtzee": (1, 2, 3, 4, 6), "fives": (5, 1, 1, 1, 1)})
    assert card.get("yahtzee") == 0
    options = card.options(FIVE_5S)
    assert options["large_straight"] == 40
    assert options["small_straight"] == 30
    assert options["full_house"] == 25
    assert options["three_of_a_kind"] == 25
    assert "aces" not in options, "lower boxes come before an upper zero"
    filled = card.fill("large_straight", FIVE_5S)
    assert filled.total == 5 + 40
    assert filled.yahtzee_bonuses == 0, "no bonus when the Yahtzee box holds 0"


def test_forced_joker_matching_upper_box_first() -> None:
    card = card_with("yahtzee", {"yahtzee": FIVE_5S})
    assert card.options(FIVE_5S) == {"fives": 25}
    with pytest.raises(IllegalActionError, match="Joker rule sends five 5s to 'fives'"):
        card.fill("chance", FIVE_5S)
    after = card.fill("fives", FIVE_5S)
    assert after.yahtzee_bonuses == 1
    assert after.total == 50 + 25 + 100


def test_forced_joker_zero_in_upper_when_lower_full() -> None:
    lower = ["three_of_a_kind", "four_of_a_kind", "full_house", "small_straight", "large_straight", "chance"]
    filled = {"yahtzee": FIVE_5S, "fives": (5, 1, 1, 2, 2)} | dict.fromkeys(lower, (1, 1, 2, 2, 3))
    card = card_with("yahtzee", filled)
    assert card.options(FIVE_5S) == {"aces": 0, "twos": 0, "threes": 0, "fours": 0, "sixes": 0}
    assert card.fill("sixes", FIVE_5S).yahtzee_bonus == 100, "a forced zero still earns the bonus"


def test_free_joker() -> None:
    card = card_with("yahtzee", {"yahtzee": FIVE_5S}, joker="free")
    options = card.options(FIVE_5S)
    assert options["aces"] == 0
    assert options["large_straight"] == 0, "full value only once the matching upper box is filled"
    assert options["chance"] == 25
    card = card.fill("fives", (5, 5, 1, 1, 1))
    assert card.options(FIVE_5S)["large_straight"] == 40
    assert card.options(FIVE_5S)["full_house"] == 25


def test_no_joker_scores_as_ordinary_dice_but_pays_bonus() -> None:
    card = card_with("yahtzee", {"yahtzee": FIVE_5S, "fives": (5, 1, 1, 1, 1)}, joker="none")
    assert card.options(FIVE_5S)["large_straight"] == 0
    assert card.fill("chance", FIVE_5S).yahtzee_bonus == 100
    no_bonus = card_with("yahtzee", {"yahtzee": FIVE_5S}, yahtzee_bonus="0")
    assert no_bonus.fill("fives", FIVE_5S).yahtzee_bonus == 0


def test_upper_bonus_and_totals() -> None:
    card = card_with(
        "yahtzee",
        {"aces": (1, 1, 1, 2, 2), "twos": (2, 2, 2, 1, 1), "threes": (3, 3, 3, 1, 1),
         "fours": (4, 4, 4, 1, 1), "fives": (5, 5, 5, 1, 1), "sixes": (6, 6, 6, 1, 1)},
    )  # fmt: skip
    assert card.upper_total == 63
    assert card.upper_bonus == 35
    assert card.total == 98
    kismet = Scorecard.empty(rules.get("kismet"))
    assert [kismet.rules.upper_bonus_for(t) for t in (62, 63, 70, 71, 77, 78, 105)] == [0, 35, 35, 55, 55, 75, 75]


@pytest.mark.parametrize(
    ("order", "first", "second"),
    [("top_down", "aces", "twos"), ("bottom_up", "chance", "yahtzee")],
)
def test_strict_orders(order: str, first: str, second: str) -> None:
    card = Scorecard.empty(rules.get("yahtzee", order=order))
    assert list(card.options((1, 2, 3, 4, 5))) == [first]
    with pytest.raises(IllegalActionError, match="is not next"):
        card.fill(second, (1, 2, 3, 4, 5))
    assert list(card.fill(first, (1, 2, 3, 4, 5)).options((1, 2, 3, 4, 5))) == [second]


def test_upper_first() -> None:
    card = Scorecard.empty(rules.get("yahtzee", order="upper_first"))
    assert set(card.options((1, 2, 3, 4, 5))) == {"aces", "twos", "threes", "fours", "fives", "sixes"}
    with pytest.raises(IllegalActionError, match="upper box"):
        card.fill("chance", (1, 2, 3, 4, 5))


def test_forced_joker_within_top_down_order() -> None:
    card = Scorecard.empty(rules.get("yahtzee", order="bottom_up"))
    card = card.fill("chance", (1, 1, 1, 1, 2)).fill("yahtzee", FIVE_5S)
    assert card.options(FIVE_5S) == {"large_straight": 40}


def test_filled_box_message_and_card_unchanged() -> None:
    card = card_with("yacht", {"choice": (1, 2, 3, 4, 5)})
    with pytest.raises(IllegalActionError, match=r"^Box 'choice' is already filled\.$"):
        card.fill("choice", (6, 6, 6, 6, 6))
    assert card.get("choice") == 15
