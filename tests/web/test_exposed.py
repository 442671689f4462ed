"""The server as a stranger on the internet meets it (issue 23): a fresh install starts, bad ports and
busy ports are one sentence, rule sets are names (never paths), requests cannot order unbounded work,
and every refusal is ``{"error": ...}``."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy.exc import IntegrityError

from fivedice.rules import get
from fivedice.services import chancejobs
from fivedice.services.chancejobs import ChanceKind
from fivedice.solver import readiness
from fivedice.table.seat import SeatKind
from tests.web.conftest import Server, create, hello


def fresh_env(home: Path) -> dict[str, str]:
    """The environment of a new machine: a home and user folders that are empty, no database named."""
    return {
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "FIVEDICE_DB": "",
    }


def test_a_fresh_install_serves(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    server = Server(None, "--no-chances", env=fresh_env(home)).start()
    try:
        r = httpx.get(server.url + "/api/rules", timeout=10)
        assert r.status_code == 200
        made = httpx.post(server.url + "/api/rooms", json={"name": "Ann"}, timeout=10)
        assert made.status_code == 201, made.text
    finally:
        server.stop()
    assert (home / ".local" / "share" / "fivedice" / "fivedice.db").is_file()


def serve(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    """``fivedice serve`` run to its end (these fail at once)."""
    env = {**os.environ, **fresh_env(home)}
    return subprocess.run(
        [sys.executable, "-m", "fivedice.web", *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_a_port_out_of_range_is_one_sentence(tmp_path: Path) -> None:
    done = serve("--port", "99999", home=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == "Error: Port 99999 is not valid; expected a number from 0 to 65535.\n"


def test_a_busy_port_is_one_sentence(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = serve("--port", str(port), "--db", f"sqlite:///{tmp_path / 'x.db'}", home=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    busy = f"Error: Port {port} on 127.0.0.1 is already in use by another program;"
    assert done.stderr == busy + " stop it or choose another --port.\n"
    assert not (tmp_path / "x.db").exists()  # refused before any work


# -- item 3: a rule set over the network is a built-in name with options, never a file ---------------
def unknown(name: str) -> str:
    return f"Rule set {name[:40]!r} is unknown; expected one of: yahtzee, yacht, yatzy, kismet, generala."


def test_a_rule_set_file_is_never_read_for_a_visitor(client: TestClient, tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text('base = "yahtzee"\nname = "mine"\n')
    r = client.get("/api/challenges/today", params={"rules": str(path)})
    assert r.status_code == 400, r.text
    assert r.json() == {"error": unknown(str(path))}


@pytest.mark.parametrize("name", ["/etc/passwd", "/etc/shadow", "/dev/zero", "/nonexistent/x.toml", "x.toml", "nosuch"])
def test_every_unknown_rule_set_gets_the_same_sentence(client: TestClient, name: str) -> None:
    r = client.get("/api/challenges/today", params={"rules": name})
    assert (r.status_code, r.json()) == (400, {"error": unknown(name)})


def test_a_fifo_as_rule_set_blocks_nothing(client: TestClient, tmp_path: Path) -> None:
    fifo = tmp_path / "rules.toml"
    os.mkfifo(fifo)
    r = client.get("/api/challenges/today", params={"rules": str(fifo)})
    assert (r.status_code, r.json()) == (400, {"error": unknown(str(fifo))})


def test_built_in_rule_sets_with_options_still_work(client: TestClient) -> None:
    r = client.get("/api/challenges/today", params={"rules": "Yacht four_kind=four_dice"})
    assert r.status_code == 200, r.text
    assert r.json()["rules"] == "yacht four_kind=four_dice"
    bad = client.get("/api/challenges/today", params={"rules": "yacht joker=maybe"})
    assert bad.status_code == 400
    assert bad.json()["error"].startswith("Option 'joker' is not an option of yacht")


def test_an_empty_rule_set_is_a_400(client: TestClient) -> None:
    r = client.get("/api/challenges/today?rules=")
    assert (r.status_code, r.json()) == (400, {"error": unknown("")})


# -- item 4: what a request can make the server compute is bounded -------------------------------------
@pytest.mark.parametrize("level", ["target:1576", "target:100000", "target:" + "9" * 12])
def test_a_target_above_what_the_rules_score_is_refused(client: TestClient, level: str) -> None:
    r = client.post("/api/rooms", json={"name": "Ann", "rules": "yahtzee", "computers": [level]})
    assert r.status_code == 400, r.text
    assert r.json()["error"] == (
        f"Computer level {level[:40]!r} aims above what yahtzee can score; expected a target from 0 to 1575 points."
    )
    ok = client.post("/api/rooms", json={"name": "Ann", "rules": "yahtzee", "computers": ["target:1575"]})
    assert ok.status_code == 201, ok.text


def test_solve_refuses_an_unreachable_target_at_once(tmp_path: Path) -> None:
    env = {**os.environ, **fresh_env(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "fivedice", "solve", "yahtzee", "--target", "100000"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,  # it used to build a table for 460 s
    )
    assert done.returncode == 2
    assert done.stderr == "Error: Target 100000 is above what yahtzee can score; expected 0 to 1575 points.\n"
    assert not (tmp_path / ".cache").exists()  # nothing built, nothing cached


@pytest.fixture
def no_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """An empty solver cache, and a process budget that refuses every preparation."""
    monkeypatch.setenv("FIVEDICE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(chancejobs, "_SOLVER_READY", set())
    yield
    chancejobs.configure(chancejobs.Budget())


def test_a_hint_never_builds_a_solver_in_the_request(client: TestClient, no_tables: None) -> None:
    chancejobs.configure(chancejobs.Budget(builds=0))  # create_app set the server's: nothing may start now
    rules = get("generala", served_bonus="10")
    assert not readiness(rules).ready
    made = create(client, rules="generala", options={"served_bonus": "10"}, humans=1, hints=True)
    with hello(client, made["code"], made["token"]) as ann:
        ann.send(type="start")
        ann.version(1)
        ann.send(type="roll")
        game = ann.version(2)["game"]
        ann.send(type="hint")
        hint = ann.until(lambda m: m["type"] == "hint")
    assert hint["source"] == "points"  # the boxes by their points: no solver was built for it
    assert hint["options"][0]["points"] == max(o["points"] for o in game["options"])
    assert hint["note"] == (
        "The server is preparing 0 tables, its limit; chances and solver levels wait for one to end."
    )
    assert not readiness(rules).ready
    assert (
        chancejobs.job(chancejobs.Need(ChanceKind.SOLVER, rules)) is None
    )  # a refusal is not kept: asked again, it may start


def test_the_budget_refuses_preparations_in_one_sentence() -> None:
    rules = get("yacht")
    try:
        chancejobs.configure(chancejobs.Budget(memory_mb=1))
        job = chancejobs.start(chancejobs.Need(ChanceKind.BEAT, rules, 123))
        assert job.done.is_set()
        assert not job.ok
        assert job.refusal is not None
        used = job.refusal[1]["used"]
        assert job.error == (
            f"The server holds {used} MB and a preparation may take 1280 MB more, above its limit of 1 MB; "
            "chances and solver levels wait."
        )
        assert chancejobs.job(job.need) is None
    finally:
        chancejobs.configure(chancejobs.Budget())


def test_a_solver_level_on_an_unshipped_variant_is_a_preparation(no_tables: None) -> None:
    from fivedice.engine.state import GameState

    rules = get("generala", served_bonus="10")
    state = GameState.new(rules, ("Ann", "Bo"))
    need = chancejobs.for_level("hard", state)
    assert need == chancejobs.Need(ChanceKind.SOLVER, rules)
    assert chancejobs.needs_build(need)
    assert chancejobs.for_level("greedy", state) is None
    assert chancejobs.for_level("hard", GameState.new(get("yacht"), ("Ann", "Bo"))) is None  # shipped


# -- item 9: every refusal is {"error": "<one sentence>"} with a 4xx ------------------------------------
EXAMPLE = '{"name": "Ann"}'


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "error"),
    [
        ("GET", "/nope", b"", 404, "Path '/nope' is not a page or an API route of this server."),
        ("GET", "/static/nope.js", b"", 404, "Path '/static/nope.js' is not a page or an API route of this server."),
        ("DELETE", "/api/rules", b"", 405, "Method DELETE is not allowed on '/api/rules'; expected GET."),
        ("PUT", "/api/rooms", b"{}", 405, "Method PUT is not allowed on '/api/rooms'; expected POST."),
        ("POST", "/api/rooms", b'{"name": "\xff\xfe"}', 400,
         "Request body is not valid UTF-8 (at byte 10); expected JSON text."),
        ("POST", "/api/rooms", b'{"name": "Ann", "humans": ' + b"9" * 5000 + b"}", 400,
         f"Request body has a number too long to read; expected an object like {EXAMPLE}."),
        ("POST", "/api/rooms", b"[" * 4000 + b"]" * 4000, 400,
         f"Request body nests too deeply; expected an object like {EXAMPLE}."),
        ("POST", "/api/rooms", b'{"a":' * 1300 + b"1" + b"}" * 1300, 400,
         f"Request body nests too deeply; expected an object like {EXAMPLE}."),
    ],
)  # fmt: skip
def test_framework_refusals_are_one_sentence(
    client: TestClient, method: str, path: str, body: bytes, status: int, error: str
) -> None:
    r = client.request(method, path, content=body, headers={"content-type": "application/json"})
    assert (r.status_code, r.json()) == (status, {"error": error})
    assert r.headers["content-security-policy"]  # the guard's headers, as on every answer


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (
            "[" * 1000 + "]" * 1000,
            'Message nests too deeply; expected an object like {"type": "roll"}.',
        ),
        ('{"type": "roll", "version": ' + "9" * 1900 + "}", None),
    ],
)
def test_a_socket_answers_deep_nesting_and_long_numbers(client: TestClient, text: str, error: str | None) -> None:
    made = create(client)
    with hello(client, made["code"], made["token"]) as ann:
        ann.ws.send_text(text)
        message = ann.error()
        assert message == error if error is not None else message.endswith(".")
        ann.send(type="ping", id=1)
        assert ann.until(lambda m: m["type"] == "pong")["id"] == 1  # still connected


def test_a_malformed_request_line_is_json(tmp_path: Path) -> None:
    server = Server(f"sqlite:///{tmp_path / 'x.db'}", "--no-chances").start()
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            sock.sendall(b"GARBAGE\r\n\r\n")
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
    finally:
        server.stop()
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 ")
    assert b"content-type: application/json" in head.lower()
    expected = "The request is not valid HTTP/1.1; send a well-formed request line and headers."
    assert json.loads(body) == {"error": expected}


# -- item 10: look-alike capitals, quiet logs, the lock wait, security headers ---------------------------
@pytest.mark.parametrize(("first", "second"), [("BOB", "ВОВ"), ("PAPA", "РАРА"), ("ABE", "ΑΒΕ")])
def test_capital_look_alikes_are_one_name(client: TestClient, first: str, second: str) -> None:
    made = create(client, name=first, humans=2)
    r = client.post(f"/api/rooms/{made['code']}/join", json={"name": second})
    assert r.status_code == 400, r.text
    assert r.json()["error"] == (
        f"Name {second!r} looks like {first!r}, already in room {made['code']!r}; choose another."
    )


def test_errors_in_the_logs_never_show_token_hashes(tmp_path: Path) -> None:
    from fivedice.web.db import RoomStore, SeatRow

    store = RoomStore(f"sqlite:///{tmp_path / 'x.db'}")
    try:
        seats = [
            SeatRow(0, "Ann", SeatKind.HUMAN, None, "c0ffee" * 10),
            SeatRow(0, "Bo", SeatKind.HUMAN, None, "beef" * 10),
        ]
        with pytest.raises(IntegrityError) as caught:
            store.create("ABCDEFGH", "yacht", {}, seats, now=1.0)  # seat 0 twice: the insert fails
        assert "seats" in str(caught.value)
        assert "c0ffee" not in str(caught.value)
    finally:
        store.dispose()


def test_queueing_and_the_lock_wait_together_stay_within_the_db_timeout(tmp_path: Path) -> None:
    import asyncio
    import sqlite3
    import time

    from fivedice.web.db import RoomStore
    from fivedice.web.errors import StoreBusyError
    from fivedice.web.limits import Limits
    from fivedice.web.service import RoomService

    path = tmp_path / "x.db"
    store = RoomStore(f"sqlite:///{path}", timeout=2.0)
    service = RoomService(store, limits=Limits(db_timeout=2.0))
    locker = sqlite3.connect(path, timeout=10)
    locker.execute("BEGIN EXCLUSIVE")

    async def both() -> float:
        busy = asyncio.ensure_future(service.db(time.sleep, 1.0))  # the one worker is busy for 1 s
        await asyncio.sleep(0)  # it has taken the worker
        start = time.monotonic()
        with pytest.raises(StoreBusyError):
            await service.db(store.room, "ABCDEFGH")  # queued 1 s, then the lock
        await busy
        return time.monotonic() - start

    try:
        waited = asyncio.run(both())
    finally:
        locker.rollback()
        locker.close()
        service.executor.shutdown()
        store.dispose()
    assert waited < 2.6  # it used to wait 1 s in the queue and then 2 s more for the lock


def test_security_headers(client: TestClient) -> None:
    plain = client.get("/api/rules")
    assert "frame-ancestors 'none'" in plain.headers["content-security-policy"]
    assert plain.headers["referrer-policy"] == "no-referrer"
    assert "camera=()" in plain.headers["permissions-policy"]
    assert plain.headers["x-frame-options"] == "DENY"
    assert "strict-transport-security" not in plain.headers
    secure = client.get("https://testserver/api/rules")
    assert secure.headers["strict-transport-security"] == "max-age=31536000"
