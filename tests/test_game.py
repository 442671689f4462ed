"""The game engine: roll-off, turns, rolls, keeping, scoring, ranking, undo and redo."""

from __future__ import annotations

import random

import pytest

from fivedice import Game, rules
from fivedice.engine.actions import Roll, RollOff, Score
from fivedice.engine.state import GameState, Phase
from fivedice.errors import FiveDiceError, IllegalActionError


def test_rolloff_ties_roll_again_among_the_tied() -> None:
    game = Game("yahtzee", ["Ann", "Bob", "Cy"])
    assert game.state.phase is Phase.ROLLOFF
    game.roll(dice=(6, 6, 6, 6, 6))
    game.roll(dice=(1, 1, 1, 1, 1))
    game.roll(dice=(6, 6, 6, 6, 6))
    state = game.state
    assert state.phase is Phase.ROLLOFF
    assert state.contenders == (0, 2)
    assert state.current == 0
    game.roll(dice=(1, 2, 3, 4, 5))
    game.roll(dice=(2, 2, 3, 4, 5))
    assert game.state.phase.value == "play"
    assert game.state.starter == 2
    assert game.state.current == 2
    assert [a.seat for a in game.log if isinstance(a, RollOff)] == [0, 1, 2, 0, 2]


def test_turn_order_from_starter_wraps_by_seat() -> None:
    game = Game("yacht", ["Ann", "Bob", "Cy"], starter=1)
    seen = []
    for _ in range(4):
        seen.append(game.state.current)
        game.roll(dice=(1, 2, 3, 4, 5))
        game.score(next(b for (_, b) in game.state.options()))
    assert seen == [1, 2, 0, 1]


def test_keep_and_reroll_a_die_kept_earlier() -> None:
    game = Game("yahtzee", ["Ann"])
    game.roll(dice=(1, 2, 3, 4, 5))
    game.roll(keep=[0, 1], dice=(1, 2, 6, 6, 6))
    assert game.state.rolls == 2
    game.roll(keep=[2, 3, 4], dice=(5, 5, 6, 6, 6))  # die 1 and 2 kept before, rolled now
    assert game.state.dice == (5, 5, 6, 6, 6)
    with pytest.raises(IllegalActionError, match="used all 3 rolls"):
        game.roll()
    assert game.score("full_house") == Score("full_house", 0, 25)


def test_kept_dice_must_not_change_in_physical_mode() -> None:
    game = Game("yahtzee", ["Ann"])
    game.roll(dice=(1, 2, 3, 4, 5))
    with pytest.raises(IllegalActionError, match="Die 1 is kept at 1"):
        game.roll(keep=[0], dice=(2, 2, 3, 4, 5))
    assert game.state.rolls == 1


@pytest.mark.parametrize(
    ("setup", "action", "message"),
    [
        ([], Score("chance"), "must roll before scoring"),
        ([], Roll((0,)), "cannot keep dice before"),
        ([Roll((), (1, 2, 3, 4, 5))], Roll((0, 1, 2, 3, 4)), "same as stopping"),
        ([Roll((), (1, 2, 3, 4, 5))], Roll((7,)), "not a die"),
        ([Roll((), (1, 2, 3, 4, 5))], Roll((1, 1)), "twice"),
        ([Roll((), (1, 2, 3, 4, 5))], Score("nope"), "not in the yahtzee rule set"),
        ([Roll((), (1, 2, 3, 4, 5))], Score("chance", card=2), "not one of Ann's cards"),
        ([Roll((), (1, 2, 3, 4, 5))], Roll((), (1, 2, 3, 4, 9)), "whole numbers from 1 to 6"),
        ([Roll((), (1, 2, 3, 4, 5))], RollOff(0, (1, 2, 3, 4, 5)), "roll-off is over"),
        ([Roll((), (1, 2, 3, 4, 5)), Score("chance", 0, 15), Roll((), (1, 2, 3, 4, 5))], Score("chance"),
         r"^Box 'chance' is already filled for Ann \(round 2\)\.$"),
    ],
)  # fmt: skip
def test_illegal_actions_raise_one_sentence_and_change_nothing(
    setup: list[Roll | Score], action: Roll | Score | RollOff, message: str
) -> None:
    game = Game("yahtzee", ["Ann"])
    for a in setup:
        game.play(a)
    before = game.state, game.log
    assert not game.state.can(action)
    with pytest.raises(IllegalActionError, match=message) as info:
        game.play(action)
    assert isinstance(info.value, FiveDiceError)
    text = str(info.value)
    assert text.endswith("."), text
    assert text.count(". ") == 0, text
    assert (game.state, game.log) == before


def test_ranking_shares_places() -> None:
    game = Game("yacht", ["Ann", "Bob", "Cy"], starter=0)
    dice = {0: (6, 6, 6, 6, 6), 1: (1, 1, 1, 1, 1), 2: (6, 6, 6, 6, 6)}
    while not game.is_over:
        seat = game.state.current
        game.roll(dice=dice[seat])
        game.score(max(game.state.options().items(), key=lambda kv: kv[1])[0][1])
    places = [(s.place, s.name) for s in game.state.standings()]
    assert places == [(1, "Ann"), (1, "Cy"), (3, "Bob")]
    assert game.state.totals[0] == game.state.totals[2]


def test_generala_served_wins_at_once() -> None:
    game = Game("generala", ["Ann", "Bob"], starter=0)
    game.roll(dice=(3, 3, 3, 3, 3))
    game.score("generala")
    assert game.is_over
    assert game.state.instant_winner == 0
    assert game.state.standings()[0].name == "Ann"


def test_generala_on_second_roll_does_not_win() -> None:
    game = Game("generala", ["Ann", "Bob"], starter=0)
    game.roll(dice=(3, 3, 3, 3, 1))
    game.roll(keep=[0, 1, 2, 3], dice=(3, 3, 3, 3, 3))
    assert game.score("generala") == Score("generala", 0, 50)
    assert not game.is_over


def test_jetsi_three_cards_39_rounds() -> None:
    rs = rules.get("yahtzee", cards="jetsi")
    game = Game(rs, ["Ann"], rng=random.Random(3))
    turns = 0
    while not game.is_over:
        game.roll()
        (card, box), _ = next(iter(game.state.options().items()))
        game.score(box, card)
        turns += 1
    assert turns == 39
    cards = game.state.cards[0]
    assert all(c.is_full for c in cards)
    assert game.state.total(0) == sum(c.total for c in cards)


def test_undo_redo_many() -> None:
    game = Game("yahtzee", ["Ann", "Bob"], rng=random.Random(5))
    states = [game.state]
    for _ in range(20):
        game.play(random.Random(len(game.log)).choice(game.state.legal_actions()))
        states.append(game.state)
    game.undo(20)
    assert game.state == states[0]
    game.redo(7)
    assert game.state == states[7]
    with pytest.raises(IllegalActionError, match="Cannot undo 99"):
        game.undo(99)
    game.roll() if game.state.rolls_left and game.state.phase is Phase.PLAY else game.play(
        game.state.legal_actions()[0]
    )
    assert game.redoable == 0, "a new action clears the redo stack"
    assert game.can_redo() is False
    assert game.can_undo() is True
    assert game.undoable == len(game.log)


def test_rng_injected_numpy_and_seeded() -> None:
    np = pytest.importorskip("numpy")
    a = Game("yahtzee", ["Ann"], rng=np.random.default_rng(9))
    b = Game("yahtzee", ["Ann"], rng=np.random.default_rng(9))
    assert a.roll() == b.roll()
    assert Game("yahtzee", ["A"], seed=4).roll() == Game("yahtzee", ["A"], seed=4).roll()


def test_players_validated() -> None:
    with pytest.raises(IllegalActionError, match="at least one player"):
        Game("yahtzee", [])
    with pytest.raises(IllegalActionError, match="given twice"):
        Game("yahtzee", ["Ann", "ann"])
    assert Game("yahtzee", [f"P{i}" for i in range(12)]).state.phase is Phase.ROLLOFF


def test_legal_actions_are_distinct_keeps_and_boxes() -> None:
    state = GameState.new(rules.get("yahtzee"), ("Ann",))
    state = state.apply(Roll((), (2, 2, 3, 3, 3)))
    keeps = [a for a in state.legal_actions() if isinstance(a, Roll)]
    values = {tuple(sorted(state.dice[p] for p in a.held)) for a in keeps}  # type: ignore[index]
    assert len(keeps) == len(values) == 11  # 3 * 4 sub-multisets of {2,2,3,3,3} less the full keep
    assert sum(isinstance(a, Score) for a in state.legal_actions()) == 13
