"""Real server processes: a restart in the middle of a game, and two processes sharing PostgreSQL.

The scale-out tests need PostgreSQL (``FIVEDICE_TEST_POSTGRES_URL``) and, for the Redis fan-out,
Redis (``FIVEDICE_TEST_REDIS_URL``); they skip with a message when the server is unreachable.
"""

from __future__ import annotations

import os
import secrets
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import pytest

from fivedice.web.db import RoomStore
from fivedice.web.results import HOLD_RECORDING
from tests.web.conftest import Msg, RemoteConn, Server, intent, play_remote, recorded_rows, replays

POSTGRES = os.environ.get("FIVEDICE_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")
REDIS = os.environ.get("FIVEDICE_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def human_to_act(seats: tuple[int, ...], moves: int) -> object:
    return lambda s: s["game"] is not None and s["game"]["moves"] >= moves and s["game"]["current"] in seats


def new_room(server: Server, **body: object) -> Msg:
    r = httpx.post(server.url + "/api/rooms", json={"name": "Ann", "rules": "yacht", **body})
    assert r.status_code == 201, r.text
    made: Msg = r.json()
    return made


def join(server: Server, code: str, name: str) -> str:
    r = httpx.post(f"{server.url}/api/rooms/{code}/join", json={"name": name})
    assert r.status_code == 200, r.text
    return str(r.json()["token"])


def start(conns: dict[int, RemoteConn]) -> None:
    version = conns[0].state["version"]
    conns[0].send(type="start")
    for conn in conns.values():
        conn.version(version)


def test_a_killed_server_restarts_and_the_game_finishes_with_no_move_lost(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'rooms.db'}"
    server = Server(db, "--seed", "5", "--computer-delay", "0", "--no-scores", log=tmp_path / "server.log")
    server.start()
    try:
        made = new_room(server, humans=2, computers=["greedy"])
        code = made["code"]
        tokens = {0: made["token"], 1: join(server, code, "Bob")}
        conns = {seat: RemoteConn(server.ws, code, token) for seat, token in tokens.items()}
        start(conns)
        half = play_remote(conns, until=human_to_act((0, 1), 40))  # type: ignore[arg-type]
        assert half["status"] == "playing"
        stored = httpx.get(f"{server.url}/api/rooms/{code}/log").json()["moves"]
        assert len(stored) == half["game"]["moves"]  # every accepted move is already committed
        server.kill()  # SIGKILL: no shutdown hook runs
        for conn in conns.values():
            conn.close()
        server.start()
        conns = {seat: RemoteConn(server.ws, code, token) for seat, token in tokens.items()}
        assert conns[0].state["game"] == half["game"]  # exactly where it stopped, dice and all
        assert conns[1].you == 1
        final = play_remote(conns)
        log = httpx.get(f"{server.url}/api/rooms/{code}/log").json()
        assert log["moves"][: len(stored)] == stored
        game = replays(log)
        assert game.is_over
        assert list(game.state.totals) == final["game"]["totals"]
        assert len(log["moves"]) == final["game"]["moves"]
        for conn in conns.values():
            conn.close()
    finally:
        server.stop()


def test_fivedice_db_names_the_file_of_rooms_and_scores_as_for_fivedice_scores(tmp_path: Path) -> None:
    """``FIVEDICE_DB=/path/x.db fivedice serve``: a plain file path, resolved as the score store does."""
    path = tmp_path / "x.db"
    server = Server(None, "--seed", "5", env={"FIVEDICE_DB": str(path)}, log=tmp_path / "server.log")
    server.start()
    try:
        made = new_room(server, humans=1)
        conns = {0: RemoteConn(server.ws, made["code"], made["token"])}
        start(conns)
        final = play_remote(conns)
        conns[0].close()
    finally:
        server.stop()
    assert RoomStore(str(path)).room(made["code"]).code == made["code"]
    from fivedice.storage import Store

    with Store(str(path)) as scores:
        (row,) = scores.high_scores("yacht")
    assert (row.name, row.total) == ("Ann", final["game"]["totals"][0])


def told(path: Path, line: str, timeout: float = 60.0) -> None:
    """Wait until a server writes ``line`` to the file at ``path`` (an AssertionError after ``timeout`` s)."""
    deadline = time.monotonic() + timeout
    while not (path.exists() and line in path.read_text(encoding="utf-8").splitlines()):
        assert time.monotonic() < deadline, f"the server did not write {line!r} to {path} within {timeout} s"
        time.sleep(0.05)


def test_a_server_killed_while_recording_a_finished_game_records_it_once_after_its_restart(tmp_path: Path) -> None:
    """SIGKILL between the two writes of a game's recording (its scores, and the room's mark that they are
    written) loses nothing and doubles nothing: the restarted server finds the finished game not marked as
    recorded, with nobody connected to its room, and the high scores then hold it exactly once."""
    path = tmp_path / "rooms.db"
    held = tmp_path / "held"
    server = Server(f"sqlite:///{path}", "--seed", "5", env={HOLD_RECORDING: str(held)}, log=tmp_path / "server.log")
    server.start()
    try:
        made = new_room(server, humans=1)
        code = made["code"]
        conns = {0: RemoteConn(server.ws, code, made["token"])}
        start(conns)
        final = play_remote(conns)
        conns[0].close()
        told(held, f"{code} 1")  # the recording waits between its two writes
        server.kill()  # SIGKILL: no shutdown hook runs
        rooms = RoomStore(f"sqlite:///{path}")
        assert rooms.room(code).recorded == 0  # not marked as written...
        rooms.dispose()
        assert recorded_rows(path, "SELECT count(*) FROM fivedice_games") == [(1,)]  # ... though it was
        server.env = {}
        server.start()
        recorded_rows(path, f"SELECT recorded FROM web_rooms WHERE code = '{code}' AND recorded = 1", timeout=60)
        rows = recorded_rows(path, "SELECT name, total FROM fivedice_results")
    finally:
        server.stop()
    assert rows == [("Ann", final["game"]["totals"][0])]


# -- scale-out on PostgreSQL ---------------------------------------------------------------
def _postgres_or_skip() -> str:
    try:
        import psycopg

        psycopg.connect(POSTGRES, connect_timeout=3).close()
    except Exception as exc:
        pytest.skip(f"PostgreSQL is not reachable at {POSTGRES} ({type(exc).__name__}); scale-out tests skipped.")
    return POSTGRES


def _redis_or_skip() -> str:
    try:
        import redis

        redis.Redis.from_url(REDIS, socket_connect_timeout=3).ping()
    except Exception as exc:
        pytest.skip(f"Redis is not reachable at {REDIS} ({type(exc).__name__}); the Redis fan-out test is skipped.")
    return REDIS


@pytest.fixture
def pg_prefix() -> Iterator[tuple[str, str]]:
    """A PostgreSQL URL and a table prefix of our own, dropped afterwards."""
    url = _postgres_or_skip()
    prefix = f"t{secrets.token_hex(4)}_"
    yield url, prefix
    store = RoomStore(url, prefix)
    store.drop()
    store.dispose()


def two_servers(url: str, prefix: str, pubsub: str, tmp_path: Path, *extra: str) -> tuple[Server, Server]:
    args = ("--table-prefix", prefix, "--pubsub", pubsub, "--computer-delay", "0", "--no-scores", *extra)
    a = Server(url, *args, log=tmp_path / "a.log").start()
    try:
        b = Server(url, *args, log=tmp_path / "b.log").start()
    except Exception:
        a.stop()
        raise
    return a, b


@pytest.mark.parametrize("fanout", ["postgres", "redis"])
def test_two_processes_on_postgresql_play_one_game(pg_prefix: tuple[str, str], fanout: str, tmp_path: Path) -> None:
    url, prefix = pg_prefix
    pubsub = _redis_or_skip() if fanout == "redis" else "postgres"
    a, b = two_servers(url, prefix, pubsub, tmp_path)
    try:
        made = new_room(a, humans=2, computers=["greedy"])
        code = made["code"]
        bob_token = join(b, code, "Bob")  # joined through the other process
        ann = RemoteConn(a.ws, code, made["token"])
        bob = RemoteConn(b.ws, code, bob_token)
        assert bob.state["seats"][1]["name"] == "Bob"
        start({0: ann, 1: bob})
        final = play_remote({0: ann, 1: bob})
        assert bob.state["game"] == ann.state["game"] == final["game"]
        for server in (a, b):
            log = httpx.get(f"{server.url}/api/rooms/{code}/log").json()
            assert list(replays(log).state.totals) == final["game"]["totals"]
        ann.close()
        bob.close()
    finally:
        a.stop()
        b.stop()


def test_concurrent_scores_on_two_processes_are_serialised(pg_prefix: tuple[str, str], tmp_path: Path) -> None:
    """One seat sends a score to both processes at the same instant: never two scores for one turn."""
    url, prefix = pg_prefix
    a, b = two_servers(url, prefix, "postgres", tmp_path)
    try:
        made = new_room(a, humans=1)
        code, token = made["code"], made["token"]
        on_a, on_b = RemoteConn(a.ws, code, token), RemoteConn(b.ws, code, token)
        start({0: on_a, 1: on_b})
        turns = 6
        for turn in range(1, turns + 1):
            version = on_a.state["version"]
            on_a.send(type="roll")
            on_a.version(version)
            while on_b.state["game"]["moves"] < on_a.state["game"]["moves"]:
                on_b.recv()
            boxes = [o["box"] for o in on_a.state["game"]["options"]]
            barrier = threading.Barrier(2)

            def fire(conn: RemoteConn, box: str, barrier: threading.Barrier = barrier) -> None:
                barrier.wait()
                conn.send(type="score", box=box)

            threads = [threading.Thread(target=fire, args=(c, boxes[i])) for i, c in enumerate((on_a, on_b))]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            for conn in (on_a, on_b):
                while conn.state["game"]["moves"] < 2 * turn:
                    conn.recv()
        log = httpx.get(f"{b.url}/api/rooms/{code}/log").json()
        scores = [m["record"] for m in log["moves"] if m["record"]["type"] == "score"]
        assert len(scores) == turns
        assert len(log["moves"]) == 2 * turns
        assert replays(log).state.turns == turns
        on_a.close()
        on_b.close()
    finally:
        a.stop()
        b.stop()


class Noting(RemoteConn):
    """A :class:`RemoteConn` that keeps every message it received."""

    def __init__(self, url: str, code: str, token: str | None) -> None:
        self.seen: list[Msg] = []
        super().__init__(url, code, token)

    def recv(self) -> Msg:
        msg = super().recv()
        self.seen.append(msg)
        return msg

    def time_is_up(self) -> list[tuple[object, str]]:
        """Each "Time is up" notice received, with the turn on the table when it came (round and seat)."""
        turn: object = None
        told = []
        for m in self.seen:
            if m["type"] == "state" and m["state"]["game"]:
                turn = (m["state"]["game"]["round"], m["state"]["game"]["current"])
            elif m["type"] == "notice" and m["text"].startswith("Time is up"):
                told.append((turn, m["text"]))
        return told


def test_time_is_up_is_told_once_per_turn_with_two_processes(pg_prefix: tuple[str, str], tmp_path: Path) -> None:
    """A room that waits when a turn's time runs out, held by two processes (Ann on one, Bob on the other):
    both timers see Bob's time run out, and each player is told once a turn (each process had told its own
    players, and then relayed the other's notice as well). On a loaded machine Ann's own five seconds may
    run out before she has played her turn: that notice is told once too."""
    url, prefix = pg_prefix
    a, b = two_servers(url, prefix, "postgres", tmp_path)
    try:
        made = new_room(a, humans=2, timer=5, away="wait", first="host")
        code = made["code"]
        ann, bob = Noting(a.ws, code, made["token"]), Noting(b.ws, code, join(b, code, "Bob"))
        if ann.state["seats"][1]["name"] != "Bob":  # Bob joined through the other process: heard from it
            ann.until(lambda m: m["type"] == "state" and m["state"]["seats"][1]["name"] == "Bob")
        ann.send(type="start")
        for conn in (ann, bob):
            conn.until(lambda m: m["type"] == "state" and m["state"]["status"] == "playing")
        while ann.state["game"]["current"] == 0:  # Ann plays her turn at once
            version = ann.state["version"]
            ann.send(**intent(ann.state["game"]), version=version)
            ann.version(version)
        for conn in (ann, bob):  # five seconds on, Bob's time is up: both are told
            conn.until(lambda m: m["type"] == "notice" and m["text"].startswith("Time is up for Bob"))
        while bob.state["game"]["current"] == 1:  # then Bob plays his turn, and Ann's time runs out in turn
            version = bob.state["version"]
            bob.send(**intent(bob.state["game"]), version=version)
            bob.version(version)
        for conn in (ann, bob):  # five seconds after Bob's notice, every process's timer has long seen it
            conn.until(lambda m: m["type"] == "notice" and m["text"].startswith("Time is up for Ann"))
        for conn in (ann, bob):
            told = conn.time_is_up()
            assert len(told) == len(set(told)), told  # never twice in one turn
            texts = {text for _turn, text in told}
            assert {f"Time is up for {who}; the room waits for them." for who in ("Bob", "Ann")} <= texts
        ann.close()
        bob.close()
    finally:
        a.stop()
        b.stop()
