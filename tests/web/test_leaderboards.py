"""Fair challenge leaderboards: future codes refused, one ranked attempt per player and challenge (later ones
are practice), assisted games (hints, computer seats) not ranked, one rank per name, accounts shown and
guests marked."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from tests.web.accounts_helpers import Browser, make_app
from tests.web.conftest import Conn, Msg, hello, recorded_rows
from tests.web.conftest import play as play_all


def finish(conn: Conn, hint: bool = False) -> Msg:
    """Play a solo game to the end, scoring the worst box each turn (a hint asked once, with ``hint``)."""
    state = conn.state
    version = state["version"]
    conn.send(type="start")
    state = conn.version(version)
    while state["status"] != "over":
        game, version = state["game"], state["version"]
        if game["current"] != 0:  # a computer seat's turn
            state = conn.version(version)
            continue
        if game["dice"] is None:
            conn.send(type="roll", version=version)
        elif hint:
            hint = False
            conn.send(type="hint")
            assert conn.until(lambda m: m["type"] in ("hint", "error"))["type"] == "hint"
            continue
        else:
            worst = min(game["options"], key=lambda o: o["points"])
            conn.send(type="score", box=worst["box"], card=worst["card"], version=version)
        state = conn.version(version)
    conn.send(type="challenge", id=9)
    result: Msg = conn.until(lambda m: m["type"] in ("challenge", "error"))
    assert result["type"] == "challenge", result
    return result


def play(browser: Browser, name: str, hint: bool = False, **body: Any) -> Msg:
    made = browser.create(name=name, rules="yacht", humans=1, challenge="fair", hints=True, **body)
    with browser.socket(made["code"], made["token"]) as conn:
        return finish(conn, hint)


def test_tomorrow_is_refused_and_only_first_unassisted_attempts_rank(tmp_path: Path) -> None:
    from fivedice.storage import Store

    url = f"sqlite:///{tmp_path / 'web.db'}"
    Store(url).close()
    with TestClient(make_app(url, scores=True)) as c:
        tomorrow = (date.today() + timedelta(days=1)).isoformat()
        r = c.post("/api/rooms", json={"name": "Ann", "challenge": tomorrow})
        assert r.status_code == 400
        assert r.json()["error"] == f"Challenge {tomorrow} opens on that day; today is {date.today().isoformat()}."
        assert c.get(f"/api/challenges/{tomorrow}").status_code == 400
        assert c.get(f"/api/challenges/{date.today().isoformat()}").status_code == 200

        guest, member = Browser(c), Browser(c)
        member.sign_up("Maya")
        first = play(guest, "Zoe")
        assert [p["ranked"] for p in first["players"]] == [True]
        again = play(guest, "ZOE")  # the same player again, on dice she now knows: practice
        assert [p["ranked"] for p in again["players"]] == [False]
        assert again["lines"][-1].endswith("ZOE: practice.")
        hinted = play(guest, "Hal", hint=True)
        assert [p["ranked"] for p in hinted["players"]] == [False]
        play(guest, "Hal")  # a first attempt with a hint leaves the player without a rank
        with_computer = play(guest, "Cid", computers=["greedy"])
        assert [p["ranked"] for p in with_computer["players"]] == [False]
        mine = play(member, "ignored")  # signed in: the seat takes the account's name
        board = mine["leaderboard"]
        assert c.get("/api/challenges/fair?rules=yacht").json()["leaderboard"] == board
    rows = {(row["name"], row["total"], row["account"]) for row in board}
    assert rows == {
        ("Zoe", first["players"][0]["total"], False),
        ("Maya", mine["players"][0]["total"], True),
    }


def test_players_side_by_side_each_hold_one_rank(tmp_path: Path) -> None:
    """Two seats of one room rank once each; a rematch on the same tape ranks nobody again."""
    from fivedice.storage import Store

    url = f"sqlite:///{tmp_path / 'web.db'}"
    Store(url).close()
    with TestClient(make_app(url, scores=True)) as c:
        made = c.post("/api/rooms", json={"name": "Ann", "rules": "yacht", "humans": 2, "challenge": "pair"}).json()
        bob = c.post(f"/api/rooms/{made['code']}/join", json={"name": "Bob"}).json()
        for _game in range(2):
            with hello(c, made["code"], made["token"]) as ann, hello(c, made["code"], bob["token"]) as b:
                conns = {0: ann, 1: b}
                kind = "start" if ann.state["status"] == "lobby" else "rematch"
                version = ann.state["version"]
                ann.send(type=kind, version=version)
                for conn in conns.values():  # the game begun (a rematch leaves the finished one's state behind)
                    conn.version(version)
                assert ann.state["game_no"] == _game + 1
                play_all(conns)
        # the games are recorded after they end, in the background: read the board once both are
        recorded_rows(tmp_path / "web.db", "SELECT n FROM (SELECT count(*) AS n FROM fivedice_games) WHERE n >= 2")
        board = c.get("/api/challenges/pair?rules=yacht").json()["leaderboard"]
    assert sorted(row["name"] for row in board) == ["Ann", "Bob"]
