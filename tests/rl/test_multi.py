"""The PettingZoo AEC environment: API conformance, turn order, observations, rewards."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from pettingzoo.test import api_test  # type: ignore[import-untyped]

from fivedice import rules
from fivedice.engine.scorecard import Scorecard
from fivedice.engine.state import GameState
from fivedice.errors import FiveDiceError, IllegalActionError
from fivedice.rl import multi
from fivedice.rl.multi import MultiplayerEnv, win_rewards


# A dict observation with an action mask is PettingZoo's own convention (its classic games);
# api_test still warns about it.
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.parametrize(
    ("spec", "players", "reward", "starter"),
    [
        ("yacht", 2, "win", 0),
        ("yahtzee", 3, "points", None),
        ("generala", 2, "win", 1),
        ("yahtzee cards=jetsi", 2, "win", 0),
        ("kismet", 1, "points", 0),
    ],
)
def test_api_test_passes(spec: str, players: int, reward: str, starter: int | None) -> None:
    api_test(MultiplayerEnv(spec, players=players, reward=reward, starter=starter), num_cycles=200)
    api_test(multi.env(rules=spec, players=players, reward=reward, starter=starter), num_cycles=50)


def play_out(env: MultiplayerEnv, seed: int) -> dict[str, float]:
    """Play random legal moves to the end; every agent's return."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        returns[agent] += reward
        assert obs is not None
        assert (obs["action_mask"] == info["action_mask"]).all()
        if terminated or truncated:
            env.step(None)
            continue
        assert agent == f"player_{info['state'].current}"
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return returns


def test_points_reward_returns_each_players_total() -> None:
    env = MultiplayerEnv("yahtzee", players=3, reward="points", state_info=True)
    returns = play_out(env, seed=8)
    state = env.game_state
    assert state.is_over
    assert returns == {f"player_{s}": float(state.total(s)) for s in range(3)}


def test_win_reward_pays_the_winner_and_charges_the_rest() -> None:
    env = MultiplayerEnv("yacht", players=2, reward="win", state_info=True)
    returns = play_out(env, seed=1)
    totals = env.game_state.totals
    expected = 0.0 if totals[0] == totals[1] else (1.0 if totals[0] > totals[1] else -1.0)
    assert returns == {"player_0": expected, "player_1": -expected}


def finished(spec: str, totals: tuple[int, ...]) -> GameState:
    rs = rules.get(spec)
    names = tuple(f"player_{i}" for i in range(len(totals)))
    cards = []
    for t in totals:
        entries = (t,) + (0,) * (len(rs.boxes) - 1)
        cards.append((Scorecard(rs, rs.cards[0], entries, 0),))
    return dataclasses.replace(GameState.new(rs, names, starter=0), cards=tuple(cards))


def test_ties_for_first_split_the_win() -> None:
    assert win_rewards(finished("yacht", (5, 5, 2))) == (0.0, 0.0, -1.0)
    assert win_rewards(finished("yacht", (3, 5, 2))) == (-1.0, 1.0, -1.0)
    assert win_rewards(finished("yacht", (4, 4, 4))) == pytest.approx((-1 / 3,) * 3)


def test_observation_puts_the_seat_first_and_masks_waiting_players() -> None:
    env = MultiplayerEnv("yacht", players=3, starter=1, scaled=False)
    env.reset(seed=0)
    assert env.agent_selection == "player_1"
    env.step(32)  # player_1 scores ones
    ones = env.game_state.total(1)
    totals = env.layout.field("totals").slice
    assert env.observe("player_1")["observation"][totals].tolist() == [ones, 0, 0]
    assert env.observe("player_0")["observation"][totals].tolist() == [0, ones, 0]
    assert env.agent_selection == "player_2"
    assert not env.observe("player_1")["action_mask"].any()
    assert env.observe("player_2")["action_mask"].any()


def test_a_served_generala_wins_at_once() -> None:
    env = MultiplayerEnv("generala", players=2, reward="win")
    start = GameState.new(rules.get("generala"), ("player_0", "player_1"), starter=0)
    env.reset(options={"state": dataclasses.replace(start, dice=(3, 3, 3, 3, 3), rolls=1)})
    env.step(env.codec.rerolls + rules.get("generala").box_index("generala"))
    assert env.game_state.instant_winner == 0
    assert env.terminations == {"player_0": True, "player_1": True}
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}


def test_illegal_actions_and_bad_arguments() -> None:
    env = MultiplayerEnv("yacht", players=2, illegal_reward=-1.0)
    env.reset(seed=0)
    env.step(0)  # keep everything: refused
    assert "same as stopping" in env.infos["player_0"]["illegal"]
    assert env.rewards["player_0"] == -1.0
    assert env.agent_selection == "player_0"
    strict = MultiplayerEnv("yacht", players=2, illegal="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError, match="same as stopping"):
        strict.step(0)
    for kwargs in ({"players": 0}, {"reward": "elo"}, {"illegal": "warn"}, {"render_mode": "human"}):
        with pytest.raises(FiveDiceError):
            MultiplayerEnv("yacht", **kwargs)


def test_illegal_actions_cost_and_truncate_every_agent_at_max_illegal() -> None:
    env = MultiplayerEnv("yacht", players=2, max_illegal=3)
    env.reset(seed=0)
    for _ in range(3):
        env.step(0)  # keeping every die is never legal
    assert env.truncations == {"player_0": True, "player_1": True}
    assert env._cumulative_rewards["player_0"] == -1.0
    assert env.illegal_count == 3
    assert "state" not in env.infos["player_0"]
    assert env.observe("player_0")["observation"].max() <= 1.0


def test_render_shows_standings_at_the_end() -> None:
    env = MultiplayerEnv("yacht", players=2, render_mode="ansi", state_info=True)
    play_out(env, seed=2)
    text = env.render()
    assert text is not None
    assert "1. player_" in text


class LoadedDice:
    """Dice that show a six seven times in ten: five alike come often (a fair roll shows them about once in
    1300), and with them the Joker rule and the extra-Yahtzee bonus, where the environment asks the engine."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def roll(self, n: int) -> tuple[int, ...]:
        return tuple(6 if self.rng.random() < 0.7 else int(self.rng.integers(1, 7)) for _ in range(n))


@pytest.mark.parametrize(
    ("spec", "scaled", "loaded"),
    [
        ("yahtzee", True, False),
        ("yahtzee", False, True),
        ("yahtzee joker=none order=upper_first", True, True),
        ("yatzy forced=yes", True, False),
        ("generala", True, True),
        ("yahtzee cards=jetsi", False, True),
    ],
)
def test_observations_masks_and_rewards_are_the_engines_over_random_games(
    spec: str, scaled: bool, loaded: bool
) -> None:
    """The environment takes the options from the rule set's tables (the engine's for five
    alike) and checks moves by its mask: every agent's view must be the engine's own."""
    env = MultiplayerEnv(spec, players=3, reward="points", starter=None, state_info=True, scaled=scaled)
    encode = env.layout.scale if scaled else np.asarray
    rng = np.random.default_rng(4)
    alike = 0
    for seed in range(6):
        env.reset(seed=seed)
        if loaded:
            env._roller = LoadedDice(seed)
        for agent in env.agent_iter():
            obs, _reward, terminated, truncated, info = env.last()
            state = info["state"]
            seat = env.possible_agents.index(agent)
            for other in env.possible_agents:
                s = env.possible_agents.index(other)
                view = env.observe(other)
                assert view["observation"].tolist() == encode(env.layout.encode(state, s)).tolist()
                expected = env.codec.mask(state) if s == state.current else np.zeros(env.codec.size)
                assert view["action_mask"].tolist() == expected.tolist()
                if other in env.infos:  # (an agent leaves once it has taken its last step)
                    assert env.infos[other]["action_mask"].tolist() == expected.tolist()
            if terminated or truncated:
                env.step(None)
                continue
            alike += state.dice is not None and len(set(state.dice)) == 1
            legal = np.flatnonzero(obs["action_mask"])
            if rng.random() < 0.05:  # an illegal action: the engine's reason, nothing changes
                wrong = int(rng.choice(np.flatnonzero(obs["action_mask"] == 0)))
                env.step(wrong)
                assert env.infos[agent]["illegal"] == state.why_not(env.codec.decode(wrong, state))
                assert env.game_state == state
                continue
            env.step(int(rng.choice(legal)))
            assert env.rewards[agent] == env.game_state.total(seat) - state.total(seat)
    assert alike or not loaded, "no five alike showed: the engine's own options were not checked"
