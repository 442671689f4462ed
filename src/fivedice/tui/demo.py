"""A fixed mid-game position and a screenshot of it: ``python -m fivedice.tui.demo OUT.svg``.

Used for the README's picture and the snapshot tests; everything is seeded, and the
computer is the built-in greedy stand-in, so the picture never changes by accident.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from fivedice import rules
from fivedice.rules import RuleSet
from fivedice.tui.app import Config, FiveDiceApp
from fivedice.tui.session import Advisor, GreedyFallback, HintLine, Seat, Session, Strategy, solver_advisor

__all__ = ["demo_config", "demo_session", "fake_advisor", "fallback_strategy", "screenshot"]


def fallback_strategy(level: str, rules: RuleSet, seed: int | None) -> Strategy:
    """The built-in stand-in computer whatever the level (stable pictures and tests)."""
    return GreedyFallback(rules, seed, random_moves=level == "random")


def fake_advisor(state: object) -> list[HintLine]:
    """Fixed hint lines (the real ones need the solver)."""
    return [HintLine("keep 5 5 5", 243.10, 0.0), HintLine("score Fives (15)", 240.75, 2.35)]


def demo_session(rounds: int = 5, seed: int = 7, advisor: Advisor = fake_advisor) -> Session:
    """Ann (human) against Robo (computer) in Yahtzee, ``rounds`` rounds in, Ann to keep and roll."""
    session = Session.new(
        rules.get("yahtzee"),
        [Seat("Ann"), Seat("Robo", "computer", "greedy")],
        seed=seed,
        strategy_factory=fallback_strategy,
        advisor=advisor,
    )
    player = GreedyFallback(session.game.rules, seed)
    game = session.game
    while not game.is_over and (game.state.phase.value == "rolloff" or game.state.round <= rounds):
        if game.state.phase.value == "play" and game.state.round == rounds and game.state.current == 0:
            break
        game.play(player.choose(game.state))
    game.roll()
    return session


def demo_config(session: Session | None = None, **kwargs: object) -> Config:
    """An app configuration without a store, with the stand-in computer and fixed hints."""
    config = Config(
        session=session or demo_session(),
        use_store=False,
        pace=0.0,
        theme="dark",
        strategy_factory=fallback_strategy,
        advisor=fake_advisor,
        analyser=lambda game: "Analysis shown here when fivedice.analysis is installed.",
    )
    for key, value in kwargs.items():
        setattr(config, key, value)
    return config


async def _shoot(path: Path, size: tuple[int, int], real_hints: bool) -> None:
    app = FiveDiceApp(demo_config(demo_session(advisor=solver_advisor if real_hints else fake_advisor)))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("2", "4", "h")
        await app.workers.wait_for_complete()
        await pilot.pause()
        app.save_screenshot(path.name, str(path.parent))


def screenshot(path: str | Path, size: tuple[int, int] = (80, 24), real_hints: bool = False) -> Path:
    """Save an SVG picture of the demo game screen to ``path`` (``real_hints``: the solver's)."""
    target = Path(path)
    asyncio.run(_shoot(target, size, real_hints))
    return target


if __name__ == "__main__":  # pragma: no cover
    print(screenshot(sys.argv[1] if len(sys.argv) > 1 else "tui-game.svg", real_hints=True))
