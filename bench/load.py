"""Load benchmark: N rooms of computer-driven WebSocket clients against fivedice servers on loopback.

Every room is created and joined over HTTP, its players connect by WebSocket and play a whole
game (by default Yacht, 12 rounds). Each client waits a *think time* before each intent (300 ms
on average by default, like a quick human), so the action rate is set by the clients, not by
the server; ``--think 0`` sends each intent the moment the client may act. The benchmark prints
the actions per second, the latency from sending an intent to receiving the broadcast state it
caused (p50/p99), and checks that every room's stored move log replays through the engine to
the final state the clients saw, with as many moves as the clients had accepted (no action lost
or duplicated). ``--ceiling`` finds the server's own ceiling: rounds of rooms without think time,
doubling the rooms each round, and reports the most actions a second served with p99 < 100 ms.
Bounded in rooms and in wall time (``--timeout``).

The clients take state deltas, as the page does (``--full-states``: whole snapshots after every change).
``--baseline DIR`` measures another source tree's server (``DIR/src``, e.g. an export of the main branch)
against this one in the same run, alternating them ``--repeat`` times, and prints each one's server CPU
per action and their ratio; both take deltas (``--baseline-full-states``: the baseline's clients take whole
snapshots, for a server older than the deltas).

    python bench/load.py                          # 125 rooms x 4 players = 500 clients, SQLite
    python bench/load.py --rooms 25 --players 2   # smaller
    python bench/load.py --ceiling                # no think time: the server's own ceiling
    python bench/load.py --db postgresql://postgres@127.0.0.1:5432/test --servers 2
    mkdir /tmp/main && git archive main src | tar -x -C /tmp/main   # then, main's server against this one:
    python bench/load.py --rooms 25 --players 2 --think 0 --baseline /tmp/main
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2 as httpx
from websockets.asyncio.client import connect

from fivedice.engine import notation
from fivedice.engine.game import Game
from fivedice.rules import parse_spec


@dataclass
class RoomRun:
    """One room under test: its code, seat tokens, the final state and counts seen by its clients."""

    code: str
    tokens: list[str]
    server_of_seat: list[str]
    connected: int = 0
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    final: dict[str, Any] | None = None
    accepted: int = 0
    errors: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)


def intent(game: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Roll; with two rolls left sometimes keep the most common face; else score the best box."""
    if game["phase"] == "rolloff" or game["dice"] is None:
        return {"type": "roll"}
    options = game["options"]
    best = max(options, key=lambda o: (o["points"], rng.random()))
    if game["rolls_left"] > 0 and best["points"] < 20 and rng.random() < 0.7:
        dice = game["dice"]
        face = max(set(dice), key=dice.count)
        keep = [i for i, v in enumerate(dice) if v == face]
        if len(keep) < len(dice):
            return {"type": "roll", "keep": keep}
    return {"type": "score", "box": best["box"], "card": best["card"]}


def apply_delta(state: dict[str, Any], msg: dict[str, Any]) -> dict[str, Any]:
    """The room state after a ``delta`` message (as the page applies it)."""
    if state.get("version") != msg["from"]:
        raise ValueError(f"a delta from version {msg['from']} came to a client at version {state.get('version')}")
    from fivedice.web.snapshot import apply_delta as applied

    return applied(state, msg)


async def player(
    run: RoomRun, seat: int, think: float, rng: random.Random, sem: asyncio.Semaphore, deltas: bool
) -> None:
    """One WebSocket client: acts on its turns, times each intent until the state it causes arrives."""
    url = f"{run.server_of_seat[seat]}/ws/{run.code}"
    async with sem:
        ws = await connect(url.replace("http", "ws", 1), max_size=2**22, open_timeout=60)
    async with ws:
        hello = {"type": "hello", "token": run.tokens[seat]} | ({"deltas": True} if deltas else {})
        await ws.send(json.dumps(hello))
        run.connected += 1
        if run.connected == len(run.tokens):
            run.ready.set()
        if seat == 0:
            await run.ready.wait()
            await ws.send(json.dumps({"type": "start", "version": len(run.tokens)}))
        acted, pending, sent = 0, 0, 0.0
        state: dict[str, Any] = {}
        async for raw in ws:
            if isinstance(raw, bytes):
                continue
            msg = json.loads(raw)
            if msg["type"] == "error":
                run.errors.append(msg["message"])
                pending = 0
                continue
            if msg["type"] == "delta":
                state = apply_delta(state, msg)
            elif msg["type"] == "state":
                state = msg["state"]
            else:
                continue
            version = state["version"]
            if pending and version > pending:
                run.latencies.append(time.perf_counter() - sent)
                run.accepted += 1
                pending = 0
            if state["status"] == "over":
                run.final = state
                return
            game = state["game"]
            if game is None or state["status"] != "playing" or game["current"] != seat or version <= acted:
                continue
            if game["phase"] == "rolloff":
                continue  # the table rolls the roll-off by itself
            if think:
                await asyncio.sleep(think * (0.5 + rng.random()))
            acted = pending = version
            sent = time.perf_counter()
            await ws.send(json.dumps({**intent(game, rng), "version": version}))


def check(run: RoomRun, log: dict[str, Any]) -> str | None:
    """None if the stored log replays to the final state with exactly the accepted moves, else why not."""
    if run.final is None:
        return "the game did not finish"
    game = Game(parse_spec(log["spec"]), log["players"])
    for move in log["moves"]:
        if move["record"]["type"] == "undo":
            game.undo(1)
        else:
            game.push(notation.from_json(move["record"]))
    if list(game.state.totals) != run.final["game"]["totals"] or not game.is_over:
        return f"replayed totals {list(game.state.totals)} differ from {run.final['game']['totals']}"
    players = sum(m["by"] == "seat" for m in log["moves"])  # the table's own roll-off moves are "auto"
    if players != run.accepted:
        return f"{players} stored moves by players but {run.accepted} accepted intents"
    return None


def free_port() -> int:
    """A free TCP port on the loopback interface."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_servers(
    db: str, count: int, args: list[str], source: str | None = None
) -> tuple[list[subprocess.Popen[bytes]], list[str]]:
    """``count`` server processes on the same database (from the source tree ``source``, else the installed
    fivedice); returns them and their base URLs."""
    procs, urls = [], []
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(Path(source) / "src"), *filter(None, [env.get("PYTHONPATH")])])
    for _ in range(count):
        port = free_port()
        cmd = [sys.executable, "-m", "fivedice.web", "--port", str(port), "--db", db, "--no-scores", *args]
        procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env))
        urls.append(f"http://127.0.0.1:{port}")
    for url in urls:
        deadline = time.monotonic() + 120  # a loaded machine (or a first start compiling a tree) is slow
        while True:
            try:
                if httpx.get(url + "/api/rules", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit(f"server at {url} did not start")
            time.sleep(0.1)
    return procs, urls


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process so far (Linux ``/proc``), or None elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def loop_seconds(pid: int) -> float:
    """User + system CPU time so far of a process's main thread (its event loop; Linux ``/proc``), else 0."""
    try:
        fields = Path(f"/proc/{pid}/task/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def bench(opts: argparse.Namespace, urls: list[str], pids: list[int]) -> tuple[int, dict[str, float]]:
    """Set up the rooms, play them, check them; returns the exit status and the figures."""
    rng = random.Random(opts.seed)
    runs: list[RoomRun] = []
    limits = httpx.Limits(max_connections=20)
    async with httpx.AsyncClient(timeout=30, limits=limits) as http:
        for r in range(opts.rooms):
            home = urls[r % len(urls)]
            body = {"name": "P1", "rules": opts.rules, "humans": opts.players, "hints": False}
            made = (await http.post(home + "/api/rooms", json=body)).json()
            tokens, servers = [made["token"]], [home]
            for seat in range(1, opts.players):
                there = urls[(r + seat) % len(urls)]  # seats of a room spread over the processes
                joined = (
                    await http.post(f"{there}/api/rooms/{made['code']}/join", json={"name": f"P{seat + 1}"})
                ).json()
                tokens.append(joined["token"])
                servers.append(there)
            runs.append(RoomRun(made["code"], tokens, servers))
        clients = opts.rooms * opts.players
        print(f"{opts.rooms} rooms x {opts.players} players = {clients} WebSocket clients on {len(urls)} server(s)")
        sem = asyncio.Semaphore(50)
        tasks = [
            asyncio.create_task(player(run, seat, opts.think / 1000, random.Random(rng.random()), sem, opts.deltas))
            for run in runs
            for seat in range(opts.players)
        ]
        t0 = time.perf_counter()
        cpu0 = [cpu_seconds(pid) or 0.0 for pid in pids]
        loop0 = [loop_seconds(pid) for pid in pids]
        own0 = time.process_time()
        done, pending = await asyncio.wait(tasks, timeout=opts.timeout)
        wall = time.perf_counter() - t0
        server_cpu = sum((cpu_seconds(pid) or 0.0) - c for pid, c in zip(pids, cpu0, strict=True))
        loop_cpu = sum(loop_seconds(pid) - c for pid, c in zip(pids, loop0, strict=True))
        client_cpu = time.process_time() - own0
        for task in pending:
            task.cancel()
        failures = [t.exception() for t in done if t.exception() is not None]
        problems = []
        for run in runs:
            log = (await http.get(f"{urls[0]}/api/rooms/{run.code}/log")).json()
            why = check(run, log)
            if why is not None:
                problems.append(f"room {run.code}: {why}")
    latencies = sorted(x for run in runs for x in run.latencies)
    actions = sum(run.accepted for run in runs)
    figures = {"rooms": opts.rooms, "actions_s": actions / wall, "p50": 0.0, "p99": 0.0, "cpu_ms": 0.0}
    finished = sum(run.final is not None for run in runs)
    errors = sum(len(run.errors) for run in runs)
    print(f"finished games      {finished} / {opts.rooms} in {wall:.1f} s (timeout {opts.timeout} s)")
    print(f"accepted actions    {actions}  ({actions / wall:.0f} actions/s)")
    if latencies:
        p50 = statistics.median(latencies) * 1000
        p99 = latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))] * 1000
        print(f"intent -> broadcast p50 {p50:.1f} ms   p99 {p99:.1f} ms   max {latencies[-1] * 1000:.1f} ms")
        figures.update(p50=p50, p99=p99)
    if pids and actions:
        figures["cpu_ms"] = server_cpu / actions * 1000
        print(
            f"CPU                 servers {server_cpu:.1f} s ({server_cpu / actions * 1000:.2f} ms an action), "
            f"load clients {client_cpu:.1f} s, wall {wall:.1f} s, {os.cpu_count()} cores"
        )
        per = 1000 / actions
        others = (server_cpu - loop_cpu) * per
        print(f"                    event loops {loop_cpu * per:.2f} ms, other threads {others:.2f} ms an action")
    print(f"refused intents     {errors}   client failures {len(failures)}")
    print(f"stored logs replay  {opts.rooms - len(problems)} / {opts.rooms} match (no lost or duplicated action)")
    for message in sorted({m for run in runs for m in run.errors})[:5]:
        print(f"  refused: {message}")
    for line in problems[:5]:
        print("  " + line)
    for exc in failures[:3]:
        print(f"  client failure: {exc!r}")
    return (0 if not problems and not failures and finished == opts.rooms else 1), figures


async def ceiling(opts: argparse.Namespace, urls: list[str], pids: list[int]) -> int:
    """Rounds without think time, doubling the rooms, until p99 passes 100 ms (or --rooms is reached)."""
    opts.think, status, steps, rooms = 0.0, 0, [], 1
    while rooms <= opts.rooms:
        step = argparse.Namespace(**{**vars(opts), "rooms": rooms})
        print(f"\n-- {rooms} room(s), no think time")
        code, figures = await bench(step, urls, pids)
        status |= code
        steps.append(figures)
        if figures["p99"] >= 100:
            break
        rooms *= 2
    print("\nrooms  actions/s   p50 ms   p99 ms")
    for f in steps:
        print(f"{f['rooms']:5.0f}  {f['actions_s']:9.0f}  {f['p50']:7.1f}  {f['p99']:7.1f}")
    good = [f for f in steps if f["p99"] < 100]
    if good:
        best = max(good, key=lambda f: f["actions_s"])
        print(f"ceiling: {best['actions_s']:.0f} actions/s with p99 {best['p99']:.1f} ms ({best['rooms']:.0f} rooms)")
    return status


def serve_and_run(opts: argparse.Namespace, source: str | None = None) -> tuple[int, dict[str, float]]:
    """Start the servers (unless --url; from the source tree ``source``), run the benchmark (or the ceiling),
    stop them; returns the exit status and the figures."""
    procs: list[subprocess.Popen[bytes]] = []
    tmp = tempfile.TemporaryDirectory()
    prefix = f"load{secrets.token_hex(3)}_"
    try:
        if opts.url:
            urls = list(opts.url)
        else:
            db = opts.db or f"sqlite:///{Path(tmp.name) / 'load.db'}"
            args = ["--rate", "1000", "--pubsub", opts.pubsub, "--table-prefix", prefix]
            args += ["--rooms-per-minute", "1e6", "--joins-per-minute", "1e6", "--requests-per-second", "1e6"]
            args += ["--max-connections", "5000"]
            procs, urls = start_servers(db, opts.servers, args, source)
            print(f"servers: {', '.join(urls)}  database: {db.split('@')[-1]}  tables: {prefix}*")
        pids = [p.pid for p in procs]
        if opts.ceiling:
            return asyncio.run(ceiling(opts, urls, pids)), {}
        return asyncio.run(bench(opts, urls, pids))
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(10)
        if procs and opts.db:
            from fivedice.web.db import RoomStore

            store = RoomStore(opts.db, prefix)
            store.drop()
            store.dispose()
        tmp.cleanup()


def compare(opts: argparse.Namespace) -> int:
    """The baseline's servers and this tree's, alternately ``--repeat`` times: CPU per action and the ratio."""
    cpu: dict[str, list[float]] = {"baseline": [], "this": []}
    status, full = 0, opts.full_states
    for n in range(opts.repeat):
        for label, source in (("baseline", opts.baseline), ("this", None)):
            opts.deltas = not full and not (label == "baseline" and opts.baseline_full_states)
            print(f"\n-- run {n + 1} of {opts.repeat}: {label} ({source or 'this tree'}), deltas {opts.deltas}")
            code, figures = serve_and_run(opts, source)
            status |= code
            cpu[label].append(figures.get("cpu_ms", 0.0))
    before, after = statistics.median(cpu["baseline"]), statistics.median(cpu["this"])
    print(f"\nserver CPU per action, median of {opts.repeat} runs each (load average {os.getloadavg()[0]:.1f} now)")
    print(f"  baseline {before:.3f} ms   ({', '.join(f'{x:.3f}' for x in cpu['baseline'])})")
    print(f"  this     {after:.3f} ms   ({', '.join(f'{x:.3f}' for x in cpu['this'])})")
    if after:
        print(f"  ratio    {before / after:.2f}x less CPU per action")
    return status


def main() -> int:
    """Parse the options, start the servers (unless --url), run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rooms", type=int, default=125, help="rooms (default 125)")
    parser.add_argument("--players", type=int, default=4, help="WebSocket clients per room (default 4)")
    parser.add_argument("--rules", default="yacht", help="rule set (default yacht: 12 rounds)")
    parser.add_argument("--think", type=float, default=300, help="mean think time before an intent, ms (300)")
    parser.add_argument("--timeout", type=float, default=300, help="wall-time bound in seconds (300)")
    parser.add_argument("--db", default=None, help="database URL (default: a temporary SQLite file)")
    parser.add_argument("--servers", type=int, default=1, help="server processes on the same database (1)")
    parser.add_argument("--pubsub", default="auto", help="fan-out between servers: auto, postgres, redis://...")
    parser.add_argument("--url", action="append", default=None, help="use running server(s) instead")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ceiling", action="store_true", help="no think time, doubling rooms up to --rooms")
    parser.add_argument("--full-states", action="store_true", help="clients take whole snapshots, not deltas")
    parser.add_argument("--baseline", default=None, help="also measure the server of this source tree (DIR/src)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each server with --baseline (3)")
    parser.add_argument("--baseline-full-states", action="store_true", help="the baseline's clients take snapshots")
    opts = parser.parse_args()
    if not 1 <= opts.rooms <= 2000 or not 1 <= opts.players <= 8:
        parser.error("--rooms must be 1 to 2000 and --players 1 to 8")
    if opts.baseline and (opts.url or opts.ceiling or not 1 <= opts.repeat <= 20):
        parser.error("--baseline starts its own servers, without --url or --ceiling, and --repeat is 1 to 20")
    opts.deltas = not opts.full_states
    # the measuring client must not add pauses of its own: rare, young-only garbage collections
    gc.freeze()
    gc.set_threshold(100_000, 1000, 1000)
    if opts.baseline:
        return compare(opts)
    return serve_and_run(opts)[0]


if __name__ == "__main__":
    sys.exit(main())
