"""How long ``python -m fivedice.web`` takes to answer ``/healthz``, and the CPU it spends until then,
beside another tree (the tests start such a server in dozens of places).

Each run starts a fresh server on a free port with a new SQLite file, polls ``/healthz`` until a 200,
reads the process's CPU time from ``/proc`` at that moment, then stops it. Runs of the trees alternate,
so that the others' load on a busy machine falls on both alike; the medians are reported.

    nice .venv/bin/python bench/web_start.py [--runs 5] [--other-src /path/to/old/src]
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
TICKS = os.sysconf("SC_CLK_TCK")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cpu(pid: int) -> float:
    """User plus system seconds of a running process."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def once(src: Path, folder: Path) -> tuple[float, float]:
    """(seconds to a 200 from /healthz, CPU seconds of the server by then)."""
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(src)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    db = f"sqlite:///{folder / f'{port}.db'}"
    cmd = [sys.executable, "-m", "fivedice.web", "--port", str(port), "--rate", "1000", "--db", db]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the server exited with {proc.returncode}: {' '.join(cmd)}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as answer:
                    if answer.status == 200:
                        return time.perf_counter() - start, _cpu(proc.pid)
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.02)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--other-src", type=Path, default=None, help="another tree's src/ to time beside this one")
    args = parser.parse_args()
    trees = ([("other", args.other_src)] if args.other_src is not None else []) + [("this", SRC)]
    results: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in trees}
    with tempfile.TemporaryDirectory() as tmp:
        for _name, src in trees:
            once(src, Path(tmp))  # writes the bytecode
        for _ in range(args.runs):
            for name, src in trees:
                results[name].append(once(src, Path(tmp)))
    print(f"{'tree':60} {'median s to 200':>15} {'median CPU s':>12}")
    rows = {}
    for name, src in trees:
        wall = statistics.median(w for w, _ in results[name])
        cpu = statistics.median(c for _, c in results[name])
        rows[name] = (wall, cpu)
        print(f"{f'{name} ({src})'[-60:]:60} {wall:15.3f} {cpu:12.3f}")
    if "other" in rows:
        (ow, oc), (tw, tc) = rows["other"], rows["this"]
        print(f"{'this / other':60} {tw / ow:15.2f} {tc / oc:12.2f}")


if __name__ == "__main__":
    main()
