"""The solver-free players and the within-turn machinery they share."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest

from fivedice import Game, rules
from fivedice.dice import counts_of
from fivedice.engine.actions import Roll, RollOff, Score
from fivedice.engine.scorecard import Scorecard
from fivedice.engine.state import GameState, Phase
from fivedice.errors import FiveDiceError
from fivedice.players import LEVELS, Strategy, UnknownStrategyError, get, play_game, play_turn
from fivedice.players.basic import GreedyPlayer
from fivedice.players.turn import dice_space, gains, option_table

SPECS = [
    "yahtzee",
    "yahtzee joker=free",
    "yahtzee order=top_down",
    "yahtzee cards=jetsi",
    "yacht",
    "yatzy",
    "kismet",
    "generala",
]


def _state(spec: str, dice: tuple[int, ...], rolls: int, card: Scorecard | None = None) -> GameState:
    rs = rules.parse_spec(spec)
    state = GameState.new(rs, ("A",))
    if card is not None:
        state = replace(state, cards=((card,),))
    return replace(state, dice=dice, rolls=rolls)


@pytest.mark.parametrize("level", ["random", "greedy", "tali"])
@pytest.mark.parametrize("spec", SPECS)
def test_every_basic_level_finishes_every_rule_set_with_legal_moves(level: str, spec: str) -> None:
    rs = rules.parse_spec(spec)
    game = Game(rs, ["A", "B"], seed=11)
    play_game(game, [get(level, rs, seed=1), get(level, rs, seed=2)])  # Game.play verifies every move
    assert game.is_over
    if rs.instant_win is None:
        assert all(c.is_full for cards in game.state.cards for c in cards)


def test_levels_have_descriptions_and_unknown_levels_fail() -> None:
    assert {"random", "greedy", "tali", "optimal", "easy", "medium", "hard", "win"} <= set(LEVELS)
    with pytest.raises(UnknownStrategyError, match="'genius' is unknown") as info:
        get("genius", rules.get("yahtzee"))
    assert isinstance(info.value, FiveDiceError)
    assert isinstance(get("greedy", rules.get("yahtzee")), Strategy)


def test_same_seed_same_game() -> None:
    rs = rules.get("yahtzee")
    logs = []
    for _ in range(2):
        game = Game(rs, ["A"], seed=4)
        play_game(game, [get("tali", rs, seed=9)])
        logs.append(game.log)
    assert logs[0] == logs[1]


def test_play_turn_plays_one_rolloff_roll_then_whole_turns() -> None:
    rs = rules.get("yacht")
    game = Game(rs, ["A", "B"], seed=2)
    records = play_turn(game, get("greedy", rs))
    assert len(records) == 1
    assert isinstance(records[0], RollOff)
    while game.state.phase is Phase.ROLLOFF:
        play_turn(game, get("greedy", rs))
    records = play_turn(game, get("greedy", rs))
    assert isinstance(records[-1], Score)
    assert all(isinstance(r, Roll) for r in records[:-1])
    assert game.state.turns == 1


def test_greedy_scores_the_most_points_on_the_last_roll() -> None:
    greedy = GreedyPlayer(rules.get("yahtzee"))
    assert greedy.choose(_state("yahtzee", (1, 2, 3, 4, 5), 3)) == Score("large_straight", 0)
    assert greedy.choose(_state("yahtzee", (6, 6, 6, 6, 6), 1)) == Score("yahtzee", 0)
    # Nothing scores: the first box on the card takes the zero... unless Chance is open.
    assert greedy.choose(_state("yahtzee", (1, 1, 2, 2, 6), 3)) == Score("chance", 0)


def test_greedy_counts_the_upper_bonus_it_would_complete() -> None:
    rs = rules.get("yahtzee")
    card = Scorecard.empty(rs)
    for box, dice in [("aces", (1, 1, 1, 2, 3)), ("twos", (2, 2, 2, 1, 3)), ("threes", (3, 3, 3, 1, 2)),
                      ("fours", (4, 4, 4, 1, 2)), ("fives", (5, 5, 5, 1, 2)), ("chance", (1, 1, 1, 1, 2))]:  # fmt: skip
        card = card.fill(box, dice)
    card = card.fill("three_of_a_kind", (1, 1, 1, 1, 2))
    # Upper total 45: three 6s (18) reach 63 and the 35 bonus: 53 beats Three... (filled) and Four of a Kind.
    state = _state("yahtzee", (6, 6, 6, 5, 5), 3, card)
    gain = gains(card, option_table(card, 3))
    j = dice_space(5).index_of((6, 6, 6, 5, 5))
    assert gain[j, rs.box_index("sixes")] == 18 + 35
    assert GreedyPlayer(rs).choose(state) == Score("sixes", 0)


def _brute_keep_values(rs: rules.RuleSet, card: Scorecard, dice: tuple[int, ...]) -> dict[tuple[int, ...], float]:
    """Expected best immediate points after one reroll, by brute force over 6**k outcomes."""
    out: dict[tuple[int, ...], float] = {}
    for size in range(len(dice)):
        for keep in set(itertools.combinations(sorted(dice), size)):
            free = len(dice) - size
            total = 0.0
            for rolled in itertools.product(range(1, 7), repeat=free):
                final = keep + rolled
                options = card.option_indices(counts_of(final), 3)
                bonus = rs.yahtzee_bonus if card.is_extra_yahtzee(final) else 0
                total += max(p + bonus for p in options.values())
            out[keep] = total / 6**free
    return out


def test_turn_plan_matches_brute_force_on_the_last_reroll() -> None:
    rs = rules.get("yacht")
    card = Scorecard.empty(rs).fill("yacht", (2, 2, 2, 2, 2)).fill("choice", (1, 2, 3, 4, 5))
    dice = (3, 3, 5, 6, 1)
    greedy = GreedyPlayer(rs)
    state = _state("yacht", dice, 2, card)
    plan, _ = greedy.plan(state)
    brute = _brute_keep_values(rs, card, dice)
    space = dice_space(5)
    for keep, value in brute.items():
        assert plan.keep[1, space.keep_index[keep]] == pytest.approx(value)
    best = max(brute, key=lambda k: brute[k])
    action = greedy.choose(state)
    assert isinstance(action, Roll)
    assert tuple(sorted(dice[p] for p in action.held)) == best


def test_dice_space_probabilities() -> None:
    space = dice_space(5)
    assert np.allclose(space.trans.sum(axis=1), 1.0)
    # Keeping four 6s: a fifth 6 with chance 1/6.
    k = space.keep_index[(6, 6, 6, 6)]
    assert space.trans[k, space.index_of((6, 6, 6, 6, 6))] == pytest.approx(1 / 6)
    assert space.trans[space.keep_index[()], space.index_of((1, 2, 3, 4, 5))] == pytest.approx(120 / 7776)
    assert space.sub[space.keep_index[(1, 1)], space.index_of((1, 1, 2, 3, 4))]
    assert not space.sub[space.keep_index[(1, 1)], space.index_of((1, 2, 2, 3, 4))]


def _cards() -> list[Scorecard]:
    out = []
    for spec in ("yahtzee", "yahtzee joker=free", "yahtzee joker=none", "generala", "kismet"):
        rs = rules.parse_spec(spec)
        empty = Scorecard.empty(rs)
        out.append(empty)
        assert rs.yahtzee_box is not None
        y = empty.fill(rs.yahtzee_box, (5, 5, 5, 5, 5))
        out.append(y)
        out.append(y.fill("fives", (5, 5, 1, 2, 3)))
        out.append(empty.fill(rs.yahtzee_box, (1, 2, 3, 4, 6)).fill("fives", (5, 1, 1, 2, 3)))
    card = Scorecard.empty(rules.get("yahtzee", order="upper_first"))
    for box in ("aces", "twos", "threes", "fours", "sixes"):
        card = card.fill(box, (1, 2, 3, 4, 6))
    out.append(card)
    return out


@pytest.mark.parametrize("card", _cards(), ids=lambda c: f"{c.rules.spec}-{sum(e is not None for e in c.entries)}")
@pytest.mark.parametrize("roll", [1, 3])
def test_option_table_agrees_with_the_score_card(card: Scorecard, roll: int) -> None:
    table = option_table(card, roll)
    for j, dice in enumerate(dice_space(5).rolls):
        options = card.option_indices(counts_of(dice), roll)
        assert set(np.flatnonzero(table.legal[j]).tolist()) == set(options)
        assert {i: int(table.points[j, i]) for i in options} == options
        assert bool(table.extra[j]) == card.is_extra_yahtzee(dice)


def test_tali_keeps_a_made_yahtzee_and_scores_it() -> None:
    tali = get("tali", rules.get("yahtzee"), seed=3)
    assert tali.choose(_state("yahtzee", (4, 4, 4, 4, 4), 1)) == Score("yahtzee", 0)
    action = tali.choose(_state("yahtzee", (4, 4, 4, 4, 1), 1))
    assert isinstance(action, Roll)
    assert len(action.held) == 4


def test_mean_scores_rank_the_levels() -> None:
    rs = rules.get("yahtzee")
    means = {}
    for level in ("random", "greedy"):
        totals = []
        for g in range(12):
            game = Game(rs, ["A"], seed=g)
            play_game(game, [get(level, rs, seed=g)])
            totals.append(game.state.totals[0])
        means[level] = sum(totals) / len(totals)
    assert means["random"] < 100 < 150 < means["greedy"]
