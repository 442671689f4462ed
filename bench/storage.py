"""Score store figures: games recorded per second, and high-score / history query times.

Usage: python bench/storage.py [GAMES] [URL]   (default 500 games into a temporary SQLite file;
a URL must name a scratch database: the games stay in it)
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from fivedice import Game
from fivedice.storage import Store


def finished(seed: int, players: list[str]) -> Game:
    """A game played to its end by taking the best-scoring box after one roll."""
    game = Game("yahtzee", players, seed=seed, starter=0)
    while not game.is_over:
        game.roll()
        (card, box), _ = max(game.state.options().items(), key=lambda kv: kv[1])
        game.score(box, card)
    return game


def main() -> None:
    """Print the figures."""
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    with tempfile.TemporaryDirectory() as tmp:
        url = sys.argv[2] if len(sys.argv) > 2 else str(Path(tmp) / "bench.db")
        games = [finished(i, ["Ann"] if i % 2 else ["Ann", "Bob"]) for i in range(n)]
        with Store(url) as store:
            t = time.perf_counter()
            for game in games:
                store.record_game(game, computer={1: "greedy"} if len(game.players) > 1 else None)
            record = time.perf_counter() - t
            t = time.perf_counter()
            for _ in range(20):
                store.high_scores("yahtzee", solo=True)
            scores = (time.perf_counter() - t) / 20
            t = time.perf_counter()
            for _ in range(20):
                history = store.history("ann")
            hist = (time.perf_counter() - t) / 20
        print(f"recorded {n} games in {record:.2f} s ({n / record:.0f} games/s, {record / n * 1000:.1f} ms each)")
        print(f"high_scores over {n} games: {scores * 1000:.1f} ms")
        print(f"history of a {history.count}-game player: {hist * 1000:.1f} ms")


if __name__ == "__main__":
    main()
