"""The ``rl`` extra stays optional: the game never imports Gymnasium or PettingZoo."""

from __future__ import annotations

import subprocess
import sys


def imported_after(code: str) -> set[str]:
    probe = f"{code}; import sys; print(' '.join(m for m in ('gymnasium', 'pettingzoo') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True).stdout
    return set(out.split())


def test_the_game_does_not_import_the_rl_libraries() -> None:
    assert imported_after("import fivedice, fivedice.cli, fivedice.players, fivedice.engine.saves") == set()


def test_pettingzoo_loads_only_with_the_multiplayer_env() -> None:
    assert imported_after("import fivedice.rl") == {"gymnasium"}
    assert imported_after("import fivedice.rl; fivedice.rl.MultiplayerEnv") == {"gymnasium", "pettingzoo"}
