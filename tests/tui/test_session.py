"""The terminal game's logic without widgets: seats, computer moves, undo over them, hints, saves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fivedice import Game, rules, saves
from fivedice.actions import Roll, RollOff, Score
from fivedice.errors import FiveDiceError, SaveFormatError
from fivedice.tui import Seat, Session, parse_seats
from fivedice.tui.demo import fake_advisor, fallback_strategy
from fivedice.tui.session import GreedyFallback, HintLine, describe_action, greedy_reasoning, saved_games


def duel(seed: int = 3) -> Session:
    return Session.new(
        rules.get("yahtzee"),
        [Seat("Ann"), Seat("Robo", "computer", "greedy")],
        seed=seed,
        strategy_factory=fallback_strategy,
        advisor=fake_advisor,
    )


def run_computer(session: Session) -> None:
    while session.computer_to_move:
        session.game.play(session.computer_action())


def test_rolloff_and_computer_turns_are_played_by_the_session() -> None:
    session = duel()
    assert session.computer_to_move  # the roll-off rolls itself
    run_computer(session)
    assert session.state.phase.value == "play"
    assert not session.computer_to_move or session.state.current == 1
    assert session.computer == {1: "greedy"}


def test_fallback_strategy_plays_whole_games_legally() -> None:
    for level, seed in (("greedy", 1), ("random", 2)):
        game = Game("kismet", ["A"], seed=seed)
        player = GreedyFallback(game.rules, seed, random_moves=level == "random")
        while not game.is_over:
            game.play(player.choose(game.state))
        assert game.state.total(0) >= 0
    greedy = Game("yahtzee", ["A"], seed=4)
    player = GreedyFallback(greedy.rules, 4)
    while not greedy.is_over:
        greedy.play(player.choose(greedy.state))
    assert greedy.state.total(0) > 100  # it does aim at points


def test_undo_takes_back_the_human_move_and_the_computer_moves_after_it() -> None:
    session = duel()
    run_computer(session)
    if session.state.current == 1:  # let the computer open, so Ann moves next
        run_computer(session)
    session.game.roll()
    session.game.score(next(iter(session.state.options()))[1])
    before_score = len(session.game.log) - 1
    run_computer(session)
    assert session.state.current == 0
    assert session.undo() > 1
    assert len(session.game.log) == before_score
    assert session.state.current == 0
    assert session.state.dice is not None  # Ann may now score elsewhere
    assert session.redo() > 1
    assert session.state.current == 0
    assert session.state.dice is None
    while isinstance(session.game.log[-1], Roll | Score):
        session.undo()
    assert isinstance(session.game.log[-1], RollOff)
    with pytest.raises(FiveDiceError, match="nothing to undo"):
        session.undo()


def test_save_and_load_keep_seats_hints_and_the_redo_stack(tmp_path: Path) -> None:
    session = duel()
    run_computer(session)
    session.game.roll()
    session.record_hint(len(session.game.log), session.state.current, fake_advisor(session.state))
    path = session.save(tmp_path / "s.json")
    again = Session.load(path, strategy_factory=fallback_strategy)
    assert again.game.log == session.game.log
    assert again.seats == session.seats
    assert again.hints == session.hints
    assert again.hint_counts == {session.state.current: 1}
    assert again.save_path == path
    assert [p for p, _ in saved_games(tmp_path)] == [path]
    assert (tmp_path / "s.seats.json").exists()
    assert saves.load(path).log == session.game.log  # the save itself is a standard engine save
    # without its seats file, every seat is human
    plain = tmp_path / "plain.json"
    saves.save(session.game, plain)
    loaded = Session.load(plain)
    assert all(not s.is_computer for s in loaded.seats)
    # damage is refused with a clear message
    side = tmp_path / "s.seats.json"
    data = json.loads(side.read_text())
    data["seats"][0]["name"] = "Zed"
    side.write_text(json.dumps(data))
    with pytest.raises(SaveFormatError, match="differ from the saved game"):
        Session.load(path)
    side.write_text("{not json")
    with pytest.raises(SaveFormatError, match="damaged"):
        Session.load(path)
    again.remove_save()
    assert not path.exists()
    assert not side.exists()


def test_hints_expire_with_undone_moves() -> None:
    session = duel()
    run_computer(session)
    session.game.roll()
    session.record_hint(len(session.game.log), 0, [HintLine("keep 6", 1.0, 0.0)])
    assert session.hint_counts == {0: 1}
    session.game.undo(2)
    assert session.hint_counts == {}


def test_words_for_actions_and_seats() -> None:
    yahtzee = rules.get("yahtzee")
    assert describe_action(yahtzee, Roll((0, 2)), (3, 1, 3, 6, 5)) == "keep 3 3"
    assert describe_action(yahtzee, Roll()) == "roll all"
    assert describe_action(yahtzee, Score("full_house")) == "score Full House"
    assert parse_seats(["Ann", "Robo:"]) == [Seat("Ann"), Seat("Robo", "computer", "greedy")]
    game = Game(yahtzee, ["A"], seed=1)
    game.roll()
    lines = greedy_reasoning(game.state)
    assert lines[0].loss == 0.0
    assert [x.value for x in lines] == sorted((x.value for x in lines), reverse=True)


def test_unknown_levels_and_mismatched_seats_are_refused() -> None:
    with pytest.raises(FiveDiceError, match="unknown"):
        Session.new(rules.get("yacht"), [Seat("A", "computer", "grandmaster")])
    with pytest.raises(FiveDiceError, match="seats were given"):
        Session(Game("yacht", ["A", "B"]), (Seat("A"),))


def test_a_terminal_save_resumes_in_the_plain_line_mode(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from fivedice.cli import main

    session = duel()
    run_computer(session)
    session.game.roll()
    path = session.save(tmp_path / "g.json")
    out = CliRunner().invoke(main, ["play", "--plain", "--load", str(path)], input="card\nquit\n")
    assert out.exit_code == 0, out.output
    assert "Robo" in out.output


def test_play_falls_back_to_the_plain_mode_outside_a_terminal() -> None:
    from click.testing import CliRunner

    from fivedice.cli import main

    out = CliRunner().invoke(main, ["play", "--players", "Ann", "--seed", "3", "--rules", "yacht"], input="quit\n")
    assert out.exit_code == 0, out.output
    assert "Not a terminal: playing in the plain line mode." in out.output
    assert "Yacht (yacht) for Ann" in out.output
