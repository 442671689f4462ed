"""Rule files are read strictly: every field's type and range, unknown keys, options that cannot combine."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from fivedice import rules
from fivedice.cli import main
from fivedice.errors import RuleSetError
from fivedice.rules.schema import check_rule_data

HEAD = "name = 'house'\nbase = 'yahtzee'\n"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('rolls = "4"', "Rule-set field 'rolls' is '4' (text); expected a whole number from 1 to 10."),
        ("rolls = true", "Rule-set field 'rolls' is true (true or false); expected a whole number from 1 to 10."),
        ("dice = true", "Rule-set field 'dice' is true (true or false); expected a whole number from 1 to 10."),
        ("dice = 5.0", "Rule-set field 'dice' is 5.0 (a decimal number); expected a whole number from 1 to 10."),
        ("dice = 11", "Rule-set field 'dice' is 11 (a whole number); expected a whole number from 1 to 10."),
        (
            "upper_bonus = 63",
            "Rule-set field 'upper_bonus' is 63 (a whole number); expected a list of [threshold, points] pairs, "
            "e.g. [[63, 35]].",
        ),
        (
            "upper_bonus = [[63, '35']]",
            "Rule-set field 'upper_bonus' item 1 is [63, '35'] (a list); expected a pair [threshold, points] of "
            "whole numbers, e.g. [63, 35].",
        ),
        (
            'yahtzee_bonus = "100"',
            "Rule-set field 'yahtzee_bonus' is '100' (text); expected a whole number from 0 to 10000.",
        ),
        ("roll = 4", "Rule-set field 'roll' is unknown; did you mean 'rolls'?"),
        ("colour = 'red'", "Rule-set field 'colour' is unknown; expected one of: name, title,"),
        ("joker = 'freee'", "Rule-set field 'joker' is 'freee'; did you mean 'free'?"),
        ("cards = 'free'", "Rule-set field 'cards' is 'free' (text); expected a list of fill orders."),
        ("drop_boxes = 'chance'", "Rule-set field 'drop_boxes' is 'chance' (text); expected a list of box names."),
        (
            "[[extra_boxes]]\nname = 'two_pairs'\nkind = 'two_pair'\npoints = 'sum+'",
            "Points 'sum+' are not understood",
        ),
        (
            "[[extra_boxes]]\nname = 'x'\nkind = 'two_pair'\nfour_alike = 1",
            "Box 'x' field 'four_alike' is 1 (a whole number); expected true or false.",
        ),
        (
            "[[extra_boxes]]\nname = 'x'\nkind = 'straight'\nlength = '4'",
            "Box 'x' field 'length' is '4' (text); expected a whole number from 1 to 6.",
        ),
        (
            "[[extra_boxes]]\nname = 'x'\nkind = 'straigt'",
            "Box 'x' field 'kind' is 'straigt'; did you mean 'straight'?",
        ),
        ("[[extra_boxes]]\nname = 'x'\nkind = 'chance'\npoint = 5", "Box 'x' field 'point' is unknown; did you mean"),
        ("[[extra_boxes]]\nname = 'x'", "Box 'x' has no 'kind'; expected one of: face, of_a_kind,"),
        (
            "[[extra_boxes]]\nname = 'x'\nkind = 'chance'\npoints = true",
            "Box 'x' field 'points' is true (true or false); expected a number, 'sum', 'sum+N'",
        ),
        (
            "[[extra_boxes]]\nname = 'x'\nkind = 'straight'\nruns = [[1, 2, 7]]",
            "Box 'x' field 'runs' item 1 item 3 is 7 (a whole number); expected a whole number from 1 to 6.",
        ),
        ("[base_options]\njoker = 1.5", "Rule-set field 'base_options' key 'joker' is 1.5 (a decimal number)"),
    ],
)
def test_a_badly_typed_field_is_refused_in_one_sentence(tmp_path: Path, body: str, message: str) -> None:
    path = tmp_path / "house.toml"
    path.write_text(HEAD + body + "\n")
    with pytest.raises(RuleSetError) as caught:
        rules.load(path)
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_the_command_line_refuses_a_bad_rule_file_with_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "house.toml"
    path.write_text(HEAD + "roll = 4\n")
    result = CliRunner().invoke(main, ["rules", str(path)])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == ["Error: Rule-set field 'roll' is unknown; did you mean 'rolls'?"]


def test_every_builtin_passes_its_own_check() -> None:
    """What :meth:`RuleSet.to_data` writes is well-formed data (saves and caches carry it)."""
    for name, _description in rules.available():
        for option in rules.BUILTINS[name].options:
            for choice in option.choices:
                if (name, option.name, choice) == ("yahtzee", "order", "upper_first"):
                    continue
                check_rule_data(rules.get(name, **{option.name: choice}).to_data())


def test_a_well_formed_house_rule_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "house.toml"
    path.write_text(
        HEAD + "rolls = 4\ndrop_boxes = ['chance']\n[base_options]\njoker = 'free'\n"
        "[[extra_boxes]]\nname = 'two_pairs'\nkind = 'two_pair'\npoints = 'sum+5'\nfour_alike = true\n"
    )
    rs = rules.load(path)
    assert rs.rolls == 4
    assert rs.score("two pairs", (2, 2, 5, 5, 6)) == 25


@pytest.mark.parametrize("order", ["upper_first", "top_down", "bottom_up"])
def test_options_that_cannot_combine_are_refused(order: str) -> None:
    with pytest.raises(RuleSetError, match=f"Option order='{order}' cannot go with cards='jetsi'"):
        rules.get("yahtzee", cards="jetsi", order=order)
    assert rules.get("yahtzee", cards="jetsi", order="free").rounds == 39


def test_the_rule_sources_spelling_of_a_box_is_accepted() -> None:
    assert rules.get("yahtzee").box("Yahtzee!").name == "yahtzee"
    assert rules.get("yahtzee").score("Yahtzee!", (4, 4, 4, 4, 4)) == 50
