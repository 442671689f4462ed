"""Turn timers, presence, the schema, and two app instances sharing one database in process."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from fivedice.web.app import create_app
from fivedice.web.db import SCHEMA_VERSION, RoomStore
from fivedice.web.errors import SchemaError
from fivedice.web.pubsub import MemoryHub
from tests.web.conftest import LOOSE, create, free_port, hello, play, replays


def two_player_room(client: TestClient, **settings: object) -> tuple[str, str, str]:
    made = create(client, rules="yacht", humans=2, **settings)
    bob = client.post(f"/api/rooms/{made['code']}/join", json={"name": "Bob"}).json()
    return made["code"], made["token"], bob["token"]


def test_timer_with_computer_policy_plays_the_late_players_turn(client: TestClient) -> None:
    code, ann_token, bob_token = two_player_room(client, timer=30, away="computer")
    service = client.app.state.service  # type: ignore[attr-defined]
    with hello(client, code, ann_token) as ann, hello(client, code, bob_token) as bob:
        assert ann.state["deadline"] is None
        ann.send(type="start")
        state = ann.until(lambda m: m["type"] == "state" and m["state"]["game"]["phase"] == "play")["state"]
        assert state["deadline"] == pytest.approx(time.time() + 30, abs=5)
        late = state["game"]["current"]
        service.clock = lambda: time.time() + 60  # the late player's time runs out
        state = ann.until(lambda m: m["type"] == "state" and m["state"]["game"]["current"] != late)["state"]
        assert any("Time ran out for" in e for e in state["events"])
        log = client.get(f"/api/rooms/{code}/log").json()
        assert {m["by"] for m in log["moves"] if m["record"]["type"] != "rolloff"} == {"timer"}
        assert {m["by"] for m in log["moves"] if m["record"]["type"] == "rolloff"} == {"auto"}  # the table's
        assert state["deadline"] > time.time() + 60  # a fresh turn, a fresh timer
        bob.version(state["version"] - 1)


def test_timer_with_wait_policy_tells_the_room(client: TestClient) -> None:
    code, ann_token, bob_token = two_player_room(client, timer=30, away="wait")
    service = client.app.state.service  # type: ignore[attr-defined]
    with hello(client, code, ann_token) as ann, hello(client, code, bob_token):
        ann.send(type="start")
        state = ann.until(lambda m: m["type"] == "state" and m["state"]["game"]["phase"] == "play")["state"]
        service.clock = lambda: time.time() + 60
        notice = ann.until(lambda m: m["type"] == "notice" and "Time is up" in m["text"])
        assert notice["text"] == f"Time is up for {['Ann', 'Bob'][state['game']['current']]}; the room waits for them."
        assert {m["record"]["type"] for m in client.get(f"/api/rooms/{code}/log").json()["moves"]} == {"rolloff"}


def test_others_see_who_is_online(client: TestClient) -> None:
    code, ann_token, bob_token = two_player_room(client)
    with hello(client, code, ann_token) as ann:
        assert [s["online"] for s in ann.state["seats"]] == [True, False]
        ann.until(lambda m: m["type"] == "chat_history")
        mark = len(ann.seen)

        def presence() -> dict[str, object]:
            return ann.until(lambda m: m["type"] == "presence")

        with hello(client, code, bob_token) as bob:
            assert [s["online"] for s in bob.state["seats"]] == [True, True]
            assert presence() == {"type": "presence", "online": [0, 1], "watchers": 0, "spectators": []}
            with hello(client, code, None):
                assert presence() == {"type": "presence", "online": [0, 1], "watchers": 1, "spectators": [None]}
            assert presence() == {"type": "presence", "online": [0, 1], "watchers": 0, "spectators": []}
        assert presence() == {"type": "presence", "online": [0], "watchers": 0, "spectators": []}
        assert all(m["type"] == "presence" for m in ann.seen[mark:])  # never the whole state again
        assert client.get(f"/api/rooms/{code}").json()["seats"][1]["name"] == "Bob"


def test_schema_is_versioned_and_a_newer_one_is_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'rooms.db'}"
    store = RoomStore(url)
    assert store.migrate() == SCHEMA_VERSION  # already current: nothing to do
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE web_meta SET value = :v WHERE key = 'schema'"), {"v": str(SCHEMA_VERSION + 1)})
    store.dispose()
    with pytest.raises(SchemaError, match="newer than this fivedice supports"):
        RoomStore(url)


def test_an_old_empty_database_is_upgraded(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'rooms.db'}"
    store = RoomStore(url)
    with store.engine.begin() as conn:
        conn.execute(text("DELETE FROM web_meta"))
        conn.execute(text("DROP TABLE web_moves"))
    store.dispose()
    again = RoomStore(url)  # version 0 -> current: the missing table is made, the others kept
    assert again.codes() == []
    with again.engine.begin() as conn:
        assert conn.execute(text("SELECT value FROM web_meta")).scalar() == str(SCHEMA_VERSION)
        assert conn.execute(text("SELECT count(*) FROM web_moves")).scalar() == 0


def test_two_app_instances_on_one_database_play_one_game(tmp_path: Path) -> None:
    """Two servers (here in one process, sharing a SQLite file and an in-memory bus)."""
    url = f"sqlite:///{tmp_path / 'rooms.db'}"
    hub = MemoryHub()
    kwargs = {"computer_delay": 0.0, "scores": False, "limits": LOOSE}
    one = create_app(url, pubsub=hub, seed=1, **kwargs)  # type: ignore[arg-type]
    two = create_app(url, pubsub=hub.peer(), seed=2, **kwargs)  # type: ignore[arg-type]
    with TestClient(one) as c1, TestClient(two) as c2:
        code, ann_token, bob_token = two_player_room(c1)
        with hello(c1, code, ann_token) as ann, hello(c2, code, bob_token) as bob:
            # presence crosses servers: Bob's server asks, Ann's answers
            if not bob.state["seats"][0]["online"]:
                bob.until(lambda m: m["type"] == "presence" and 0 in m["online"])
            ann.send(type="start")
            ann.version(ann.state["version"])
            bob.version(bob.state["version"])
            final = play({0: ann, 1: bob})
            assert bob.state["game"] == final["game"]
        log = c2.get(f"/api/rooms/{code}/log").json()
    game = replays(log)
    assert list(game.state.totals) == final["game"]["totals"]


def test_simultaneous_intents_on_two_servers_are_serialised(tmp_path: Path) -> None:
    """The same seat sends the same score to both servers at once: exactly one is stored."""
    url = f"sqlite:///{tmp_path / 'rooms.db'}"
    hub = MemoryHub()
    kwargs = {"computer_delay": 0.0, "scores": False, "limits": LOOSE}
    one = create_app(url, pubsub=hub, seed=1, **kwargs)  # type: ignore[arg-type]
    two = create_app(url, pubsub=hub.peer(), seed=2, **kwargs)  # type: ignore[arg-type]
    with TestClient(one) as c1, TestClient(two) as c2:
        made = create(c1, rules="yacht", humans=1)
        code, token = made["code"], made["token"]
        with hello(c1, code, token) as a1, hello(c2, code, token) as a2:
            a1.send(type="start")
            a1.version(a1.state["version"])
            errors = 0
            for turn in range(1, 6):
                version = a1.state["version"]
                a1.send(type="roll")
                a1.version(version)
                a2.version(version)
                barrier = threading.Barrier(2)

                def fire(conn: object, box: str, barrier: threading.Barrier = barrier) -> None:
                    barrier.wait()
                    conn.send(type="score", box=box)  # type: ignore[attr-defined]

                open_boxes = [o["box"] for o in a1.state["game"]["options"]]
                threads = [threading.Thread(target=fire, args=(c, open_boxes[i])) for i, c in enumerate((a1, a2))]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                # one of them wins; the loser is told why; both see the one new state
                for conn in (a1, a2):
                    conn.ws.send_text(json.dumps({"type": "ping"}))
                    conn.until(lambda m: m["type"] == "pong")
                    while conn.state["game"]["moves"] < 2 * turn:
                        conn.recv()
                    errors += sum(m["type"] == "error" for m in conn.seen)
                    conn.seen.clear()
                assert a1.state["game"]["moves"] == a2.state["game"]["moves"] == 2 * turn
            assert errors == 5
            log = c1.get(f"/api/rooms/{code}/log").json()
    scores = [m for m in log["moves"] if m["record"]["type"] == "score"]
    assert len(scores) == 5
    assert replays(log).state.turns == 5


def test_serve_is_a_fivedice_command() -> None:
    from click.testing import CliRunner

    from fivedice.cli import main

    result = CliRunner().invoke(main, ["serve", "--help"])
    assert result.exit_code == 0
    assert "--db URL" in result.output
    assert "--pubsub" in result.output
    port = str(free_port())  # not the default 8000, which another program may hold (its error would come first)
    bad = CliRunner().invoke(main, ["serve", "--db", "sqlite://", "--pubsub", "carrier-pigeon", "--port", port])
    assert bad.exit_code == 2
    assert "Pub/sub 'carrier-pigeon' is unknown" in bad.output


def test_idle_rooms_leave_memory_and_come_back_from_the_database(client: TestClient) -> None:
    service = client.app.state.service  # type: ignore[attr-defined]
    made = create(client, rules="yacht", humans=1)
    with hello(client, made["code"], made["token"]) as ann:
        ann.send(type="start")
        ann.version(1)
        ann.send(type="roll")
        before = ann.version(2)
    assert made["code"] in service.rooms
    service.clock = lambda: time.time() + 3600
    for _ in range(40):
        if made["code"] not in service.rooms:
            break
        time.sleep(0.05)
    assert made["code"] not in service.rooms
    with hello(client, made["code"], made["token"]) as again:
        assert again.state["game"] == before["game"]


def test_a_shutdown_lets_a_finished_game_be_written_to_the_high_scores(tmp_path: Path) -> None:
    """A server stopped just after a game ended still records it: the recording is waited for, not cancelled
    with the other background work (else the game would wait for a process's next look for unrecorded games)."""
    from fivedice.storage import Store

    url = f"sqlite:///{tmp_path / 'rooms.db'}"
    app = create_app(url, pubsub="none", seed=7, computer_delay=0, limits=LOOSE)
    asked, closing = threading.Event(), threading.Event()
    with TestClient(app) as client:
        service = client.app.state.service  # type: ignore[attr-defined]
        hints = service.results.extras.hints

        def slow_hints(code: str, game_no: int) -> object:  # the recording's step before it writes
            asked.set()
            closing.wait(30)
            return hints(code, game_no)

        service.results.extras.hints = slow_hints
        close = service.close

        async def closing_close() -> None:
            closing.set()
            await close()

        service.close = closing_close
        made = create(client, rules="yacht", humans=1)
        with hello(client, made["code"], made["token"]) as ann:
            ann.send(type="start")
            final = play({0: ann})
        assert asked.wait(30)
    with Store(url) as scores:
        (row,) = scores.high_scores("yacht")
    assert (row.name, row.total) == ("Ann", final["game"]["totals"][0])


def test_a_shutdown_waits_for_a_recording_started_while_it_waits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game that ends while the server shuts down (a computer's last move, another recording's follow-up) is
    recorded too: the shutdown lets every recording finish, also one started while it waits for the others
    (it used to wait only for those under way when it began, and cancel the rest)."""
    import asyncio
    from types import SimpleNamespace
    from typing import cast

    from fivedice.web.rooms import Room
    from fivedice.web.service import RoomService

    first, second = (
        cast(Room, SimpleNamespace(table=None, flags=SimpleNamespace(driving=False), current_seat=lambda: None))
        for _ in range(2)
    )
    written: list[Room] = []

    async def shut_down() -> None:
        service = RoomService(RoomStore(f"sqlite:///{tmp_path / 'rooms.db'}"))
        service.outbox._idle.set()  # nothing to publish
        waiting, wait = asyncio.Event(), asyncio.wait

        async def waits(*args: Any, **kwargs: Any) -> Any:
            waiting.set()  # the shutdown now waits for the recordings under way
            return await wait(*args, **kwargs)

        monkeypatch.setattr(asyncio, "wait", waits)

        async def record(room: Room) -> bool:
            if room is first:
                await waiting.wait()
                service._after_change(second, record=True)  # meanwhile another game ends
            for _ in range(10 if room is first else 50):  # writing takes a while
                await asyncio.sleep(0)
            written.append(room)
            return True

        monkeypatch.setattr(service.results, "record", record)
        service._after_change(first, record=True)
        await service.close()

    asyncio.run(shut_down())
    assert written == [first, second]
