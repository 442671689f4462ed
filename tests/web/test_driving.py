"""The web runs the table's one driver in every room in play, whoever is connected: computers and stand-ins
play on and turn timers fire with no client in the room, and after a restart too."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from pathlib import Path

from fastapi.testclient import TestClient

from fivedice.table import By
from fivedice.web.app import create_app
from fivedice.web.rooms import Room
from tests.web.conftest import LOOSE, create, hello


def moving_clock(start: float) -> Callable[[], float]:
    """A clock 10 s later at every reading: every 5 s turn timer has run out when it is next looked at."""
    ticks = itertools.count()
    return lambda: start + 10.0 * next(ticks)


def watch_for_the_end(service: object) -> threading.Event:
    over = threading.Event()

    def heard(room: Room) -> None:
        if room.status == "over":
            over.set()

    service.listeners.append(heard)  # type: ignore[attr-defined]
    return over


def start_and_leave(client: TestClient) -> str:
    """A room of Ann (turn timer 5 s, the computer plays for her when it runs out) and two computers,
    started by Ann, who then leaves: nobody is connected any more."""
    made = create(client, rules="yacht", humans=1, computers=["greedy", "random"], timer=5, away="computer")
    with hello(client, made["code"], made["token"]) as ann:
        ann.send(type="start")
        assert ann.until(lambda m: m["type"] in ("ack", "error"))["type"] == "ack"
    return str(made["code"])


def test_a_room_with_computer_seats_plays_to_its_end_with_no_client_connected(client: TestClient) -> None:
    service = client.app.state.service  # type: ignore[attr-defined]
    over = watch_for_the_end(service)
    code = start_and_leave(client)
    service.clock = moving_clock(service.clock())
    assert over.wait(120), "the room did not play to its end"
    room = service.rooms[code]  # Ann's socket closed before her first timer ran out: nobody was connected
    assert room.table.is_over
    actors = {by for _record, by in room.table.log}
    assert {By.COMPUTER, By.TIMER} <= actors  # the computers played, and the stand-in for Ann
    moves = client.get(f"/api/rooms/{code}/log").json()["moves"]
    assert {m["by"] for m in moves} >= {"computer", "timer"}


def test_after_a_restart_the_rooms_in_play_play_on_with_nobody_connected(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'rooms.db'}"
    with TestClient(create_app(url, pubsub="none", seed=7, computer_delay=0, scores=False, limits=LOOSE)) as first:
        service = first.app.state.service  # type: ignore[attr-defined]
        service.clock = lambda: 1000.0  # time stands still: Ann's timer never runs out in this process
        code = start_and_leave(first)
    app = create_app(url, pubsub="none", seed=7, computer_delay=0, scores=False, limits=LOOSE)
    with TestClient(app) as second:
        service = second.app.state.service  # type: ignore[attr-defined]
        over = watch_for_the_end(service)
        service.clock = moving_clock(2000.0)
        assert over.wait(120), "the restarted server did not play the room to its end"
        assert second.get(f"/api/rooms/{code}").json()["status"] == "over"
