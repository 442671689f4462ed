"""Rule-set lookup, options, validation and TOML rule sets."""

from __future__ import annotations

from pathlib import Path

import pytest

from fivedice import rules
from fivedice.errors import FiveDiceError, RuleSetError
from fivedice.rules import FillOrder, Joker


def test_lookup_with_options_and_spec_round_trip() -> None:
    rs = rules.get("Yahtzee", joker="free", order="ordered")
    assert rs.joker is Joker.FREE
    assert rs.cards == (FillOrder.TOP_DOWN,)
    assert rs.spec == "yahtzee joker=free order=top_down"
    assert rules.parse_spec(rs.spec) == rs
    assert rules.get("yahtzee") is rules.get("yahtzee"), "built-ins are cached values"
    assert rules.get("yatzy", forced=True).cards == (FillOrder.TOP_DOWN,)


@pytest.mark.parametrize(
    ("name", "options", "message"),
    [
        ("yahtzy", {}, "Rule set 'yahtzy' is unknown"),
        ("yahtzee", {"jokr": "free"}, "Option 'jokr' is not an option of yahtzee"),
        ("yahtzee", {"joker": "wild"}, "Option joker='wild' is not valid for yahtzee; expected one of: forced"),
        ("yacht", {"joker": "free"}, "not an option of yacht"),
    ],
)
def test_unknown_names_and_options(name: str, options: dict[str, str], message: str) -> None:
    with pytest.raises(RuleSetError, match=message):
        rules.get(name, **options)


def test_every_builtin_round_trips_through_data() -> None:
    for name, _ in rules.available():
        for option in rules.BUILTINS[name].options:
            for choice in option.choices:
                rs = rules.get(name, **{option.name: choice})
                assert rules.from_data(rs.to_data()) == rs


def test_box_lookup_is_forgiving_and_strict() -> None:
    rs = rules.get("yacht")
    assert rs.box("Four-Of a_Kind").name == "four_of_a_kind"
    assert rs.box("aces").name == "ones", "aliases work"
    with pytest.raises(RuleSetError, match="Box 'fullhouse' is not in the yacht rule set"):
        rs.box("fullhouse")


HOUSE = """
name = "house"
title = "House Yahtzee"
base = "yahtzee"
rolls = 4
yahtzee_bonus = 50
drop_boxes = ["chance"]

[base_options]
joker = "free"

[[extra_boxes]]
name = "two_pairs"
kind = "two_pair"
points = "sum"
"""

SMALL = """
name = "tiny"
dice = 3
upper_bonus = [[8, 5]]

[[boxes]]
name = "threes"
kind = "face"
face = 3

[[boxes]]
name = "run"
kind = "straight"
length = 3
points = 10
first_roll_points = 15
"""


def test_toml_house_rule_needs_no_code(tmp_path: Path) -> None:
    path = tmp_path / "house.toml"
    path.write_text(HOUSE)
    rs = rules.get(str(path))
    assert rs.name == "house"
    assert rs.rolls == 4
    assert rs.joker is Joker.FREE
    assert "chance" not in rs.box_names
    assert rs.score("two pairs", (2, 2, 5, 5, 6)) == 20
    assert rs.rounds == 13


def test_toml_full_definition(tmp_path: Path) -> None:
    path = tmp_path / "tiny.toml"
    path.write_text(SMALL)
    rs = rules.load(path)
    assert rs.dice == 3
    assert rs.box("threes").section == "upper"
    assert rs.score("run", (3, 1, 2), roll=1) == 15
    assert rs.score("run", (3, 1, 2), roll=2) == 10
    assert rs.upper_bonus_for(9) == 5


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name = 'x'", "no 'boxes' and no 'base'"),
        ("name = 'x'\n[[boxes]]\nname='a'\nkind='wild'", "Box 'a' field 'kind' is 'wild' .text.; expected one of"),
        (
            "name = 'x'\n[[boxes]]\nname='a'\nkind='face'\nface=9",
            "Box 'a' field 'face' is 9 .a whole number.; expected a whole number from 1 to 6",
        ),
        ("name = 'x'\n[[boxes]]\nname='a'\nkind='chance'\npoints='lots'", "Points 'lots' are not understood"),
        ("name = 'x'\nbase='yahtzee'\ndrop_boxes=['nope']", "drop_boxes names"),
        ("name = 'x'\nbase='yahtzee'\njoker='sometimes'", "Rule-set field 'joker' is 'sometimes'"),
        ("name = 'x'\nbase='yahtzee'\nrolls=0", "Rule-set field 'rolls' is 0"),
        ("name = [", "not valid TOML"),
        ("name = 'x'\n[[boxes]]\nname='a'\nkind='chance'\n[[boxes]]\nname='a'\nkind='chance'", "appears twice"),
    ],
)
def test_bad_toml_gets_a_clear_error(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(FiveDiceError, match=message):
        rules.load(path)


def test_missing_file() -> None:
    with pytest.raises(RuleSetError, match="cannot be read"):
        rules.get("/nonexistent/house.toml")
