"""How long the terminal game takes to switch language mid-game (all screens written again).

python bench/tui_language.py
"""

from __future__ import annotations

import asyncio
import time

from fivedice import i18n
from fivedice.tui import FiveDiceApp
from fivedice.tui.demo import demo_config
from fivedice.tui.play import GameScreen


async def main(rounds: int = 20) -> None:
    app = FiveDiceApp(demo_config())
    codes = list(i18n.available_languages())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
        switch, shown = [], []
        for i in range(rounds):
            start = time.perf_counter()
            app.switch_language(codes[i % len(codes)])
            switch.append(time.perf_counter() - start)
            await pilot.pause()
            shown.append(time.perf_counter() - start)
        base = []
        for _ in range(rounds):
            start = time.perf_counter()
            app.screen.sync()  # nothing changed: no widget draws
            await pilot.pause()
            base.append(time.perf_counter() - start)
    i18n.set_language("en")
    print(f"switch_language (every widget's text rewritten): {1000 * sum(switch) / rounds:.2f} ms mean")
    print(f"until the next frame is drawn (footer rebuilt): {1000 * sum(shown) / rounds:.1f} ms mean")
    print(f"for comparison, a sync with nothing changed until the next frame: {1000 * sum(base) / rounds:.1f} ms mean")


if __name__ == "__main__":
    asyncio.run(main())
