"""The Gymnasium environment: API conformance, spaces, action mapping, rewards, seeding."""

from __future__ import annotations

import dataclasses
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import fivedice.rl
from fivedice import Game, rules
from fivedice.engine.actions import Roll, Score
from fivedice.engine.scorecard import Scorecard
from fivedice.engine.state import GameState
from fivedice.errors import FiveDiceError, IllegalActionError, RuleSetError
from fivedice.rl import EnvSetupError, SolitaireEnv

SPECS = [
    "yahtzee",
    "yahtzee joker=free",
    "yahtzee joker=none order=upper_first",
    "yahtzee cards=jetsi",
    "yacht",
    "yatzy forced=yes",
    "kismet",
    "generala",
]


def make(spec: str = "yahtzee", **kwargs: Any) -> SolitaireEnv:
    env = gymnasium.make(fivedice.rl.ENV_ID, rules=spec, **kwargs).unwrapped
    assert isinstance(env, SolitaireEnv)
    return env


def state_with(spec: str, entries: dict[str, int], dice: tuple[int, ...], rolls: int = 1) -> GameState:
    """A one-player state whose card holds ``entries`` and whose dice show ``dice``."""
    rs = rules.parse_spec(spec)
    values = tuple(entries.get(b.name) for b in rs.boxes)
    card = Scorecard(rs, rs.cards[0], values, 0)
    state = GameState.new(rs, ("player",), starter=0)
    cards = ((card, *state.cards[0][1:]),)  # Jetsi's other cards stay empty
    return dataclasses.replace(state, cards=cards, dice=dice, rolls=rolls, turns=len(entries))


@pytest.mark.parametrize("spec", SPECS)
def test_check_env_passes_for_every_rule_set(spec: str) -> None:
    check_env(make(spec))
    check_env(make(spec, render_mode="ansi"))
    check_env(make(spec, render_mode="rgb_array", scaled=False))


@pytest.mark.parametrize("spec", SPECS)
def test_random_games_agree_with_the_engine(spec: str) -> None:
    """The fast path against the engine, step by step: observation, mask, rewards, log, end."""
    env = make(spec, state_info=True)
    raw = make(spec, scaled=False)
    rng = np.random.default_rng(5)
    for episode in range(12):
        obs, info = env.reset(seed=episode)
        raw_obs, _ = raw.reset(seed=episode)
        total, done = 0.0, False
        while not done:
            assert env.observation_space.contains(obs)
            state = info["state"]
            assert state == env.game_state
            expected = env.layout.encode(state)
            assert raw_obs.tolist() == expected.tolist()
            assert obs.tolist() == env.layout.scale(expected).tolist()
            legal = [state.can(env.codec.decode(i, state)) for i in range(env.codec.size)]
            assert info["action_mask"].tolist() == [int(x) for x in legal]
            assert env.action_masks().tolist() == legal
            if rng.random() < 0.1 and not all(legal):  # now and then an illegal action: nothing changes
                wrong = int(rng.choice(np.flatnonzero(np.logical_not(legal))))
                obs, reward, done, truncated, info = env.step(wrong)
                assert (reward, done, truncated) == (-1.0, False, False)
                assert info["illegal"] == state.why_not(env.codec.decode(wrong, state))
                assert env.game_state == state
                continue
            action = int(rng.choice(np.flatnonzero(legal)))
            obs, reward, done, truncated, info = env.step(action)
            raw_obs, raw_reward, *_ = raw.step(action)
            assert reward == raw_reward == info["state"].total(0) - state.total(0)
            assert not truncated
            total += reward
        assert total == info["state"].total(0)
        assert not info["action_mask"].any()
        assert Game.replay(env.rules, ["player"], env.log, starter=0).state == env.game_state


@pytest.mark.parametrize("spec", SPECS)
def test_the_fast_path_plays_as_the_engine_over_many_seeded_games(spec: str) -> None:
    """An engine state follows every record of the environment's log on its own (no state the
    fast path built): each observation, mask, reward and end must be the engine's."""
    env, raw = make(spec), make(spec, scaled=False)
    rng = np.random.default_rng(17)
    games = 40 if len(env.rules.cards) == 1 else 8
    for episode in range(games):
        obs, info = env.reset(seed=1000 + episode)
        raw_obs, raw_info = raw.reset(seed=1000 + episode)
        engine = GameState.new(env.rules, ("player",), starter=0)
        seen = 0
        done = False
        while True:
            for record in env.log[seen:]:
                engine = engine.apply(record)
            seen = len(env.log)
            expected = env.layout.encode(engine)
            assert raw_obs.tolist() == expected.tolist()
            assert obs.tolist() == env.layout.scale(expected).tolist()
            mask = env.codec.mask(engine)
            assert info["action_mask"].tolist() == raw_info["action_mask"].tolist() == mask.tolist()
            assert env.action_masks().tolist() == mask.astype(bool).tolist()
            assert done == engine.is_over
            if done:
                break
            before = engine.total(0)
            action = int(rng.choice(np.flatnonzero(mask)))
            obs, reward, done, truncated, info = env.step(action)
            raw_obs, raw_reward, _, _, raw_info = raw.step(action)
            for record in env.log[seen:]:
                engine = engine.apply(record)
            seen = len(env.log)
            assert reward == raw_reward == engine.total(0) - before
            assert not truncated
        assert env.game_state == engine


def test_a_reset_without_a_seed_goes_on_with_the_dice_of_the_seeded_one() -> None:
    def games(seeds: list[int | None]) -> list[list[tuple[int, ...]]]:
        env, played = make("yacht"), []
        for seed in seeds:
            env.reset(seed=seed)
            played.append([r.dice for r in env.log if isinstance(r, Roll) and r.dice is not None])
            while not env.game_state.is_over:
                env.step(32 + env.game_state.turns)
                played[-1].append(env.game_state.dice or ())
        return played

    first = games([3, None, None])
    assert first == games([3, None, None])
    assert first[0] == games([3])[0]
    assert len({str(g) for g in first}) == 3


def test_five_alike_goes_through_the_engine_on_every_rule_set() -> None:
    """The Joker and the extra-Yahtzee bonus depend on the card's history: the fast path asks the engine."""
    for spec in SPECS:
        rs = rules.parse_spec(spec)
        for filled in ({}, {rs.boxes[-1].name: 0}, {b.name: 0 for b in rs.boxes[:6]}):
            for face in (1, 6):
                if rs.yahtzee_box is not None:
                    filled = {**filled, rs.yahtzee_box: 50}
                start = state_with(spec, filled, (face,) * rs.dice)
                env = make(spec, state_info=True, scaled=False)
                obs, info = env.reset(options={"state": start})
                assert obs.tolist() == env.layout.encode(start).tolist()
                assert info["action_mask"].tolist() == env.codec.mask(start).tolist()


def test_spec_strings_and_options_build_the_rule_set() -> None:
    assert make("yahtzee joker=free").rules == rules.get("yahtzee", joker="free")
    env = gymnasium.make("fivedice/Solitaire-v0", rules="yahtzee", options={"cards": "jetsi"}).unwrapped
    assert isinstance(env, SolitaireEnv)
    assert env.action_space == gymnasium.spaces.Discrete(32 + 3 * 13)
    with pytest.raises(FiveDiceError, match="joker"):
        make("yahtzee", options={"joker": "sometimes"})
    with pytest.raises(EnvSetupError, match="Render mode 'human' is not supported; expected 'ansi', 'rgb_array'"):
        SolitaireEnv(render_mode="human")
    with pytest.raises(RuleSetError, match="not of the form key=value"):
        make("yahtzee joker")
    with pytest.raises(EnvSetupError, match="Illegal-action mode"):
        SolitaireEnv(illegal="penalise")


def test_reroll_bits_name_dice_in_ascending_order_of_face() -> None:
    env = make("yacht", scaled=False)
    start = state_with("yacht", {}, (6, 2, 6, 1, 2))
    assert env.codec.decode(0b00011, start) == Roll((0, 2, 4))
    assert env.codec.encode(Roll((0, 2, 4)), start) == 0b00011
    assert env.codec.encode(Roll((4,)), start) == 0b11011  # keep the second 2 (third lowest)
    env.reset(seed=0, options={"state": start})
    obs, reward, *_ = env.step(0b00011)  # reroll the 1 and the first 2; keep 2 6 6
    state = env.game_state
    assert reward == 0
    assert state.rolls == 2
    assert state.dice is not None
    assert (state.dice[0], state.dice[2], state.dice[4]) == (6, 6, 2)
    dice = env.layout.field("dice").slice
    assert obs[dice].tolist() == sorted(state.dice)
    assert env.codec.encode(Score("yacht"), state) == 32 + 11


def test_keeping_everything_is_never_legal_and_the_last_roll_must_score() -> None:
    env = make("yahtzee")
    _, info = env.reset(seed=2)
    assert info["action_mask"][0] == 0
    assert info["action_mask"][1:32].all()
    for _ in range(2):
        _, _, _, _, info = env.step(31)
    assert env.game_state.rolls_left == 0
    assert not info["action_mask"][:32].any()
    assert info["action_mask"][32:].all()


def test_reward_includes_the_upper_bonus_when_earned() -> None:
    upper = {"aces": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15}
    env = make("yahtzee", scaled=False)
    obs, _ = env.reset(options={"state": state_with("yahtzee", upper, (6, 6, 6, 1, 2))})
    layout = env.layout
    assert obs[layout.field("upper_total").slice].tolist() == [45]
    assert obs[layout.field("scores").start + 5] == 18
    assert obs[layout.field("filled").slice].tolist() == [1] * 5 + [0] * 8
    obs, reward, done, _, _ = env.step(32 + 5)  # sixes: 18 points and the 35 bonus
    assert (reward, done) == (18 + 35, False)
    assert obs[layout.field("upper_bonus").slice].tolist() == [35]
    assert obs[layout.field("totals").slice].tolist() == [45 + 18 + 35]


def test_reward_includes_the_extra_yahtzee_bonus_and_the_joker_is_the_engines() -> None:
    env = make("yahtzee")
    _, info = env.reset(options={"state": state_with("yahtzee", {"yahtzee": 50}, (4, 4, 4, 4, 4))})
    assert info["action_mask"][32:].tolist() == [0, 0, 0, 1] + [0] * 9  # forced Joker: Fours only
    obs, reward, *_ = env.step(32 + 3)
    assert reward == 20 + 100
    assert obs[env.layout.field("bonus_ready").slice].tolist() == [1]


def test_game_over_terminates_and_the_return_is_the_score() -> None:
    filled = {b.name: 0 for b in rules.get("yacht").boxes if b.name != "choice"}
    env = make("yacht")
    env.reset(options={"state": state_with("yacht", filled, (6, 6, 5, 5, 4), rolls=3)})
    obs, reward, done, truncated, _ = env.step(32 + 10)
    assert (reward, done, truncated) == (26, True, False)
    assert obs[env.layout.field("roll").slice].tolist() == [0]
    with pytest.raises(IllegalActionError, match="game is over"):
        env.step(32)


def test_seed_reproduces_a_game_and_other_seeds_differ() -> None:
    def play(seed: int) -> list[tuple[int, ...]]:
        env = make("yahtzee")
        env.reset(seed=seed)
        seen = []
        while not env.game_state.is_over:
            seen.append(env.game_state.dice or ())
            env.step(31 if env.game_state.rolls_left else 32 + env.game_state.turns)
        return seen

    assert play(11) == play(11)
    assert play(11) != play(12)


def test_illegal_actions_are_ignored_or_raise() -> None:
    env = make("yahtzee", illegal_reward=-5.0)
    env.reset(seed=0)
    env.step(32)  # aces
    before = env.game_state
    _, reward, done, truncated, info = env.step(32)
    assert (reward, done, truncated) == (-5.0, False, False)
    assert env.game_state == before
    assert "already filled" in info["illegal"]
    strict = make("yahtzee", illegal="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError, match="same as stopping"):
        strict.step(0)
    with pytest.raises(IllegalActionError, match="not an action"):
        strict.step(45)
    with pytest.raises(IllegalActionError, match="not an action"):
        strict.step(3.0)  # type: ignore[arg-type]


def test_illegal_actions_truncate_the_episode_at_max_illegal() -> None:
    env = make("yahtzee", max_illegal=3)
    env.reset(seed=0)
    outcomes = [env.step(0)[1:4] for _ in range(3)]
    assert outcomes == [(-1.0, False, False), (-1.0, False, False), (-1.0, False, True)]
    assert env.illegal_count == 3
    env.reset(seed=0)
    assert env.illegal_count == 0
    unlimited = make("yahtzee", max_illegal=None)
    unlimited.reset(seed=0)
    assert not any(unlimited.step(0)[3] for _ in range(200))
    with pytest.raises(EnvSetupError, match="max_illegal 0 is not valid"):
        SolitaireEnv(max_illegal=0)


def test_info_has_no_state_unless_asked() -> None:
    _, info = make("yacht").reset(seed=0)
    assert set(info) == {"action_mask"}
    _, info = make("yacht", state_info=True).reset(seed=0)
    assert isinstance(info["state"], GameState)


def test_observations_are_scaled_to_one_by_default() -> None:
    env = make("yahtzee")
    raw = make("yahtzee", scaled=False)
    assert isinstance(env.observation_space, gymnasium.spaces.Box)
    assert isinstance(raw.observation_space, gymnasium.spaces.Box)
    assert env.observation_space.high.tolist() == [1.0] * 43
    assert raw.observation_space.high.max() > 1
    obs, _ = env.reset(seed=3)
    raw_obs, _ = raw.reset(seed=3)
    assert obs.tolist() == pytest.approx((raw_obs / raw.observation_space.high).tolist())
    assert 0 < obs.max() <= 1


def test_render_rgb_array_draws_the_dice_and_the_card() -> None:
    env = make("yacht", render_mode="rgb_array")
    env.reset(options={"state": state_with("yacht", {"ones": 3}, (1, 2, 3, 4, 6))})
    first = env.render()
    assert isinstance(first, np.ndarray)
    assert first.shape == (192, 384, 3)
    assert first.dtype == np.uint8
    env.reset(options={"state": state_with("yacht", {"ones": 3}, (6, 6, 6, 6, 6))})
    other = env.render()
    assert isinstance(other, np.ndarray)
    assert (first != other).any()  # other dice, other pips
    assert len({tuple(px) for px in first.reshape(-1, 3).tolist()}) >= 4  # felt, dice, pips, a filled box


def test_stable_baselines3_make_vec_env_and_maskable_ppo_run_it() -> None:
    """SB3 asks for render_mode="rgb_array" (its make_vec_env falls back only on TypeError)."""
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_util import make_vec_env

    venv = make_vec_env(fivedice.rl.ENV_ID, n_envs=2, seed=0, env_kwargs={"rules": "yacht"})
    obs = venv.reset()
    assert isinstance(obs, np.ndarray)
    assert obs.shape == (2, 41)
    assert venv.render_mode == "rgb_array"
    for _ in range(30):
        obs, _, _, infos = venv.step(np.array([32 + 11, 32 + 11]))
    assert all("action_mask" in i for i in infos)
    venv.close()
    sb3_contrib = pytest.importorskip("sb3_contrib")
    model = sb3_contrib.MaskablePPO("MlpPolicy", make_vec_env(fivedice.rl.ENV_ID, n_envs=2, seed=0), n_steps=64,
                                    batch_size=64, n_epochs=1, seed=0)  # fmt: skip
    model.learn(256)
    assert model.num_timesteps >= 256


def test_jetsi_box_actions_cover_every_card_in_order() -> None:
    env = make("yahtzee cards=jetsi")
    obs, info = env.reset(seed=4)
    mask = info["action_mask"]
    assert mask[32 : 32 + 13].all()  # card 0 is free
    assert mask[32 + 13 : 32 + 26].tolist() == [1] + [0] * 12  # card 1 fills top-down
    assert mask[32 + 26 :].tolist() == [0] * 12 + [1]  # card 2 fills bottom-up
    _, reward, *_ = env.step(32 + 26 + 12)
    assert env.game_state.cards[0][2].get("chance") == reward
    assert env.codec.describe(32 + 26 + 12) == "score chance on card 2"
    assert obs.shape == (6 + 5 + 2 + 2 * 39 + 3 * 3 + 1,)


def test_reset_rejects_a_foreign_state_and_unknown_options() -> None:
    env = make("yahtzee")
    two = GameState.new(rules.get("yahtzee"), ("a", "b"), starter=0)
    with pytest.raises(EnvSetupError, match=r"start state \(a 2-player game of yahtzee\) is not a one-player"):
        env.reset(options={"state": two})
    with pytest.raises(EnvSetupError, match="unknown"):
        env.reset(options={"seed": 1})


def test_render_ansi_shows_the_card_and_dice() -> None:
    env = make("yacht", render_mode="ansi")
    env.reset(options={"state": state_with("yacht", {"ones": 3}, (1, 2, 3, 4, 5))})
    text = env.render()
    assert text is not None
    assert "Ones" in text
    assert "dice 1 2 3 4 5" in text
    assert make("yacht").render() is None


def test_gymnasium_vector_envs_run_it() -> None:
    envs = gymnasium.make_vec(fivedice.rl.ENV_ID, num_envs=2, vectorization_mode="sync", rules="yacht")
    obs, info = envs.reset(seed=0)
    assert obs.shape == (2, 41)
    assert info["action_mask"].shape == (2, 44)
    finished = 0
    for _ in range(60):  # score the first legal box at once: 12 steps a game
        first = [int(np.flatnonzero(m[32:])[0]) + 32 if m.any() else 0 for m in info["action_mask"]]
        obs, _, terminated, _, info = envs.step(np.array(first))
        finished += int(terminated.sum())
    assert finished == 8
    envs.close()


def test_the_log_replays_in_the_engine() -> None:
    env = make("kismet")
    _, info = env.reset(seed=9)
    rng = np.random.default_rng(9)
    done = False
    while not done:
        _, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
    game = Game.replay(env.rules, ["player"], env.log, starter=0)
    assert game.state == env.game_state
    assert game.state.total(0) > 0


def test_environments_of_one_rule_set_share_their_tables() -> None:
    """Building the score tables took about 0.3 s per environment, so 128 vectorised copies spent
    half a minute before the first step; they are built once per rule set."""
    from fivedice.rl.fast import Tables

    first, second = SolitaireEnv("yacht"), SolitaireEnv("yacht")
    assert first._tables is second._tables is Tables.of(first.rules)
    assert SolitaireEnv("yahtzee")._tables is not first._tables


def test_np_random_is_gymnasiums_generator_of_the_reset_seed() -> None:
    """A seeded reset builds Gymnasium's generator only when asked for: it must be the same one."""
    from gymnasium.utils import seeding

    env = make("yacht")
    env.reset(seed=7)
    assert env.np_random_seed == 7
    assert env.np_random.integers(1000, size=4).tolist() == seeding.np_random(7)[0].integers(1000, size=4).tolist()
    env.np_random = np.random.default_rng(3)
    assert env.np_random.integers(1000) == np.random.default_rng(3).integers(1000)
    with pytest.raises(gymnasium.error.Error, match="greater or equal to zero"):
        env.reset(seed=-1)
