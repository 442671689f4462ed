"""Challenges over the web: rooms with a challenge code meet the same dice, at different times or side by side;
at the end each player sees the benchmark on the same tape and the challenge's leaderboard."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from fivedice.rules import get
from fivedice.table.challenge import replay_on_tape
from tests.web.conftest import LOOSE, Conn, Msg, create, hello, play, recorded_rows


def first_rolls(client: TestClient, code: str) -> dict[tuple[int, int], list[int]]:
    """The first roll of every (seat, round) in a room's stored log."""
    moves = client.get(f"/api/rooms/{code}/log").json()["moves"]
    seen: dict[int, int] = {}
    out: dict[tuple[int, int], list[int]] = {}
    for m in moves:
        record = m["record"]
        if record["type"] == "roll" and not record["held"] and (m["seat"], seen.get(m["seat"], 0) + 1) not in out:
            out[(m["seat"], seen.get(m["seat"], 0) + 1)] = record["dice"]
        if record["type"] == "score":
            seen[m["seat"]] = seen.get(m["seat"], 0) + 1
    return out


def solo(client: TestClient, code: str, policy: Any, **body: Any) -> tuple[str, Msg]:
    made = create(client, rules="yacht", humans=1, challenge=code, **body)
    with hello(client, made["code"], made["token"]) as ann:
        version = ann.state["version"]
        ann.send(type="start")
        state = ann.version(version)
        while state["status"] != "over":
            version = state["version"]
            ann.send(**policy(state["game"]), version=version)
            state = ann.version(version)
    return made["code"], state


def keeper(game: Msg) -> Msg:
    if game["dice"] is None:
        return {"type": "roll"}
    if game["rolls"] < 3:
        return {"type": "roll", "keep": [0, 1]}
    best = max(game["options"], key=lambda o: o["points"])
    return {"type": "score", "box": best["box"]}


def taker(game: Msg) -> Msg:
    if game["dice"] is None:
        return {"type": "roll"}
    worst = min(game["options"], key=lambda o: o["points"])
    return {"type": "score", "box": worst["box"], "card": worst["card"]}


def test_two_rooms_of_one_challenge_meet_the_same_first_roll_every_round(client: TestClient) -> None:
    a, _ = solo(client, "Friday Night", keeper)
    b, _ = solo(client, "friday night", taker)  # another room, other choices, later
    other, _ = solo(client, "saturday", taker)
    rolls_a, rolls_b = first_rolls(client, a), first_rolls(client, b)
    assert len(rolls_a) == len(rolls_b) == get("yacht").rounds
    assert rolls_a == rolls_b
    assert first_rolls(client, other) != rolls_a
    assert client.get(f"/api/rooms/{a}").json()["challenge"] == "friday night"


def test_server_challenges_are_sealed_by_a_secret_kept_with_the_database(tmp_path: Path) -> None:
    """The public tape (what anyone can compute from the code) is not what the server deals; every process of
    the database, and every restart, deals the same sealed dice."""
    from fivedice.table.tape import ChallengeDice, TapeKey
    from fivedice.web.app import create_app

    url = f"sqlite:///{tmp_path / 'web.db'}"
    rolls = []
    for _start in range(2):  # a restart (or a second process) on the same database
        app = create_app(url, pubsub="none", seed=1, computer_delay=0, scores=False, limits=LOOSE)
        with TestClient(app) as c:
            code, _ = solo(c, "daily", keeper)
            rolls.append(first_rolls(c, code))
            key = app.state.service.challenge_key
    assert rolls[0] == rolls[1]
    assert key is not None
    assert len(key) == 32
    public = ChallengeDice(date.today().isoformat(), "yacht")
    rounds = range(1, get("yacht").rounds + 1)
    offline = {(0, r): [public.value(TapeKey(0, r, 1), p) for p in range(5)] for r in rounds}
    assert sum(offline[k] == rolls[0][k] for k in offline) <= 1  # the public tape does not predict the rounds
    other = create_app(f"sqlite:///{tmp_path / 'other.db'}", pubsub="none", computer_delay=0, scores=False)
    assert other.state.service.challenge_key != key  # another server: its own secret
    other.state.service.store.dispose()


def test_players_side_by_side_meet_the_same_dice(client: TestClient) -> None:
    made = create(client, rules="yacht", humans=2, challenge="duel", undo=True)
    code = made["code"]
    bob = client.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).json()
    with hello(client, code, made["token"]) as ann, hello(client, code, bob["token"]) as b:
        ann.send(type="start")
        play({0: ann, 1: b})
    rolls = first_rolls(client, code)
    for rnd in range(1, get("yacht").rounds + 1):
        assert rolls[(0, rnd)] == rolls[(1, rnd)]


def test_the_daily_challenge_and_bad_codes(client: TestClient) -> None:
    today = client.get("/api/challenges/today").json()
    assert today == {"code": date.today().isoformat(), "rules": "yahtzee", "leaderboard": []}
    made = create(client, rules="yahtzee", humans=1, challenge="daily")
    assert client.get(f"/api/rooms/{made['code']}").json()["challenge"] == today["code"]
    r = client.post("/api/rooms", json={"name": "Ann", "challenge": "bell\u0007"})
    assert r.status_code == 400
    assert r.json()["error"].startswith("Challenge code 'bell\\x07' is not usable; expected a word or date")
    assert client.get("/api/challenges/x?rules=nonsense").status_code == 400


def test_a_finished_challenge_shows_the_optimal_player_on_the_same_tape_and_the_leaderboard(tmp_path: Path) -> None:
    from fivedice.storage import Store
    from fivedice.web.app import create_app

    url = f"sqlite:///{tmp_path / 'web.db'}"
    Store(url).close()
    app = create_app(url, pubsub="none", seed=3, computer_delay=0, scores=True, limits=LOOSE)
    with TestClient(app) as c:
        _, zoe = solo(c, "cup", keeper, name="Zoe", hints=False)
        made = create(c, rules="yacht", humans=1, challenge="cup", name="Max", undo=True)
        with hello(c, made["code"], made["token"]) as ann:
            ann.send(type="challenge", id=3)
            assert "when a challenge game is over" in ann.error()
            version = ann.state["version"]
            ann.send(type="start")
            state = ann.version(version)
            while state["status"] != "over":
                version = state["version"]
                ann.send(**taker(state["game"]), version=version)
                state = ann.version(version)
            ann.send(type="challenge", id=4)
            result = wait_for(ann, "challenge")
        bench = replay_on_tape(get("yacht"), "cup", key=app.state.service.challenge_key).state.total(0)
        assert result["id"] == 4
        assert (result["code"], result["level"], result["benchmark"]) == ("cup", "optimal", bench)
        assert result["lines"][0] == f"Challenge cup: on the same dice, the optimal player scored {bench}."
        (max_,) = result["players"]
        assert (max_["name"], max_["total"]) == ("Max", state["game"]["totals"][0])
        assert max_["loss"] > 0
        assert result["lines"][1].startswith(f"Max: {max_['total']}; your decisions cost ")
        board = result["leaderboard"]
        assert {(row["name"], row["total"]) for row in board} == {
            ("Zoe", zoe["game"]["totals"][0]),
            ("Max", max_["total"]),
        }
        assert [row["total"] for row in board] == sorted((row["total"] for row in board), reverse=True)
        assert c.get("/api/challenges/CUP?rules=yacht").json()["leaderboard"] == board
        assert c.get("/api/challenges/cup?rules=yahtzee").json()["leaderboard"] == []
        # a variant of a rule set deals other dice: its games have a leaderboard of their own
        made = create(c, rules="yahtzee", options={"joker": "free"}, humans=1, challenge="cup", name="Vi")
        with hello(c, made["code"], made["token"]) as vi:
            vi.send(type="start")
            state = vi.version(1)
            while state["status"] != "over":
                version = state["version"]
                vi.send(**taker(state["game"]), version=version)
                state = vi.version(version)
            vi.send(type="challenge")
            board = wait_for(vi, "challenge")["leaderboard"]
        assert [row["name"] for row in board] == ["Vi"]
        assert c.get("/api/challenges/cup?rules=yahtzee").json()["leaderboard"] == []
        assert c.get("/api/challenges/cup", params={"rules": "yahtzee joker=free"}).json()["leaderboard"] == board


def wait_for(conn: Conn, kind: str) -> Msg:
    return conn.until(lambda m: m["type"] in (kind, "error"))


def test_a_solo_challenge_shows_its_goal_from_the_same_dice(client: TestClient) -> None:
    made = create(client, rules="yacht", humans=1, challenge="goal")
    with hello(client, made["code"], made["token"]) as ann:
        ann.send(type="start")
        state = ann.until(lambda m: m["type"] == "state" and m["state"]["goal"] is not None)["state"]
    key = client.app.state.service.challenge_key  # type: ignore[attr-defined]
    bench = replay_on_tape(get("yacht"), "goal", key=key).state.total(0)
    assert state["goal"] == {"total": bench, "level": "optimal"}
    assert state["game"]["moves"] == 0  # shown before the first roll
    two = create(client, rules="yacht", humans=2, challenge="goal")
    assert client.get(f"/api/rooms/{two['code']}").json()["goal"] is None  # side by side: each other's score


def test_a_resumed_solo_challenge_keeps_its_goal(client: TestClient) -> None:
    """A room loaded again from the database (a restart, another process) plays to the same goal."""
    made = create(client, rules="yacht", humans=1, challenge="goal")
    service = client.app.state.service  # type: ignore[attr-defined]
    bench = replay_on_tape(get("yacht"), "goal", key=service.challenge_key).state.total(0)
    with hello(client, made["code"], made["token"]) as ann:
        ann.send(type="start")
        ann.send(type="roll", version=ann.until(lambda m: m["type"] == "ack")["version"])
        ann.until(lambda m: m["type"] == "state" and m["state"]["goal"] is not None and m["state"]["game"]["moves"])
    del service.rooms[made["code"]]  # resumed: rebuilt from the stored moves (the roll's among them)
    with hello(client, made["code"], made["token"]) as ann:
        state = ann.state  # the goal may be known before the first state (cached), or come after it
        if state["goal"] is None:
            state = ann.until(lambda m: m["type"] == "state" and m["state"]["goal"] is not None)["state"]
        assert state["game"]["moves"] > 0
    assert state["goal"] == {"total": bench, "level": "optimal"}
    assert service.rooms[made["code"]].table.goal == bench  # the hints play to beat it


def test_hints_are_counted_in_the_high_scores_even_after_a_reload(tmp_path: Path) -> None:
    from fivedice.storage import Store
    from fivedice.web.app import create_app

    url = f"sqlite:///{tmp_path / 'web.db'}"
    Store(url).close()
    app = create_app(url, pubsub="none", seed=5, computer_delay=0, scores=True, limits=LOOSE)
    with TestClient(app) as c:
        made = create(c, rules="yahtzee", options={"cards": "jetsi"}, humans=1, name="Hal", hints=True)
        code = made["code"]
        with hello(c, code, made["token"]) as hal:
            hal.send(type="start")
            hal.version(hal.state["version"])
            hal.send(type="roll")
            hal.version(hal.state["version"])
            for _ in range(2):
                hal.send(type="hint")
                assert wait_for(hal, "hint")["type"] == "hint"
        del app.state.service.rooms[code]  # forgotten in memory: reloaded from the database
        with hello(c, code, made["token"]) as hal:
            hal.send(type="hint")
            assert wait_for(hal, "hint")["type"] == "hint"
            state = hal.state
            while state["status"] != "over":
                version = state["version"]
                hal.send(**taker(state["game"]), version=version)
                state = hal.version(version)
    assert recorded_rows(tmp_path / "web.db", "SELECT hints FROM fivedice_results") == [(3,)]
