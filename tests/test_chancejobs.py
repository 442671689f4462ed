"""Chances beside the hints: prepared once in the background, then carried by every option."""

from __future__ import annotations

import io
import re
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from fivedice import rules
from fivedice.cli.plain import play_plain
from fivedice.players.target import target_table
from fivedice.rules import RuleSet
from fivedice.services import chancejobs
from fivedice.services.advice import advise
from fivedice.services.chancejobs import ChanceKind, Need
from fivedice.solver import solve
from fivedice.solver.chances import STEP, target_cap
from fivedice.solver.fast import fast_options
from fivedice.table import Table

YACHT = rules.get("yacht")
YACHT4 = rules.get("yacht", four_kind="four_dice")
"""Options that ship no moments: their chances are prepared once."""


def test_a_solo_hint_carries_the_chance_of_beating_the_goal_at_once() -> None:
    """Issue 27: the built-in rule sets ship what the chances need; nothing is prepared or built."""
    table = Table(YACHT, ["Ann"], seed=4)
    table.goal = 171
    table.roll()
    assert table.chances_note() is None
    advice = table.advice()
    assert chancejobs.job(Need(ChanceKind.BEAT, YACHT, 171)) is None  # nothing was started
    assert advice.chances == "beat"
    assert advice.goal == 171
    assert all(o.beat is not None and 0.0 <= o.beat <= 1.0 for o in advice.options)  # every option found its chance
    state = table.state
    assert state.dice is not None
    fast = fast_options(solve(YACHT, jit=False), state.cards[0][0], state.dice, state.rolls_left, 172)
    best_chance = max(o.beat or 0.0 for o in advice.options)
    assert best_chance == fast[0].value
    assert advice.options[0].beat is not None
    assert advice.options[0].beat <= best_chance


def test_rules_with_other_options_prepare_their_moments_once_in_the_background() -> None:
    table = Table(YACHT4, ["Ann"], seed=4)
    table.goal = 171
    table.roll()
    chancejobs._JOBS.pop(Need(ChanceKind.BEAT, YACHT4, 171), None)  # whatever an earlier test of this process prepared
    with chancejobs._BUILD:  # held: the preparation starts but waits
        assert table.chances_note() == "Preparing the chances to beat 171 (once, a few minutes): 0% done."
        assert table.advice().chances is None  # meanwhile hints give points only
    job = chancejobs.wait(Need(ChanceKind.BEAT, YACHT4, 171), timeout=120)
    assert job.ok
    assert job.share == 1.0
    assert table.chances_note() is None
    assert table.advice().chances == "beat"
    assert chancejobs.ready(Need(ChanceKind.WIN, YACHT4))  # the same moments serve the chance to win


def test_with_rivals_hints_carry_the_chance_to_win_and_alone_without_a_goal_none() -> None:
    duel = Table(YACHT, ["Ann", "Bo"], seed=2)
    duel.run_automatic()
    duel.roll()
    assert chancejobs.wait(Need(ChanceKind.WIN, YACHT), timeout=120).ok
    advice = duel.advice()
    assert advice.chances == "win"
    chances = [o.win for o in advice.options]
    assert all(c is not None and 0.0 < c < 1.0 for c in chances)
    alone = Table(YACHT, ["Ann"], seed=2)
    alone.roll()
    assert alone.chances_note() is None
    assert alone.advice().chances is None
    multi_card = Table(rules.get("yahtzee", cards="jetsi"), ["Ann", "Bo"], seed=2)
    multi_card.run_automatic()
    assert multi_card.chances_note() is None  # no exact solver for three cards: no chances to prepare


def test_a_score_already_above_the_goal_is_sure_to_beat_it() -> None:
    table = Table(YACHT, ["Ann"], seed=4)
    table.goal = 3
    table.roll()
    table.score(table.rules.box_names[-1])  # Yacht or Choice: anything scored so far may beat 3
    while table.state.total(0) <= 3:
        table.roll()
        table.score(min(b for (_c, b) in table.state.options()))
    table.roll()
    chancejobs.wait(Need(ChanceKind.BEAT, YACHT, 3), timeout=120)
    assert {o.beat for o in table.advice().options} == {1.0}


def test_targets_share_a_table_up_to_the_next_multiple_of_the_step() -> None:
    from fivedice.players.solved import solver_for

    solver = solver_for(YACHT)
    assert target_cap(solver, 1) >= STEP
    table = target_table(YACHT, 101)
    assert table.cap >= 101
    assert table.cap % STEP == 0
    assert target_table(YACHT, 102) is table  # a nearby target reuses it
    assert target_cap(solver, table.cap) == table.cap


def test_a_failed_preparation_is_one_sentence_and_hints_go_on() -> None:
    table = Table(YACHT4, ["Ann"], seed=4)
    table.goal = -7
    chancejobs._JOBS.pop(Need(ChanceKind.BEAT, YACHT4, -7), None)
    with chancejobs._BUILD:  # held until the job exists (the moments may be ready from another test)
        started = chancejobs.start(Need(ChanceKind.BEAT, YACHT4, -7))
    started.done.wait(60)
    note = table.chances_note()
    assert note is not None
    assert note.startswith("The chances could not be prepared: TargetError: Target -6 is not")
    table.roll()
    assert advise(table.state, -7).chances is None


def run_plain(lines: Iterable[str], best: int | None, rule_set: RuleSet = YACHT) -> str:
    out = io.StringIO()
    feed = iter(lines)

    def read(prompt: str) -> str | None:
        line = next(feed, None)
        out.write(f"{prompt}{line}\n")
        return line

    play_plain(rule_set, "Ann", out, read, seed=6, best=lambda name, rs: best)
    return out.getvalue()


def test_plain_mode_plays_to_beat_the_best_and_hints_give_the_chance() -> None:
    chancejobs.wait(Need(ChanceKind.BEAT, YACHT, 140), timeout=120)
    out = run_plain(["hint", "quit"], best=140)
    assert "Beat your best: 140" in out
    lines = re.findall(r"(?m)^.*: [\d.]+ points to come, loses [\d.]+; chance to beat 140: ([\d.]+)%$", out)
    assert len(lines) == 5
    assert "Preparing the chances" not in out
    out = run_plain(["hint", "quit"], best=None)
    assert "Beat your best" not in out
    assert "chance to" not in out


def test_a_computer_that_plays_for_chances_waits_for_its_preparation_with_a_note(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from fivedice.solver import fast

    monkeypatch.setenv("FIVEDICE_CACHE_DIR", str(tmp_path))  # no moments cached for these options
    monkeypatch.setattr(fast, "_MOMENTS", {})
    table = Table(YACHT4, ["Max:target:137", "Ann"], starter=0, seed=3)
    assert Table(YACHT, ["Max:target:137", "Ann"], seed=3).computer_preparation() is None  # shipped: no wait
    table.run_automatic()
    chancejobs._JOBS.pop(Need(ChanceKind.BEAT, YACHT4, 136), None)  # whatever an earlier test of this process prepared
    with chancejobs._BUILD:  # another build holds the machine: the preparation waits its turn
        job = table.computer_preparation()
        assert job is not None
        assert job.need == Need(ChanceKind.BEAT, YACHT4, 136)
        assert not job.done.wait(0.3)
        assert chancejobs.describe(job) == "Preparing the chances to beat 136 (once, a few minutes): 0% done."
    assert job.done.wait(120)
    assert job.ok
    assert table.computer_preparation() is None
    duel = Table(YACHT, ["Max:win"], seed=3)
    assert duel.computer_preparation() is None  # alone, win plays as optimal: nothing to prepare


def test_plain_mode_says_what_a_computer_waits_for(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from fivedice.solver import fast

    monkeypatch.setenv("FIVEDICE_CACHE_DIR", str(tmp_path))  # no moments cached for these options
    monkeypatch.setattr(fast, "_MOMENTS", {})
    chancejobs._JOBS.pop(Need(ChanceKind.BEAT, YACHT4, 132), None)
    out = io.StringIO()
    feed = iter(["quit"])

    def read(prompt: str) -> str | None:
        return next(feed, None)

    play_plain(YACHT4, "Max:target:133,Ann", out, read, seed=8)
    text = out.getvalue()
    assert "Preparing the chances to beat 132 (once, a few minutes): " in text
    assert "Max scores " in text


def test_two_callers_of_one_chance_table_share_one_build(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from fivedice.players.solved import solver_for
    from fivedice.solver import chances

    monkeypatch.setenv("FIVEDICE_CACHE_DIR", str(tmp_path))
    builds: list[int] = []
    real = chances.build_chances

    def counted(*args: Any, **kwargs: Any) -> chances.ChanceTable:
        builds.append(1)
        time.sleep(0.2)  # long enough for the second caller to arrive while the first one builds
        return real(*args, **kwargs)

    monkeypatch.setattr(chances, "build_chances", counted)
    solver = solver_for(YACHT)
    with ThreadPoolExecutor(2) as pool:
        first, second = pool.map(lambda _n: chances.chance_table(solver, 77), range(2))
    assert first is second
    assert builds == [1]


def test_hints_without_chances_prepare_nothing_and_show_points_only() -> None:
    table = Table(YACHT, ["Ann", "Bo"], seed=11)
    table.chances = False
    table.run_automatic()
    table.roll()
    assert table.chances_note() is None
    assert table.advice().chances is None
    out = io.StringIO()
    feed = iter(["hint", "quit"])
    play_plain(YACHT, "Ann", out, lambda prompt: next(feed, None), seed=6, best=lambda n, r: 97, chances=False)
    assert "Beat your best: 97" in out.getvalue()  # the goal is still shown
    assert "chance to" not in out.getvalue()
    assert chancejobs.job(Need(ChanceKind.BEAT, YACHT, 97)) is None  # and nothing was prepared for it


def test_a_level_written_otherwise_needs_the_same_preparation() -> None:
    table = Table(YACHT, ["Max:Target:0137", "Ann"], starter=0, seed=3)
    table.run_automatic()
    assert chancejobs.for_level("Target:0137", table.state) == Need(ChanceKind.BEAT, YACHT, 136)
    assert chancejobs.for_level(" WIN ", table.state) == Need(ChanceKind.WIN, YACHT)
