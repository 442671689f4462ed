"""A build runs on daemon threads: a process that ends during a build ends at once (issue 27: exit hung
4-80 s while a pool's workers finished a chance table)."""

from __future__ import annotations

import subprocess
import sys
import threading

import numpy as np

from fivedice import rules
from fivedice.solver.cache import build, run_layers

EXITS = r"""
import threading, sys
import numpy as np
from fivedice.solver.cache import run_layers
started = threading.Event()
def work(a, b):
    started.set()
    threading.Event().wait()  # a build that never ends
states = np.arange(400, dtype=np.int64)
starts = np.array([0, 400], dtype=np.int64)
threading.Thread(target=run_layers, args=(states, starts, work, 16, 2), daemon=True).start()
started.wait()
print("leaving", flush=True)
sys.exit(0)
"""


def test_a_process_exits_while_a_build_runs() -> None:
    done = subprocess.run([sys.executable, "-c", EXITS], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "leaving"


def test_layers_run_in_order_on_daemon_threads() -> None:
    seen: list[tuple[int, int, bool]] = []
    lock = threading.Lock()

    def work(a: int, b: int) -> None:
        with lock:
            seen.append((a, b, threading.current_thread().daemon))

    states = np.arange(300, dtype=np.int64)
    starts = np.array([0, 100, 300], dtype=np.int64)
    shares: list[float] = []
    run_layers(states, starts, work, 16, 2, shares.append)
    assert all(daemon for _a, _b, daemon in seen)
    assert sorted((a, b) for a, b, _d in seen)[0][0] == 0
    covered = sorted(i for a, b, _d in seen for i in range(a, b))
    assert covered == list(range(300))
    first_layer = [i for i, (a, _b, _d) in enumerate(seen) if a < 100]
    assert max(first_layer) < min(i for i, (a, _b, _d) in enumerate(seen) if a >= 100)
    assert shares == [100 / 300, 1.0]


def test_threads_do_not_change_the_values() -> None:
    rs = rules.get("yacht")
    one, two = build(rs, threads=1), build(rs, threads=2)
    assert np.array_equal(one.values, two.values)
