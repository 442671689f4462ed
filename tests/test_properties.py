"""Property tests: random legal play of every rule set, undo/redo, replay, illegal actions."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fivedice import Game, rules
from fivedice.engine.actions import Action, Roll, RollOff, Score
from fivedice.errors import FiveDiceError

SPECS = [
    "yahtzee",
    "yahtzee joker=free",
    "yahtzee joker=none yahtzee_bonus=0",
    "yahtzee order=upper_first",
    "yahtzee order=top_down",
    "yahtzee order=bottom_up",
    "yahtzee cards=jetsi",
    "yacht",
    "yacht four_kind=four_dice",
    "yatzy",
    "yatzy forced=yes",
    "kismet",
    "kismet tali=yes",
    "generala instant_win=no",
    "generala",
]

fast = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def play_out(spec: str, players: int, seed: int) -> Game:
    rng = random.Random(seed)
    game = Game(rules.parse_spec(spec), [f"P{i}" for i in range(players)], rng=random.Random(seed + 1))
    while not game.is_over:
        game.play(rng.choice(game.state.legal_actions()))
    return game


@fast
@given(st.sampled_from(SPECS), st.integers(1, 3), st.integers(0, 2**32))
def test_random_legal_play_fills_every_box_once(spec: str, players: int, seed: int) -> None:
    game = play_out(spec, players, seed)
    state = game.state
    rs = game.rules
    scores = [a for a in game.log if isinstance(a, Score)]
    if state.instant_winner is None:
        assert len(scores) == rs.rounds * players
        for seat in range(players):
            for card in state.cards[seat]:
                assert card.is_full
    filled = {
        (s, k, b)
        for s in range(players)
        for k, c in enumerate(state.cards[s])
        for b, e in enumerate(c.entries)
        if e is not None
    }
    assert len(filled) == len(scores), "no box is ever filled twice"
    for seat in range(players):
        for card in state.cards[seat]:
            upper = sum(card.entries[i] or 0 for i in rs.upper_indices)
            everything = sum(e or 0 for e in card.entries)
            bonus = rs.upper_bonus_for(upper)
            assert card.total == everything + bonus + card.yahtzee_bonuses * rs.yahtzee_bonus
    places = [s.place for s in state.standings()]
    assert places[0] == 1
    assert places == sorted(places)


@fast
@given(st.sampled_from(SPECS), st.integers(1, 3), st.integers(0, 2**32), st.data())
def test_undo_redo_and_replay(spec: str, players: int, seed: int, data: st.DataObject) -> None:
    game = play_out(spec, players, seed)
    final = game.state
    n = data.draw(st.integers(1, len(game.log)))
    game.undo(n)
    game.redo(n)
    assert game.state == final
    again = Game.replay(game.rules, game.players, game.log)
    assert again.state == final


def random_action(rng: random.Random, game: Game) -> Action:
    n = game.rules.dice
    choice = rng.randrange(4)
    if choice == 0:
        return RollOff(rng.randrange(-1, 4), tuple(rng.randrange(0, 8) for _ in range(rng.choice((n, n - 1)))))
    if choice == 1:
        held = tuple(rng.randrange(-1, n + 1) for _ in range(rng.randrange(0, n + 2)))
        return Roll(held, tuple(rng.randrange(0, 8) for _ in range(n)) if rng.random() < 0.5 else None)
    box = rng.choice([*game.rules.box_names, "nonsense", "Chance"])
    return Score(box, rng.randrange(-1, 4), rng.choice([None, rng.randrange(-5, 60)]))


@fast
@given(st.sampled_from(SPECS), st.integers(1, 3), st.integers(0, 2**32))
def test_illegal_actions_never_change_the_state(spec: str, players: int, seed: int) -> None:
    rng = random.Random(seed)
    game = Game(rules.parse_spec(spec), [f"P{i}" for i in range(players)], rng=random.Random(seed))
    for _ in range(150):
        if game.is_over:
            break
        action = random_action(rng, game)
        before = (game.state, game.log, game.redo_stack)
        if game.state.can(action):
            game.play(action)
            continue
        with pytest.raises(FiveDiceError, match=r"\.$"):
            game.play(action)
        assert (game.state, game.log, game.redo_stack) == before
        game.play(rng.choice(game.state.legal_actions()))
