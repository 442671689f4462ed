"""Policies on the environments: fivedice strategies as policies, policies as strategies."""

from __future__ import annotations

import numpy as np
import pytest

from fivedice import Game, players, rules
from fivedice.engine.actions import Roll
from fivedice.errors import FiveDiceError
from fivedice.players import play_game
from fivedice.rl import SolitaireEnv
from fivedice.rl.multi import MultiplayerEnv
from fivedice.rl.policies import MaskedRandomPolicy, PolicyStrategy, StrategyPolicy, strategy_policy


@pytest.mark.parametrize("level", ["random", "greedy"])
@pytest.mark.parametrize("spec", ["yahtzee", "kismet", "yahtzee cards=jetsi"])
def test_strategies_play_whole_games_as_policies(level: str, spec: str) -> None:
    env = SolitaireEnv(spec, illegal="raise", state_info=True)
    policy = strategy_policy(level, env.rules, seed=3)
    twin = players.get(level, env.rules, seed=3)  # makes the same choices in step
    obs, info = env.reset(seed=3)
    total, done = 0.0, False
    while not done:
        state = info["state"]
        chosen = twin.choose(state)
        action = policy(obs, info)
        intent = env.codec.decode(action, state)
        if isinstance(chosen, Roll):
            assert isinstance(intent, Roll)
            assert state.dice is not None
            kept = sorted(state.dice[p] for p in intent.held)
            assert kept == sorted(state.dice[p] for p in chosen.held)
        else:
            assert intent == chosen
        obs, reward, done, _, info = env.step(action)
        total += reward
    assert total == info["state"].total(0)


def test_the_greedy_strategy_beats_random_play_through_the_env() -> None:
    def mean(policy: StrategyPolicy | MaskedRandomPolicy) -> float:
        env, scores = SolitaireEnv("yacht", state_info=True), []
        for seed in range(8):
            obs, info = env.reset(seed=seed)
            done = False
            while not done:
                obs, _, done, _, info = env.step(policy(obs, info))
            scores.append(info["state"].total(0))
        return float(np.mean(scores))

    assert mean(strategy_policy("greedy", rules.get("yacht"), seed=0)) > mean(MaskedRandomPolicy(seed=0)) + 40


def test_masked_random_policy_refuses_when_nothing_is_legal() -> None:
    env = SolitaireEnv("yacht")
    obs, info = env.reset(seed=0)
    policy = MaskedRandomPolicy(seed=0)
    picks = {policy(obs, info) for _ in range(200)}
    assert picks == set(np.flatnonzero(info["action_mask"]).tolist())
    with pytest.raises(FiveDiceError, match="No action is legal"):
        policy(obs, {"action_mask": np.zeros(44, dtype=np.int8)})
    with pytest.raises(FiveDiceError, match="no 'state'"):
        strategy_policy("random", rules.get("yacht"))(obs, {"action_mask": info["action_mask"]})


def test_a_policy_seats_at_a_game_as_a_strategy() -> None:
    rs = rules.get("yahtzee")
    game = Game(rs, ["bot", "greedy"], seed=4)  # opens with a roll-off
    bot = PolicyStrategy(MaskedRandomPolicy(seed=1), rs, players=2)
    play_game(game, [bot, players.get("greedy", rs, seed=2)])
    assert game.is_over
    assert all(card.is_full for card in game.state.cards[0])


def test_strategy_policies_drive_the_aec_env() -> None:
    env = MultiplayerEnv("yacht", players=2, reward="points", illegal="raise", state_info=True)
    seats = [strategy_policy("greedy", env.rules, seed=0), strategy_policy("random", env.rules, seed=0)]
    env.reset(seed=5)
    for agent in env.agent_iter():
        obs, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        assert obs is not None
        env.step(seats[int(agent[-1])](obs["observation"], info))
    assert env.game_state.is_over


@pytest.mark.parametrize("level", sorted(set(players.LEVELS) - {"win"}))
def test_every_strategy_level_is_a_policy(level: str) -> None:
    if level in players.SOLVER_LEVELS:
        pytest.importorskip("fivedice.solver")
    env = SolitaireEnv("yacht", illegal="raise", state_info=True)
    policy = strategy_policy(level, env.rules, seed=0)
    obs, info = env.reset(seed=0)
    done = False
    while not done:
        obs, _, done, _, info = env.step(policy(obs, info))
    assert info["state"].cards[0][0].is_full


def test_the_win_level_plays_the_aec_env() -> None:
    pytest.importorskip("fivedice.solver")
    env = MultiplayerEnv("yacht", players=2, reward="win", illegal="raise", state_info=True)
    seats = [strategy_policy("win", env.rules, seed=0), strategy_policy("greedy", env.rules, seed=0)]
    env.reset(seed=1)
    returns = {"player_0": 0.0, "player_1": 0.0}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        returns[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        assert obs is not None
        env.step(seats[int(agent[-1])](obs["observation"], info))
    assert sorted(returns.values()) in ([-1.0, 1.0], [0.0, 0.0])
