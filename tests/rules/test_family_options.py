"""Kismet's and Generala's options from their published rules (docs/RULES.md names the sources):
Kismet's second Kismet and its one-die roll for the first player, Generala's 3-4-5-6-1 Straight and its
Double Generala."""

from __future__ import annotations

import pytest

from fivedice import rules
from fivedice.engine.actions import Roll, RollOff, Score
from fivedice.engine.render import rules_card
from fivedice.engine.scorecard import Scorecard
from fivedice.engine.state import GameState, Phase
from fivedice.errors import IllegalActionError
from fivedice.solver import solve

SECOND = rules.get("kismet", second_kismet="yes")
DOUBLE = rules.get("generala", double_generala="yes")


def turn(state: GameState, dice: tuple[int, ...], box: str, roll: int = 1) -> GameState:
    """The current player rolls ``dice`` (on roll number ``roll``) and scores them in ``box``."""
    for _ in range(roll):
        state = state.apply(Roll((), dice))
    return state.apply(state.complete(Score(box), None))


# -- Generala ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("dice", "roll", "points"), [((3, 4, 5, 6, 1), 2, 20), ((6, 1, 5, 3, 4), 1, 25)])
def test_the_ace_straight_3_4_5_6_1(dice: tuple[int, ...], roll: int, points: int) -> None:
    assert rules.get("generala", ace_straight="yes").score("straight", dice, roll=roll) == points
    assert rules.get("generala").score("straight", dice, roll=roll) == 0  # the default: 1-2-3-4-5 or 2-3-4-5-6
    assert rules.get("generala", ace_straight="yes").score("straight", (4, 5, 6, 1, 2)) == 0  # no other wrap


def test_double_generala_scores_100_only_after_a_generala() -> None:
    assert DOUBLE.rounds == 11
    card = Scorecard.empty(DOUBLE)
    assert card.options((2, 2, 2, 2, 2))["double_generala"] == 0  # no Generala yet
    scored = card.fill("generala", (5, 5, 5, 5, 5), roll=2)
    assert scored.options((2, 2, 2, 2, 2), roll=3)["double_generala"] == 100
    assert scored.options((2, 2, 2, 2, 2), roll=1)["double_generala"] == 100  # no extra for a served one
    assert scored.options((2, 2, 2, 2, 6))["double_generala"] == 0
    scratched = card.fill("generala", (5, 5, 5, 5, 1))
    assert scratched.options((2, 2, 2, 2, 2))["double_generala"] == 0  # a scratched Generala has no double
    sixty = rules.get("generala", double_generala="yes", generala_points="60")
    assert Scorecard.empty(sixty).fill("generala", (1,) * 5, roll=3).options((4,) * 5)["double_generala"] == 120


def test_a_served_generala_still_wins_at_once_and_the_double_box_only_scores() -> None:
    state = GameState.new(DOUBLE, ("Ann", "Bo"), starter=0)
    state = turn(state, (3, 3, 3, 3, 3), "generala", roll=2)
    state = turn(state, (1, 2, 3, 4, 6), "ones")
    state = turn(state, (4, 4, 4, 4, 4), "double_generala", roll=1)  # five alike served, in the double box
    assert state.phase is Phase.PLAY
    assert state.cards[0][0].get("double_generala") == 100
    state = turn(state, (2, 2, 2, 2, 2), "generala", roll=1)  # Bo's served Generala in the Generala box
    assert state.is_over
    assert state.instant_winner == 1


def test_the_solver_plays_double_generala_exactly() -> None:
    plain, double = solve(rules.get("generala")), solve(DOUBLE)
    assert double.expected_score > plain.expected_score  # an 11th box worth 0 or 100, never negative
    card = Scorecard.empty(DOUBLE).fill("generala", (6,) * 5, roll=2)
    best = double.advise(card, (3, 3, 3, 3, 3), 0)[0]
    assert (best.box, best.points) == ("double_generala", 100)
    scratched = Scorecard.empty(DOUBLE).fill("generala", (6, 6, 6, 6, 1), roll=3)
    assert double.state_value(card) > double.state_value(scratched) + 10


# -- Kismet ------------------------------------------------------------------------------------------------
def test_a_second_kismet_costs_every_other_player_their_topmost_open_box() -> None:
    state = GameState.new(SECOND, ("Ann", "Bo", "Cy"), starter=0)
    state = turn(state, (5, 5, 5, 5, 5), "kismet")  # Ann's first Kismet: nobody loses anything
    state = turn(state, (1, 1, 3, 4, 6), "aces")  # Bo fills Aces
    assert [state.cards[s][0].open_indices[0] for s in (1, 2)] == [1, 0]
    state = turn(state, (1, 2, 3, 4, 6), "yarborough")  # Cy
    state = turn(state, (6, 6, 6, 6, 6), "sixes")  # Ann's second Kismet, scored where it fits
    bo, cy = state.cards[1][0], state.cards[2][0]
    assert (bo.get("twos"), cy.get("aces")) == (0, 0), "the topmost open box of each other player"
    assert state.cards[0][0].get("sixes") == 30
    assert state.cards[0][0].get("aces") is None
    assert state.current == 1


def test_no_penalty_without_a_kismet_in_the_box_or_without_the_option() -> None:
    for rs, first in ((SECOND, (5, 5, 5, 5, 1)), (rules.get("kismet"), (5, 5, 5, 5, 5))):
        state = GameState.new(rs, ("Ann", "Bo"), starter=0)
        state = turn(state, first, "kismet")  # a zero in the Kismet box, or a Kismet without the option
        state = turn(state, (1, 2, 3, 4, 6), "yarborough")
        state = turn(state, (6, 6, 6, 6, 6), "sixes")
        assert state.cards[1][0].get("aces") is None


def test_a_player_who_lost_boxes_finishes_early_and_the_game_ends_when_every_card_is_full() -> None:
    state = GameState.new(SECOND, ("Ann", "Bo"), starter=0)
    state = turn(state, (5, 5, 5, 5, 5), "kismet")
    state = turn(state, (1, 2, 3, 4, 6), "yarborough")
    boxes = [b.name for b in SECOND.boxes if b.name not in ("kismet", "yarborough")]
    state = turn(state, (6, 6, 6, 6, 6), boxes[-1])  # Bo loses Aces
    turns = state.turns
    while not state.is_over:
        card = state.cards[state.current][0]
        state = turn(state, (1, 2, 3, 4, 6), SECOND.boxes[card.open_indices[-1]].name)
    assert all(c[0].is_full for c in state.cards)
    assert state.turns - turns == 13 + 13  # Ann's 13 open boxes; Bo's 15 less Yarborough and the Aces he lost
    assert state.turns == 15 + 14, "Bo plays one turn fewer"
    assert state.cards[1][0].get("aces") == 0


def test_the_one_die_roll_for_the_first_player() -> None:
    rs = rules.get("kismet", start="one_die")
    assert rs.rolloff_dice == 1
    state = GameState.new(rs, ("Ann", "Bo", "Cy"))
    with pytest.raises(IllegalActionError, match="not 1 whole number"):
        state.apply(RollOff(0, (6, 6, 6, 6, 6)))
    for seat, die in ((0, 5), (1, 6), (2, 6)):
        state = state.apply(RollOff(seat, (die,)))
    assert state.phase is Phase.ROLLOFF
    assert state.contenders == (1, 2)  # the tied highest roll again
    state = state.apply(RollOff(1, (2,))).apply(RollOff(2, (4,)))
    assert (state.phase, state.current) == (Phase.PLAY, 2)
    assert rules.get("kismet").starting_dice == 5


def test_the_options_travel_with_the_rule_set_as_data() -> None:
    for rs in (SECOND, DOUBLE, rules.get("kismet", start="one_die"), rules.get("generala", ace_straight="yes")):
        assert rules.from_data(rs.to_data()).to_data() == rs.to_data()
        assert rules.parse_spec(rs.spec) == rs


def test_the_rules_card_says_what_the_options_do() -> None:
    card = rules_card(rules.get("kismet", second_kismet="yes", start="one_die"))
    assert (
        "A Kismet again while the Kismet box holds one: every other player puts a zero in the topmost open box of "
        "their card." in card
    )
    assert "Who starts: each player rolls 1 die; the highest starts." in card
    plain = rules_card(rules.get("kismet"))
    assert "every other player" not in plain
    assert "Who starts" not in plain
