"""examples/train_imitation.py: its labels are the solver's, and a tiny run trains, reports and repeats itself.

Skipped where PyTorch is not installed: the ``train`` extra brings it, ``make test``'s ``dev`` extra
(and so CI) does not.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fivedice.engine.actions import Roll, Score
from tests.rl.test_examples import load

pytest.importorskip("torch")
pytest.importorskip("fivedice.solver")

TINY = [
    "--rules", "yacht", "--updates", "48", "--envs", "8", "--collect", "2", "--learn", "8", "--batch", "32",
    "--hidden", "16", "--layers", "1", "--eval-every", "24", "--eval-games", "3", "--final-games", "5",
]  # fmt: skip


def test_labels_are_the_solvers_losses() -> None:
    """Every legal action (and only those) has a loss, the solver's best move loses 0, and a reroll
    mask's loss is that of the dice it keeps."""
    from fivedice.players.solved import solver_for
    from fivedice.rl.solitaire import SolitaireEnv

    example = load("train_imitation")
    envs = [SolitaireEnv("yacht") for _ in range(4)]
    teacher = example.Teacher(envs[0])
    solver = solver_for(envs[0].rules)
    rng = np.random.default_rng(0)
    infos = [env.reset(seed=i)[1] for i, env in enumerate(envs)]
    for _ in range(30):
        losses = teacher.losses(envs)
        for env, info, loss in zip(envs, infos, losses, strict=True):
            legal = info["action_mask"].astype(bool)
            assert (loss < example.ILLEGAL / 2).tolist() == legal.tolist()
            state = env.game_state
            assert state.dice is not None
            best = solver.best(state.cards[0][0], state.dice, state.rolls_left)
            assert loss.min() == 0.0
            chosen = env.codec.decode(int(loss.argmin()), state)
            if best.action == "score":
                assert isinstance(chosen, Score)
                assert chosen.box == best.box
            else:
                assert isinstance(chosen, Roll)
                assert tuple(sorted(state.dice[p] for p in chosen.held)) == best.dice
            options = {o.key: o.loss for o in solver.advise(state.cards[0][0], state.dice, state.rolls_left)}
            for action in np.flatnonzero(legal)[:6]:
                intent = env.codec.decode(int(action), state)
                if isinstance(intent, Roll):
                    key: tuple[str, object] = ("keep", tuple(sorted(state.dice[p] for p in intent.held)))
                else:
                    assert isinstance(intent, Score)
                    key = ("score", intent.box)
                assert loss[action] == pytest.approx(options[key], abs=1e-4)
        for i, env in enumerate(envs):
            _obs, _reward, done, _cut, infos[i] = env.step(int(rng.choice(np.flatnonzero(infos[i]["action_mask"]))))
            if done:
                infos[i] = env.reset()[1]


def test_a_tiny_run_reports_draws_and_repeats_itself(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import torch

    example = load("train_imitation")
    first = example.main([*TINY, "--out", str(tmp_path / "a")])
    out = capsys.readouterr().out
    assert "yacht: 5 games, mean" in out
    assert "points lost per decision" in out
    assert "training: 48 updates, " in out
    assert first.episodes == 5
    assert first.total_loss is not None
    rows = (tmp_path / "a" / "curve.csv").read_text().splitlines()
    assert rows[0].startswith("updates,decisions,cpu_minutes,greedy_mean")
    assert [row.split(",")[0] for row in rows[1:]] == ["24", "48"]
    assert (tmp_path / "a" / "learning_curve.png").read_bytes().startswith(b"\x89PNG")
    second = example.main([*TINY, "--out", str(tmp_path / "b")])
    assert (second.mean, second.total_loss) == (first.mean, first.total_loss)
    a = torch.load(tmp_path / "a" / "policy.pt")
    b = torch.load(tmp_path / "b" / "policy.pt")
    assert all(torch.equal(a[name], b[name]) for name in a)
