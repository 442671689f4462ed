"""The win level's chances: hints show each option's chance to win, exact once the rivals are done."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from fivedice import rules
from fivedice.engine.actions import Roll
from fivedice.engine.scorecard import Scorecard
from fivedice.engine.state import GameState
from fivedice.players import prepare
from fivedice.players.win import WinPlayer, option_chances, rival_distribution
from fivedice.services import chancejobs
from fivedice.services.advice import advise
from fivedice.services.chancejobs import ChanceKind

RS = rules.get("yacht")


@pytest.fixture(scope="module", autouse=True)
def _beat_table() -> None:
    prepare(["win"], RS)


def _last_turn(dice: tuple[int, ...], rival_choice: int) -> GameState:
    """Me with only Choice open (card total 63), the rival done with 63 + ``rival_choice``; one roll left."""
    entries = (3, 6, 9, 12, 15, 18, 0, 0, 0, 0, None, 0)
    mine = Scorecard(RS, RS.cards[0], entries)
    theirs = Scorecard(RS, RS.cards[0], (*entries[:10], rival_choice, 0))
    state = GameState.new(RS, ("Me", "You"), starter=0)
    return replace(state, cards=((mine,), (theirs,)), dice=dice, rolls=2, turns=2 * RS.rounds - 1)


def test_hints_show_each_options_chance_to_win_with_rivals() -> None:
    state = GameState.new(RS, ("Ann", "Bob"), starter=0).apply(Roll((), (6, 6, 5, 2, 1)))
    assert chancejobs.wait(chancejobs.Need(ChanceKind.WIN, RS), timeout=120).ok  # hints carry them once prepared
    advice = advise(state)
    assert advise(state, chances=False).options[0].win is None
    assert all(o.win is not None and 0.0 <= o.win <= 1.0 for o in advice.options)
    assert 0.3 < advice.best.win < 0.7  # type: ignore[operator]
    alone = GameState.new(RS, ("Ann",)).apply(Roll((), (6, 6, 5, 2, 1)))
    assert all(o.win is None for o in advise(alone).options)


def test_chances_are_exact_when_the_rival_is_done() -> None:
    state = _last_turn((6, 6, 5, 5, 4), 27)  # 26 showing: a loss if scored; one more pip ties, two win
    chances = option_chances(state)
    assert chances["score", "choice"] == 0.0
    # keep 6 6 5 5 and roll the last die once: a 6 wins, a 5 ties
    assert chances["keep", (5, 5, 6, 6)] == pytest.approx(1 / 6 + 0.5 / 6, abs=1e-6)
    assert chances["keep", (4, 5, 6, 6)] == pytest.approx(0.5 / 6, abs=1e-6)  # only a 6 ties
    assert max(chances.values()) == chances["keep", (5, 5, 6, 6)]
    action = WinPlayer(RS).choose(state)
    assert isinstance(action, Roll)


def test_the_best_rival_is_the_maximum_of_the_rivals() -> None:
    state = _last_turn((1, 2, 3, 4, 5), 20)
    three = replace(state, players=("Me", "You", "Zoe"), cards=(*state.cards, (state.cards[1][0],)))
    dist = rival_distribution(three, [1, 2])
    assert dist.scores.tolist() == [three.total(1)]
    assert np.allclose(dist.probs, [1.0])


@pytest.mark.parametrize("open_boxes", [2, 3, 5])
def test_a_rival_with_few_boxes_open_has_its_exact_final_score_distribution(open_boxes: int) -> None:
    """Up to ``EXACT_RIVAL`` boxes open, the rival's final score is exactly distributed (a forward pass of
    ``optimal``), not fitted to its moments: the fit cost ``win`` 0.61 points of win rate (95% +0.13 to +1.09)
    over 10,000 paired games."""
    from fivedice.players.solved import solver_for
    from fivedice.players.win import EXACT_RIVAL
    from fivedice.solver.chances import distribution

    assert open_boxes <= EXACT_RIVAL
    entries = (2, 6, 9, 12, 15, 24, 26, 0, 30, 30, 22, 0)
    theirs = Scorecard(RS, RS.cards[0], tuple(None if i < open_boxes else e for i, e in enumerate(entries)))
    state = _last_turn((1, 2, 3, 4, 5), 20)
    state = replace(state, cards=(state.cards[0], (theirs,)))
    exact = distribution(solver_for(RS), theirs)
    dist = rival_distribution(state, [1])
    assert dist.scores.tolist() == exact.scores.tolist()
    assert np.allclose(dist.probs, exact.probs)
