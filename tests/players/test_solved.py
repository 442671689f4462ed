"""The solver-based players: optimal, the noisy human-like levels and the win player."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from fivedice import Game, rules
from fivedice.engine.actions import Roll, Score
from fivedice.engine.scorecard import Scorecard
from fivedice.engine.state import GameState
from fivedice.players import UnknownStrategyError, get, play_game
from fivedice.players.solved import (
    NOISE,
    ExpectedPlayer,
    NoisyPlayer,
    OptimalPlayer,
    solver_for,
)
from fivedice.players.win import WinPlayer, beat_chance, last_turn_distribution, spread_model


@pytest.mark.parametrize("spec", ["yahtzee", "yacht", "generala"])
def test_turn_planner_on_solver_values_plays_exactly_as_the_solver(spec: str) -> None:
    rs = rules.parse_spec(spec)
    solver = solver_for(rs)
    planner, optimal = ExpectedPlayer(rs), OptimalPlayer(rs)
    game = Game(rs, ["A"], seed=5)
    walker = get("random", rs, seed=2)
    checked = 0
    while not game.is_over:
        state = game.state
        if state.dice is not None:
            assert planner.choose(state) == optimal.choose(state)
            plan, _ = planner.plan(state)
            for option in solver.advise(state.cards[0][0], state.dice, state.rolls_left):
                if option.action == "keep":
                    keep = planner.space.keep_index[tuple(sorted(option.dice))]
                    assert plan.keep[state.rolls - 1, keep] == pytest.approx(option.value, abs=1e-9)
            checked += 1
        game.play(walker.choose(state))
    assert checked >= rs.rounds


def test_noise_levels_without_noise_play_the_best_move_and_with_blunders_any_move() -> None:
    rs = rules.get("yahtzee")
    state = replace(GameState.new(rs, ("A",)), dice=(2, 2, 5, 6, 6), rolls=1)
    sharp = NoisyPlayer(rs, 1, temperature=1e-6, blunder=0.0, name="sharp")
    best = OptimalPlayer(rs).choose(state)
    assert all(sharp.choose(state) == best for _ in range(20))
    wild = NoisyPlayer(rs, 1, temperature=1.0, blunder=1.0, name="wild")
    picks = {wild.choose(state) for _ in range(200)}
    assert len(picks) > 15
    assert all(state.can(p) for p in picks)


def test_noisy_levels_rank_by_mean_score() -> None:
    rs = rules.get("yahtzee")
    assert NOISE["easy"][0] > NOISE["medium"][0] > NOISE["hard"][0]
    means = {}
    for level in ("easy", "medium", "optimal"):
        totals = []
        for g in range(40):
            game = Game(rs, ["A"], seed=1000 + g)
            play_game(game, [get(level, rs, seed=g)])
            totals.append(game.state.totals[0])
        means[level] = float(np.mean(totals))
    assert means["easy"] < means["medium"] < means["optimal"]
    assert 140 < means["easy"] < 215


def test_solver_levels_need_one_card() -> None:
    with pytest.raises(UnknownStrategyError, match=r"^Computer level 'optimal' needs the solver: .*3 score cards"):
        get("optimal", rules.get("yahtzee", cards="jetsi"))


def test_beat_chance_shares_ties() -> None:
    rival = (np.array([10, 20]), np.array([0.25, 0.75]))
    assert beat_chance(np.array([5, 10, 15, 20, 25]), rival).tolist() == [0.0, 0.125, 0.25, 0.625, 1.0]


def test_last_turn_distribution_is_exact() -> None:
    rs = rules.get("yahtzee")
    card = _filled(rs, [b for b in rs.box_names if b != "yahtzee"], (1, 2, 3, 4, 6))
    values, probs = last_turn_distribution(card)
    assert values.tolist() == [0, 50]
    assert probs.sum() == pytest.approx(1.0)
    # Chasing five alike with three rolls succeeds 4.6% of the time.
    assert probs[1] == pytest.approx(0.04603, abs=1e-5)
    card = _filled(rs, [b for b in rs.box_names if b != "chance"], (1, 2, 3, 4, 6))
    values, probs = last_turn_distribution(card)
    mean = float(values @ probs)
    assert mean == pytest.approx(23.33, abs=0.01)  # the known optimal mean of Chance alone


def _filled(rs: rules.RuleSet, boxes: list[str], dice: tuple[int, ...]) -> Scorecard:
    card = Scorecard.empty(rs)
    for box in boxes:
        card = card.fill(box, dice)
    return card


def test_win_player_gambles_on_the_last_turn_when_stopping_loses() -> None:
    rs = rules.get("yahtzee")
    mine = _filled(rs, [b for b in rs.box_names if b != "chance"], (1, 2, 3, 4, 6))
    theirs = mine.fill("chance", (6, 6, 6, 6, 3))  # the opponent is done, 27 ahead: we need 28
    state = GameState.new(rs, ("Me", "You"), starter=0)
    state = replace(state, cards=((mine,), (theirs,)), dice=(6, 6, 5, 5, 4), rolls=2, turns=2 * rs.rounds - 1)
    assert OptimalPlayer(rs).choose(state) == Score("chance", 0)  # 26 now beats a 25.5 average
    action = WinPlayer(rs, model=spread_model(rs, games=50)).choose(state)
    assert isinstance(action, Roll)
    assert sorted((6, 6, 5, 5, 4)[p] for p in action.held) == [5, 5, 6, 6]  # a 6 wins, a 5 ties


def test_win_player_alone_plays_for_points() -> None:
    rs = rules.get("yacht")
    game = Game(rs, ["A"], seed=8)
    win, planner = WinPlayer(rs, model=spread_model(rs, games=50)), ExpectedPlayer(rs)
    while not game.is_over:
        state = game.state
        if state.dice is not None:
            assert win.choose(state) == planner.choose(state)
        game.play(win.choose(state))


def test_last_turn_distributions_kept_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A long simulation or server meets ever new cards: the remembered distributions stay at most
    ``LAST_KEPT`` (they grew by one per card with one box open, without end), and still answer right."""
    from fivedice.players import win

    monkeypatch.setattr(win, "_LAST", {})
    monkeypatch.setattr(win, "LAST_KEPT", 3)
    rs = rules.get("yahtzee")
    cards = [_filled(rs, [b for b in rs.box_names if b != "chance"], (1, 2, 3, 4, face)) for face in range(1, 7)]
    for card in cards:
        last_turn_distribution(card)
        assert len(win._LAST) <= 3
    values, probs = last_turn_distribution(cards[0])  # dropped long ago: made again, the same
    assert float(values @ probs) == pytest.approx(23.33, abs=0.01)
