"""Profile figures, achievements and the decision rating against a hand-made history."""

from __future__ import annotations

import math

import pytest

from fivedice import Game, rules
from fivedice.players import get, play_game
from fivedice.services.profile import AchievementKind, PlayedGame, count_yahtzees, decision_rating, profile

HISTORY = [
    # game, at, rules, players, total, place, upper bonus, has bonus, yahtzees, decisions, loss, optimal, opponents
    PlayedGame("a", 1.0, "yahtzee", 1, 200, 1, 0, True, 0, 40, 20.0, 254.6),
    PlayedGame("b", 2.0, "yahtzee", 2, 250, 1, 35, True, 1, 40, 10.0, 254.6, (("Max", 2),)),
    PlayedGame("c", 3.0, "yahtzee", 2, 180, 2, 0, True, 0, 40, 0.0, 254.6, (("Max", 1),)),
    PlayedGame("d", 4.0, "yacht", 3, 120, 1, 0, False, 0, None, None, None, (("Max", 3), ("Cy", 2))),
    PlayedGame("e", 5.0, "yahtzee", 1, 260, 1, 35, True, 0, 40, 4.0, 254.6, challenge="x", benchmark=263),
]


def test_profile_figures_from_a_hand_made_history() -> None:
    p = profile(list(reversed(HISTORY)))  # any order in, oldest first inside
    assert (p.games, p.wins, p.multiplayer, p.best, p.yahtzees) == (5, 2, 3, 260, 1)
    assert p.mean == pytest.approx((200 + 250 + 180 + 120 + 260) / 5)
    assert p.bonus_rate == pytest.approx(2 / 4)  # Yacht has no upper bonus
    assert [(r.rules, r.games, r.best) for r in p.per_rules] == [("yacht", 1, 120), ("yahtzee", 4, 260)]
    assert p.per_rules[1].mean == pytest.approx(890 / 4)
    assert [(r.name, r.games, r.wins) for r in p.rivals] == [("Max", 3, 2), ("Cy", 1, 1)]
    assert [b.total for b in p.bests] == [200, 250, 120, 260]
    # luck = total - optimal + loss; the unanalysed Yacht game is left out of the timeline
    assert [t.game for t in p.timeline] == ["a", "b", "c", "e"]
    assert [round(t.luck, 1) for t in p.timeline] == [-34.6, 5.4, -74.6, 9.4]
    assert [t.grade for t in p.timeline] == ["C", "B", "A+", "A"]
    kinds = {a.kind: (a.game, a.count) for a in p.achievements}
    assert kinds == {
        AchievementKind.YAHTZEE: ("b", 1),
        AchievementKind.UPPER_BONUS: ("b", 2),
        AchievementKind.FLAWLESS: ("c", 1),
        AchievementKind.NEW_BEST: ("b", 2),
        AchievementKind.CHALLENGE: ("e", 1),
    }
    data = p.to_json()
    assert data["history"][0]["game"] == "e"
    assert data["decision_rating"]["games"] == 4


def test_decision_rating_is_points_lost_per_decision_with_an_interval() -> None:
    r = decision_rating(HISTORY)
    assert r is not None
    assert (r.games, r.decisions) == (4, 160)
    assert r.mean == pytest.approx(34 / 160)
    residuals = [20 - r.mean * 40, 10 - r.mean * 40, 0 - r.mean * 40, 4 - r.mean * 40]
    se = math.sqrt(4 * sum(x * x for x in residuals) / 3) / 160
    assert (r.low, r.high) == pytest.approx((max(0.0, r.mean - 1.96 * se), r.mean + 1.96 * se))
    assert decision_rating(HISTORY, last=1) == decision_rating(HISTORY[-1:])
    one = decision_rating(HISTORY[:1])
    assert one is not None
    assert one.low is None
    assert decision_rating([]) is None
    assert profile([]).best is None


def test_yahtzees_are_counted_from_the_log() -> None:
    rs = rules.get("yacht")
    game = play_game(Game(rs, ["A"], seed=2), [get("optimal", rs)])
    state, expected = game.initial, 0
    for record in game.log:
        if type(record).__name__ == "Score" and state.dice is not None and len(set(state.dice)) == 1:
            expected += 1
        state = state.apply(record)
    assert count_yahtzees(game, 0) == expected
    assert count_yahtzees(game, 1) == 0
