"""Game analysis: every decision rated against the solver, per-player summaries, the command."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from fivedice import Game, rules, saves
from fivedice.cli import main
from fivedice.players import get, play_game
from fivedice.services.analysis import AnalysisError, analyze, grade


@pytest.fixture(scope="module")
def duel() -> Game:
    rs = rules.get("yahtzee")
    game = Game(rs, ["Easy", "Best"], seed=21, starter=0)
    return play_game(game, [get("easy", rs, seed=4), get("optimal", rs)])


def test_optimal_loses_exactly_nothing_and_easy_loses_points(duel: Game) -> None:
    analysis = analyze(duel)
    easy, best = analysis.players
    assert (easy.player, best.player) == ("Easy", "Best")
    assert best.total_loss == 0.0
    assert best.mistakes == 0
    assert best.grade == "A+"
    assert easy.total_loss > 0
    assert easy.mistakes > 0
    assert easy.grade != "A+"
    assert easy.mean_loss == pytest.approx(easy.total_loss / easy.decisions)
    assert (easy.score, best.score) == duel.state.totals
    # Every decision after a roll is rated: at least one score per round for each player.
    assert best.decisions >= 13
    assert sum(1 for d in analysis.decisions if d.seat == 1 and d.chosen.startswith("score")) == 13


def test_each_decision_names_the_choice_the_best_and_the_loss(duel: Game) -> None:
    analysis = analyze(duel)
    for d in analysis.decisions:
        assert d.loss == pytest.approx(d.best_value - d.chosen_value, abs=1e-9)
        assert d.loss >= 0
        assert 1 <= d.round <= 13
        assert 1 <= d.roll <= 3
        assert (d.loss == 0) == (d.chosen_value == d.best_value)
    mistake = next(d for d in analysis.decisions if d.loss > 0)
    assert mistake.chosen != mistake.best


def test_grades_follow_the_mean_loss() -> None:
    assert grade(0.0) == "A+"
    assert [grade(x) for x in (0.1, 0.3, 0.6, 1.0, 5.0)] == ["A", "B", "C", "D", "F"]


def test_analysis_json_and_command(tmp_path: Path, duel: Game) -> None:
    data = analyze(duel).to_json()
    assert json.loads(json.dumps(data)) == data
    assert data["players"][1]["total_loss"] == 0.0
    path = tmp_path / "game.json"
    saves.save(duel, path)
    runner = CliRunner()
    out = runner.invoke(main, ["analyze", str(path), "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["players"][0]["player"] == "Easy"
    out = runner.invoke(main, ["analyze", str(path)])
    assert out.exit_code == 0, out.output
    assert "summary" in out.output
    assert "A+" in out.output


def test_rules_beyond_the_solver_are_refused(tmp_path: Path) -> None:
    rs = rules.get("yahtzee", cards="jetsi")
    game = Game(rs, ["A"], seed=1)
    game.roll()
    with pytest.raises(AnalysisError, match="cannot be analysed"):
        analyze(game)
    path = tmp_path / "jetsi.json"
    saves.save(game, path)
    out = CliRunner().invoke(main, ["analyze", str(path)])
    assert out.exit_code == 2
    assert "cannot be analysed" in out.output


def test_progress_runs_from_the_optimal_mean_to_the_final_score(duel: Game) -> None:
    from fivedice.players.solved import solver_for

    analysis = analyze(duel)
    solver = solver_for(duel.rules)
    assert len(analysis.progress) == 2
    for seat, points in enumerate(analysis.progress):
        assert [p.round for p in points] == list(range(14))
        assert points[0].score == 0
        assert points[0].expected == pytest.approx(254.58773, abs=1e-4)
        assert points[-1].score == duel.state.totals[seat]
        assert points[-1].expected == pytest.approx(points[-1].score)
        assert all(b.score >= a.score for a, b in itertools.pairwise(points))
    # a middle point: the points so far plus what the solver expects from that card on
    state = duel.initial
    for record in duel.log:
        seat = state.current
        state = state.apply(record)
        filled = sum(e is not None for e in state.cards[0][0].entries)
        if filled == 5 and seat == 0 and record.__class__.__name__ == "Score":
            break
    card = state.cards[0][0]
    point = analysis.progress[0][5]
    assert point.score == state.total(0)
    assert point.expected == pytest.approx(state.total(0) + solver.state_value(card))
    data = analysis.to_json()
    assert data["progress"][1][0] == {
        "round": 0,
        "score": 0,
        "expected": pytest.approx(254.58773, abs=1e-4),
        "luck": 0.0,
        "loss": 0.0,
    }


def test_analysis_by_win_rates_decisions_by_the_chance_to_win(tmp_path: Path) -> None:
    rs = rules.get("yacht")
    game = play_game(Game(rs, ["Win", "Greedy"], seed=5, starter=0), [get("win", rs), get("greedy", rs)])
    analysis = analyze(game, by="win")
    assert analysis.by == "win"
    assert all(0.0 <= d.best_value <= 1.0 and 0.0 <= d.chosen_value <= d.best_value + 1e-12 for d in analysis.decisions)
    late = [d for d in analysis.decisions if d.seat == 0 and d.round >= rs.rounds - 2]
    assert all(d.loss < 1e-4 for d in late)  # win plays for the chance to win at the end (points break ties)
    path = tmp_path / "game.json"
    saves.save(game, path)
    result = CliRunner().invoke(main, ["analyze", str(path), "--by", "win", "--json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["by"] == "win"


def test_analysis_by_win_needs_rivals_and_a_known_rating() -> None:
    rs = rules.get("yacht")
    game = play_game(Game(rs, ["Solo"], seed=1), [get("greedy", rs)])
    with pytest.raises(AnalysisError, match=r"^Rating by the chance to win needs a game of two or more players\.$"):
        analyze(game, by="win")
    with pytest.raises(AnalysisError, match=r"^Rating 'luck' is unknown; expected one of: points, win\.$"):
        analyze(game, by="luck")


SINGLE_CARD = ("yahtzee", "yacht", "yatzy", "kismet", "generala")
"""Every built-in single-card rule set (the ones with shipped solver tables)."""


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(SINGLE_CARD),
    seed=st.integers(0, 2**31),
    levels=st.lists(st.sampled_from(["random", "greedy", "easy", "medium", "optimal"]), min_size=1, max_size=3),
)
@example(name="generala", seed=187, levels=["greedy"])  # a served Generala wins at once with boxes open
@example(name="generala", seed=22, levels=["greedy", "greedy"])  # so does a rival's, with both cards open
def test_luck_minus_loss_is_the_score_against_the_optimal_mean(name: str, seed: int, levels: list[str]) -> None:
    rs = rules.get(name)
    names = [f"P{i}" for i in range(len(levels))]
    game = play_game(Game(rs, names, seed=seed), [get(level, rs, seed=seed + i) for i, level in enumerate(levels)])
    analysis = analyze(game)
    for p, points in zip(analysis.players, analysis.progress, strict=True):
        assert p.points_loss == p.total_loss
        assert p.score - p.optimal == pytest.approx(p.luck - p.total_loss, abs=1e-6)
        assert sum(d.luck for d in analysis.decisions if d.seat == p.seat) == pytest.approx(p.luck, abs=1e-6)
        for point in points:  # round by round, too
            assert point.expected - p.optimal == pytest.approx(point.luck - point.loss, abs=1e-6)
        assert (points[-1].luck, points[-1].loss) == pytest.approx((p.luck, p.total_loss), abs=1e-9)
        if levels[p.seat] == "optimal":
            assert p.total_loss == 0.0
            assert p.score - p.optimal == pytest.approx(p.luck, abs=1e-6)


def test_luck_is_in_the_json_beside_the_loss(duel: Game) -> None:
    data = analyze(duel).to_json()
    for p in data["players"]:
        assert p["score"] - p["optimal"] == pytest.approx(p["luck"] - p["total_loss"], abs=1e-6)
    assert data["progress"][0][0]["luck"] == 0.0


def test_analyze_last_rates_the_newest_stored_game(tmp_path: Path, duel: Game, monkeypatch: pytest.MonkeyPatch) -> None:
    from fivedice.storage import Store

    monkeypatch.setenv("FIVEDICE_DB", str(tmp_path / "scores.db"))
    runner = CliRunner()
    empty = runner.invoke(main, ["analyze", "--last"])
    assert empty.exit_code == 2
    assert "no finished game yet" in empty.output
    with Store() as store:
        store.record_game(play_game(Game(rules.get("yacht"), ["Old"], seed=3), [get("greedy", rules.get("yacht"))]))
        store.record_game(duel)
    out = runner.invoke(main, ["analyze", "--last", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert [p["player"] for p in data["players"]] == ["Easy", "Best"]
    assert data["players"][0]["luck"] == pytest.approx(analyze(duel).players[0].luck)
    text = runner.invoke(main, ["analyze", "--last"])
    assert f"Easy: {duel.state.totals[0]} = 254.6 expected" in text.output
    both = runner.invoke(main, ["analyze", "--last", str(tmp_path / "x.json")])
    assert both.exit_code == 2
    assert "either PATH or --last" in both.output


def test_the_line_mode_ends_with_each_players_luck_and_decisions() -> None:
    import io

    from fivedice.cli.plain import play_plain

    out = io.StringIO()
    assert play_plain(rules.get("yacht"), "Max:greedy", out, lambda prompt: None, seed=4) == 0
    text = out.getvalue()
    tail = text[text.index("Luck and decisions:") :].splitlines()
    assert tail[1].startswith("Max: ")
    assert "169.8 expected" in tail[1]


def test_by_win_the_chance_splits_into_luck_and_decisions_exactly(tmp_path: Path) -> None:
    rs = rules.get("yacht")
    for seed, levels in ((5, ("win", "greedy")), (9, ("easy", "win", "greedy"))):
        names = [f"P{i}" for i in range(len(levels))]
        game = play_game(Game(rs, names, seed=seed), [get(level, rs, seed=seed) for level in levels])
        analysis = analyze(game, by="win")
        firsts = [s.seat for s in game.state.standings() if s.place == 1]
        for p in analysis.players:
            assert p.win_start == pytest.approx(1 / len(levels))
            assert p.win_outcome == (1 / len(firsts) if p.seat in firsts else 0.0)
            assert p.win_luck is not None
            assert p.win_outcome is not None
            assert p.win_start is not None
            assert p.win_outcome - p.win_start == pytest.approx(p.win_luck - p.total_loss, abs=1e-9)
            # the points split stays beside it
            assert p.score - p.optimal == pytest.approx(p.luck - p.points_loss, abs=1e-6)
    assert sum(p.win_outcome or 0.0 for p in analysis.players) == pytest.approx(1.0)
    path = tmp_path / "game.json"
    saves.save(game, path)
    out = CliRunner().invoke(main, ["analyze", str(path), "--by", "win"])
    assert out.exit_code == 0, out.output
    assert "P1: won " in out.output
    assert "at the start" in out.output
