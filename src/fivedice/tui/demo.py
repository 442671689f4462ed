"""A fixed mid-game position and a screenshot of it: ``python -m fivedice.tui.demo OUT.svg``.

Used for the README's picture and the snapshot tests; everything is seeded (the dice, the greedy
computer, the moves played for Ann), so the picture never changes by accident.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from fivedice import rules
from fivedice.players import get as get_strategy
from fivedice.table.seat import Seat, SeatKind
from fivedice.tui.app import Config, FiveDiceApp
from fivedice.tui.session import Session, new_table

__all__ = ["demo_config", "demo_session", "play_humans", "screenshot"]


def play_humans(session: Session, until: int, seed: int = 7) -> None:
    """Play the game on (the humans' moves by a seeded greedy player) until round ``until`` starts for
    the first seat, or the game ends; the roll-off and computers play themselves."""
    table = session.table
    player = get_strategy("greedy", table.rules, seed=seed)
    while True:
        table.advance()
        state = table.state
        if table.is_over or (state.round >= until and state.current == 0 and state.dice is None):
            return
        table.play(player.choose(state))


def demo_session(rounds: int = 5, seed: int = 7) -> Session:
    """Ann (human) against Robo (greedy computer) in Yahtzee, ``rounds`` rounds in, Ann's first roll made."""
    table = new_table(rules.get("yahtzee"), [Seat("Ann"), Seat("Robo", SeatKind.COMPUTER, "greedy")], seed=seed)
    session = Session(table)
    play_humans(session, rounds, seed)
    table.roll()
    return session


def demo_config(session: Session | None = None, **kwargs: object) -> Config:
    """An app configuration without a store, the computer at once, hints without chances (nothing
    prepared in the background) and no end-of-game analysis."""
    config = Config(
        session=session or demo_session(),
        use_store=False,
        pace=0.0,
        chances=False,
        theme="dark",
        analyser=lambda game: "Analysis shown here.",
    )
    for key, value in kwargs.items():
        setattr(config, key, value)
    return config


async def _shoot(path: Path, size: tuple[int, int]) -> None:
    app = FiveDiceApp(demo_config(demo_session()))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("2", "4", "h")
        await app.workers.wait_for_complete()
        await pilot.pause()
        app.save_screenshot(path.name, str(path.parent))


def screenshot(path: str | Path, size: tuple[int, int] = (80, 24)) -> Path:
    """Save an SVG picture of the demo game screen (with the advisor's hint) to ``path``."""
    target = Path(path)
    asyncio.run(_shoot(target, size))
    return target


if __name__ == "__main__":  # pragma: no cover
    print(screenshot(sys.argv[1] if len(sys.argv) > 1 else "tui-game.svg"))
