"""Challenges: every player meets the same dice, and sees what the optimal player made of them."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from fivedice.cli import main
from fivedice.rules import get
from fivedice.table import Table
from fivedice.table.challenge import ChallengeError, challenge_code, replay_on_tape, report


def play(args: list[str], lines: list[str], db: Path) -> str:
    command = ["play", "--plain", "--no-confirm", "--db", str(db), *args]
    result = CliRunner().invoke(main, command, input="\n".join(lines) + "\n")
    assert result.exit_code == 0, result.output
    return result.output


def first_rolls(out: str) -> list[str]:
    return re.findall(r"rolls (\d \d \d \d \d) \(roll 1 of", out)


def test_two_plain_games_of_one_challenge_meet_the_same_first_roll_every_round(tmp_path: Path) -> None:
    boxes = list(get("yacht").box_names)
    a = ["keep 6"] + [x for b in boxes for x in (b, "")]  # Ann keeps sixes once, then scores in card order
    b = [x for b in reversed(boxes) for x in (b, "")]  # Bob scores at once, bottom up
    out_a = play(["--rules", "yacht", "--players", "Ann", "--challenge", "Duplicate"], a, tmp_path / "s.db")
    out_b = play(["--rules", "yacht", "--players", "Bob", "--challenge", "duplicate"], b, tmp_path / "s.db")
    assert len(first_rolls(out_a)) == len(first_rolls(out_b)) == 12
    assert first_rolls(out_a) == first_rolls(out_b)
    assert "Challenge duplicate: on the same dice, the optimal player scored " in out_b
    assert "Challenge duplicate" in out_b.split("stored with the high scores.")[1]  # the leaderboard
    assert "Ann" in out_b.split("stored with the high scores.")[1]


def test_the_same_choices_meet_the_same_dice() -> None:
    logs = []
    for _i in range(2):
        table = replay_on_tape(get("yahtzee"), "same-choices", "greedy")
        logs.append(table.game.log)
    assert logs[0] == logs[1]


def test_the_optimal_comparison_is_the_optimal_player_replayed_on_the_same_tape() -> None:
    rules = get("yacht")
    bench = replay_on_tape(rules, "tape")
    # A human who happens to choose exactly as the optimal player does meets exactly its dice and score.
    human = Table(rules, ["Ann"], challenge="tape")
    while not human.is_over:
        human.advance()
        if human.state.dice is None:
            human.roll()
        human.play(bench.strategy(0).choose(human.state))
    assert human.game.log == bench.game.log
    rep = report(human)
    assert rep.benchmark == human.state.total(0)
    assert rep.players[0].loss == pytest.approx(0.0, abs=1e-9)


def test_a_challenge_on_several_cards_compares_with_the_strongest_level_that_plays_them() -> None:
    rules = get("yahtzee", cards="jetsi")
    table = Table(rules, ["Ann"], challenge="jetsi-day")
    while not table.is_over:
        table.advance()
        if table.state.dice is None:
            table.roll()
        (card, box), _points = next(iter(table.state.options().items()))
        table.score(box, card)
    rep = report(table)
    assert rep.level == "tali"
    assert rep.players[0].loss is None


def test_codes_are_canonical_and_daily_is_today() -> None:
    assert challenge_code("daily", today=date(2026, 12, 1)) == "2026-12-01"
    assert challenge_code(" Big  Night ") == challenge_code("big night")
    with pytest.raises(ChallengeError, match="not usable"):
        challenge_code("   ")


def test_a_sealed_challenge_deals_other_dice_and_its_save_loads_without_the_key() -> None:
    """A server's secret seals a challenge's dice; its saves keep every die seen, never the key."""
    from fivedice.table import Table

    sealed = Table("yacht", ["Ann"], challenge="cup", challenge_key=b"k" * 32)
    public = Table("yacht", ["Ann"], challenge="cup")
    sealed.roll()
    public.roll()
    data = sealed.to_data()
    assert data["table"]["sealed"] is True
    assert "k" * 32 not in str(data)
    again = Table.from_data(data)
    assert again.state.dice == sealed.state.dice
    assert [sealed.tape.draw(k, range(5)) for k in sealed.tape] != [public.tape.draw(k, range(5)) for k in public.tape]
