"""Turns that wait days: the timeout policy (wait, the computer plays, forfeit after N missed turns) as a
function, as stored with a room, across a restart, on SQLite and PostgreSQL; rooms in play never expire."""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from fivedice.rules import get
from fivedice.table import Table
from fivedice.table.seat import Seat, SeatKind
from fivedice.web.app import create_app
from fivedice.web.db import RoomStore
from fivedice.web.timeouts import TIMER_MAX, Away, Timeout, TurnPolicy, forfeited, missed_turns, on_timeout
from fivedice.web.upkeep import expire_rooms
from tests.web.conftest import LOOSE, Conn, create, hello, intent
from tests.web.test_processes import POSTGRES

WEEK = TIMER_MAX


# -- the policy as a function -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("away", "after", "missed", "expected"),
    [
        (Away.WAIT, 3, 0, Timeout.WAIT),
        (Away.WAIT, 3, 9, Timeout.WAIT),
        (Away.COMPUTER, 3, 0, Timeout.PLAY),
        (Away.COMPUTER, 3, 9, Timeout.PLAY),
        (Away.FORFEIT, 3, 0, Timeout.PLAY),
        (Away.FORFEIT, 3, 1, Timeout.PLAY),
        (Away.FORFEIT, 3, 2, Timeout.FORFEIT),  # the third missed turn
        (Away.FORFEIT, 3, 3, Timeout.PLAY),  # forfeited: its turns go on being played, told once
        (Away.FORFEIT, 1, 0, Timeout.FORFEIT),
    ],
)
def test_what_happens_when_the_time_runs_out(away: Away, after: int, missed: int, expected: Timeout) -> None:
    assert on_timeout(TurnPolicy(WEEK, away, after), missed) is expected


def test_a_policy_is_read_from_settings_old_rooms_included() -> None:
    assert TurnPolicy.of({"timer": 60, "away": "computer"}) == TurnPolicy(60, Away.COMPUTER, 3)
    assert TurnPolicy.of({"timer": None}) == TurnPolicy(None, Away.WAIT, 3)
    assert TurnPolicy.of({"timer": WEEK, "away": "forfeit", "forfeit_after": 2}) == TurnPolicy(WEEK, Away.FORFEIT, 2)


def test_missed_turns_are_the_stand_ins_scores_for_that_seat() -> None:
    table = Table(get("yacht"), [Seat("Ann", SeatKind.REMOTE), Seat("Bob", SeatKind.REMOTE)], seed=1, starter=0)
    while missed_turns(table, 1) < 3:  # Ann plays; each time Bob's runs out, the stand-in plays his turn
        if table.automatic() is not None:
            table.run_automatic()
        else:
            table.play(table.stand_in_intent(), "timer" if table.state.current == 1 else "seat")
    assert (missed_turns(table, 0), missed_turns(table, 1)) == (0, 3)
    policy = TurnPolicy(WEEK, Away.FORFEIT, 3)
    assert (forfeited(policy, table, 0), forfeited(policy, table, 1)) == (False, True)
    assert not forfeited(TurnPolicy(WEEK, Away.COMPUTER, 3), table, 1)


# -- the timer's range ----------------------------------------------------------------------------------------
def test_a_turn_may_last_seven_days_and_no_longer(client: TestClient) -> None:
    made = create(client, rules="yacht", humans=2, timer=WEEK, away="forfeit", forfeit_after=2)
    settings = client.get(f"/api/rooms/{made['code']}").json()["settings"]
    assert (settings["timer"], settings["away"], settings["forfeit_after"]) == (WEEK, "forfeit", 2)
    r = client.post("/api/rooms", json={"name": "Ann", "timer": WEEK + 1})
    assert r.status_code == 422
    assert r.json()["error"] == (
        "Request field 'timer' is not valid: a turn may last from 5 to 604800 seconds (seven days), not 604801."
    )
    r = client.post("/api/rooms", json={"name": "Ann", "timer": 60, "away": "forfeit", "forfeit_after": 0})
    assert r.status_code == 422
    assert "forfeit_after" in r.json()["error"]


# -- played: Bob misses his turns -----------------------------------------------------------------------------
class Week:
    """The service's clock, moved a week forward whenever a test says so."""

    def __init__(self, service: Any, shift: float = 0.0) -> None:
        self.shift = shift
        service.clock = lambda: time.time() + self.shift

    def passes(self) -> None:
        self.shift += WEEK + 1


def until_bob_misses(ann: Conn, week: Week, misses: int) -> dict[str, Any]:
    """Ann plays her turns at once; each of Bob's turns, a week passes. Returns the state once the stand-in
    has scored ``misses`` turns for Bob (counted on the page's own cards)."""
    state = ann.state
    while sum(e is not None for e in state["game"]["cards"][1][0]["entries"]) < misses:
        version, game = state["version"], state["game"]
        if game["current"] == 0 and game["phase"] == "play":
            ann.send(**intent(game), version=version)
        elif game["current"] == 1 and game["phase"] == "play" and game["rolls"] == 0:
            week.passes()
        state = ann.version(version)
    return state


def app_on(url: str, prefix: str) -> Any:
    return create_app(url, pubsub="none", prefix=prefix, seed=5, computer_delay=0, scores=False, limits=LOOSE)


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """A database URL and table prefix: a SQLite file, or PostgreSQL under a prefix of our own (dropped after)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'rooms.db'}", "web_"
        return
    prefix = f"t{secrets.token_hex(4)}_"
    try:
        store = RoomStore(POSTGRES, prefix)
    except Exception as exc:
        pytest.skip(f"PostgreSQL is not reachable at {POSTGRES} ({type(exc).__name__}).")
    try:
        yield POSTGRES, prefix
    finally:
        store.drop()
        store.dispose()


def test_the_forfeit_policy_survives_a_restart(database: tuple[str, str]) -> None:
    url, prefix = database
    with TestClient(app_on(url, prefix)) as c:
        week = Week(c.app.state.service)  # type: ignore[attr-defined]
        made = create(c, rules="yacht", humans=2, timer=WEEK, away="forfeit", forfeit_after=2, first="host")
        bob = c.post(f"/api/rooms/{made['code']}/join", json={"name": "Bob"}).json()
        code = made["code"]
        with hello(c, code, made["token"]) as ann, hello(c, code, bob["token"]):
            ann.send(type="start")
            ann.until(lambda m: m["type"] == "state" and m["state"]["status"] == "playing")
            state = until_bob_misses(ann, week, 1)
            assert [s["forfeited"] for s in state["seats"]] == [False, False]
        shift = week.shift
    # a new server process on the same database: the policy and the missed turn come from the database
    with TestClient(app_on(url, prefix)) as c:
        service = c.app.state.service  # type: ignore[attr-defined]
        week = Week(service, shift)
        with hello(c, code, made["token"]) as ann:
            assert ann.state["settings"]["away"] == "forfeit"
            assert ann.state["settings"]["forfeit_after"] == 2
            assert sum(e is not None for e in ann.state["game"]["cards"][1][0]["entries"]) == 1
            state = until_bob_misses(ann, week, 2)
            notice = ann.until(lambda m: m["type"] == "notice" and "forfeits" in m["text"])
            assert notice["text"] == "Bob missed too many turns and forfeits; the computer plays their remaining turns."
            # from now on Bob's turns are played at once, without a week passing
            state = ann.state
            while state["status"] != "over":
                version, game = state["version"], state["game"]
                if game["current"] == 0 and game["phase"] == "play":
                    ann.send(**intent(game), version=version)
                state = ann.version(version)
            assert [s["forfeited"] for s in state["seats"]] == [False, True]
            ranking = state["game"]["standings"]
            assert [r["name"] for r in ranking] == ["Ann", "Bob"]
            assert ranking[1]["forfeited"]
            assert [r["place"] for r in ranking] == [1, 2]
        log = c.get(f"/api/rooms/{code}/log").json()["moves"]
        assert {m["by"] for m in log if m["seat"] == 1 and m["record"]["type"] == "score"} == {"timer"}
        assert week.shift == shift + WEEK + 1  # one more week: only the second miss waited


def test_a_room_in_play_never_expires(tmp_path: Path) -> None:
    limits = dataclasses.replace(LOOSE, finished_expiry=600, idle_expiry=7200)
    app = create_app(f"sqlite:///{tmp_path / 'r.db'}", pubsub="none", computer_delay=0, scores=False, limits=limits)
    with TestClient(app) as c:
        service = app.state.service
        playing = create(c, rules="yacht", humans=1, computers=["greedy"], timer=WEEK)
        waiting = create(c, rules="yacht", humans=2)
        with hello(c, playing["code"], playing["token"]) as ann:
            ann.send(type="start")
            ann.until(lambda m: m["type"] == "state" and m["state"]["status"] == "playing")
        t0 = time.time()
        service.clock = lambda: t0 + 30 * 86400  # a month later
        gone = asyncio.run(expire_rooms(service))
        assert gone == [waiting["code"]]
        assert c.get(f"/api/rooms/{playing['code']}").json()["status"] == "playing"


def worst(game: dict[str, Any]) -> dict[str, Any]:
    """Ann throws her game away: one roll, then the box that scores least."""
    if game["dice"] is None:
        return {"type": "roll"}
    low = min(game["options"], key=lambda o: (o["points"], o["card"]))
    return {"type": "score", "box": low["box"], "card": low["card"]}


def test_a_forfeited_players_total_enters_the_high_scores_ranked_after_the_others(tmp_path: Path) -> None:
    """Bob forfeits at his first missed turn and the stand-in plays out his game, better than Ann plays hers:
    his total enters the high scores, and the history ranks him as the room did, after Ann (no win for a
    forfeit), on the high scores and on the accounts' profiles alike."""
    from fivedice.storage import Store
    from tests.web.accounts_helpers import Browser, make_app

    url = f"sqlite:///{tmp_path / 'rooms.db'}"
    with TestClient(make_app(url, scores=True, seed=5)) as c:
        service = c.app.state.service  # type: ignore[attr-defined]
        week = Week(service)
        ann, bob = Browser(c), Browser(c)
        ann.sign_up("Ann")
        bob.sign_up("Bob")
        made = ann.create(rules="yacht", humans=2, timer=WEEK, away="forfeit", forfeit_after=1, first="host")
        bob.join(made["code"])
        with ann.socket(made["code"]) as a, bob.socket(made["code"]):
            a.send(type="start")
            a.until(lambda m: m["type"] == "state" and m["state"]["status"] == "playing")
            state = a.state
            while state["status"] != "over":
                version, game = state["version"], state["game"]
                if game["current"] == 0 and game["phase"] == "play":
                    a.send(**worst(game), version=version)
                elif game["current"] == 1 and game["phase"] == "play" and game["rolls"] == 0:
                    week.passes()  # Bob never plays: a week passes at his first turn, then he has forfeited
                state = a.version(version)
        assert [s["forfeited"] for s in state["seats"]] == [False, True]
        ranking = {r["name"]: (r["place"], r["total"]) for r in state["game"]["standings"]}
        assert ranking["Bob"][1] > ranking["Ann"][1]  # more points, but he forfeited
        assert (ranking["Ann"][0], ranking["Bob"][0]) == (1, 2)
        profiles = c.app.state.profiles  # type: ignore[attr-defined]
        assert c.portal is not None
        # recorded (the stand-in's last move used to be heard before the recording was marked: see test_api)
        c.portal.call(service.rooms[made["code"]].flags.until_recorded, 120)
        c.portal.call(profiles.settled)
        with Store(url) as store:
            totals = {r.name: r.total for r in store.high_scores(rules="yacht")}
            assert totals == {name: total for name, (_place, total) in ranking.items()}
            for name, (place, total) in ranking.items():
                (played,) = store.history(name).games
                assert (played.place, played.total) == (place, total)
            assert (store.history("Ann").wins, store.history("Bob").wins) == (1, 0)
        for name, wins in (("Ann", 1), ("Bob", 0)):  # their public profiles (a week on, the sessions are over)
            assert c.get(f"/api/profiles/{name}").json()["wins"] == wins


class Ticking(Week):
    """:class:`Week` whose readings are counted, so a test can wait for the timers' next rounds (each reads the
    clock once)."""

    def __init__(self, service: Any) -> None:
        super().__init__(service)
        self.reads = 0
        self.read = threading.Condition()
        week = service.clock

        def clock() -> float:
            with self.read:
                self.reads += 1
                self.read.notify_all()
            return float(week())

        service.clock = clock

    def rounds(self, more: int) -> None:
        """Wait until the clock has been read ``more`` more times (at least ``more - 1`` whole timer rounds)."""
        with self.read:
            goal = self.reads + more
            assert self.read.wait_for(lambda: self.reads >= goal, timeout=30)


def test_time_is_up_is_told_once_per_turn_whatever_is_rolled_late(tmp_path: Path) -> None:
    """Bob's time ran out; the room waits, and says so once, however late Bob then rolls (each roll had told
    the room again at the timers' next round)."""
    with TestClient(app_on(f"sqlite:///{tmp_path / 'rooms.db'}", "web_")) as c:
        clock = Ticking(c.app.state.service)  # type: ignore[attr-defined]
        made = create(c, rules="yacht", humans=2, timer=WEEK, away="wait", first="host")
        bob = c.post(f"/api/rooms/{made['code']}/join", json={"name": "Bob"}).json()
        with hello(c, made["code"], made["token"]) as ann, hello(c, made["code"], bob["token"]) as b:
            ann.send(type="start")
            ann.until(lambda m: m["type"] == "state" and m["state"]["status"] == "playing")
            while ann.state["game"]["current"] == 0:
                version = ann.state["version"]
                ann.send(**intent(ann.state["game"]), version=version)
                ann.version(version)
            b.version(ann.state["version"] - 1)  # Bob's page has Ann's score too: his turn
            assert b.state["game"]["current"] == 1
            clock.passes()
            b.until(lambda m: m["type"] == "notice" and m["text"].startswith("Time is up"))
            for keep in ([], [0, 1]):  # Bob rolls twice, late, and the timers go round after each roll
                version = b.state["version"]
                b.send(type="roll", keep=keep)
                b.version(version)
                clock.rounds(3)
            b.send(type="chat", text="sorry, I was away")
            ann.until(lambda m: m["type"] == "chat")  # everything the room was told before the chat came first
            told = [m["text"] for m in ann.seen if m["type"] == "notice" and m["text"].startswith("Time is up")]
            assert told == ["Time is up for Bob; the room waits for them."]


def test_another_processs_time_is_up_is_told_once_a_turn_and_other_messages_always() -> None:
    """The news between processes: a ``timeout`` event (its turn beside the notice) is told once per turn here,
    whichever process's timer saw it first; a plain ``message`` is never dropped, whatever else it carries
    (the dedupe was keyed on any message with a ``timeout`` member)."""
    from fivedice.web.db import RoomRow, RoomStatus, SeatRow
    from fivedice.web.presence import notice
    from fivedice.web.rooms import Client, Room, SecretsRoller
    from fivedice.web.service import RoomService

    service = RoomService(RoomStore("sqlite://"))
    seats = tuple(SeatRow(s, name, SeatKind.HUMAN, None, name) for s, name in enumerate(("Ann", "Bob")))
    row = RoomRow("ABCD2345", "yacht", {}, RoomStatus.PLAYING, 1, 3, 0, 1.0, 1.0, seats)
    room = Room(row, [], SecretsRoller())
    service.rooms[room.code] = room
    client = Client(0)
    room.presence.clients.add(client)
    told = notice("Time is up for {who}; the room waits for them.", who="Bob")

    async def news() -> list[str]:
        base = {"proc": "other", "room": room.code}
        await service._on_event({**base, "kind": "timeout", "message": told, "turn": [1, 4]})
        await service._on_event({**base, "kind": "timeout", "message": told, "turn": [1, 4]})  # another process
        room.flags.notified_timeout = (1, 5)  # this process's own timer told turn 5
        await service._on_event({**base, "kind": "timeout", "message": told, "turn": [1, 5]})
        chat = {"type": "notice", "text": "hello", "msg": "hello", "args": {}}
        for _n in range(2):
            await service._on_event({**base, "kind": "message", "message": chat, "timeout": [1, 4]})
        return [client.queue.get_nowait() or "" for _n in range(client.queue.qsize())]

    sent = asyncio.run(news())
    service.executor.shutdown()
    assert sum("Time is up" in s for s in sent) == 1
    assert sum('"hello"' in s for s in sent) == 2
