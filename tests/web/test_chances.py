"""Chances beside the web hints, with Yacht (its tables build in seconds): the chance to win with rivals, the
chance to beat one's best alone (looked up in the server's high scores and shown in the room), the note while
they are prepared in the background, and a server that turns them off. The chance code runs for real."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from fivedice.cli.serve import serve_cmd
from fivedice.rules import get
from fivedice.services import chancejobs
from fivedice.services.chancejobs import ChanceKind
from fivedice.web.app import create_app
from tests.web.conftest import LOOSE, Conn, Msg, create, hello, play

YACHT = get("yacht")
WIN = chancejobs.Need(ChanceKind.WIN, YACHT)


@pytest.fixture(autouse=True)
def _prepared_as_for_other_options(monkeypatch: pytest.MonkeyPatch) -> None:
    """Yacht ships its moments, so its chances need no preparation (issue 27); these tests play the
    preparation of a rule set with other options (the moments computed once), from Yacht's."""
    from fivedice.solver import fast

    monkeypatch.setattr(fast, "ready_for", lambda rules: False)


def fresh(need: chancejobs.Need) -> None:
    """Forget this process's preparation of ``need`` (another test may have made it): the next hint starts it
    anew (from the session's solver cache, quickly), so the note before it is ready can be seen."""
    with chancejobs._LOCK:
        chancejobs._JOBS.pop(need, None)


def wait_for(conn: Conn, kind: str) -> Msg:
    return conn.until(lambda m: m["type"] in (kind, "error"))


def hint(conn: Conn, again: bool = False) -> Msg:
    conn.send(type="hint", again=again) if again else conn.send(type="hint")
    msg = wait_for(conn, "hint")
    assert msg["type"] == "hint", msg
    return msg


def two_players(client: TestClient) -> tuple[Msg, Msg]:
    made = create(client, rules="yacht", humans=2, first="host", hints=True)
    joined = client.post(f"/api/rooms/{made['code']}/join", json={"name": "Bo"}).json()
    return made, joined


def rolled(conn: Conn) -> None:
    """Start the game (as the host) and roll the first dice."""
    conn.send(type="start")
    conn.version(conn.state["version"])
    conn.send(type="roll")
    state = conn.version(conn.state["version"])
    assert state["game"]["dice"] is not None


def test_two_players_hints_carry_the_chance_to_win_once_prepared(client: TestClient) -> None:
    fresh(WIN)
    made, _bo = two_players(client)
    service = client.app.state.service  # type: ignore[attr-defined]
    with hello(client, made["code"], made["token"]) as ann:
        rolled(ann)
        with chancejobs._BUILD:  # held: the preparation starts but waits (else tables in memory finish it at once)
            before = hint(ann)
        assert before["note"].startswith("Preparing the chances to win (once, a few minutes):")
        assert before["chances"] is None
        assert all("win" not in o and "beat" not in o for o in before["options"])
        job = chancejobs.wait(WIN, 300)
        assert job.ok, job.error
        after = hint(ann, again=True)
        # the same hint asked again is counted once
        assert len(service.rooms[made["code"]].table.hints) == 1
        third = hint(ann)
    assert after["note"] is None
    assert after["chances"] == "win"
    assert after["goal"] is None
    wins = [o["win"] for o in after["options"]]
    assert len(wins) == len(after["options"]) >= 2
    assert all(0.0 <= w <= 1.0 for w in wins)
    assert 0.3 < max(wins) < 0.8  # the first roll of a game between equals
    assert wins[0] == max(wins)  # the best option by points is, here, the best for winning too
    assert [o["dice"] for o in third["options"]] == [o["dice"] for o in after["options"]]
    assert len(service.rooms[made["code"]].table.hints) == 2  # asked anew: a second hint


def finish_a_game(tmp_path: Path, name: str = "Zoe") -> tuple[str, int]:
    """A database whose high scores hold one finished Yacht game of ``name`` alone; its URL and total."""
    url = f"sqlite:///{tmp_path / 'web.db'}"
    app = create_app(url, pubsub="none", seed=11, computer_delay=0, scores=True, limits=LOOSE)
    with TestClient(app) as c:
        made = create(c, rules="yacht", humans=1, name=name)
        with hello(c, made["code"], made["token"]) as zoe:
            zoe.send(type="start")
            zoe.version(zoe.state["version"])
            state = play({0: zoe})
        room = app.state.service.rooms[made["code"]]
        for _ in range(200):
            if room.row.recorded or not room.flags.recording:
                break
            time.sleep(0.05)
        from fivedice.storage import Store

        for _ in range(200):
            if Store(url).best(name, YACHT) is not None:
                break
            time.sleep(0.05)
    total = int(state["game"]["totals"][0])
    return url, total


@pytest.fixture
def recorded(tmp_path: Path) -> tuple[str, int]:
    return finish_a_game(tmp_path)


def shown_best(conn: Conn) -> int:
    if conn.state.get("best") is None:
        conn.until(lambda m: m["type"] == "state" and m["state"]["best"] is not None)
    return int(conn.state["best"])


def test_a_solo_player_with_a_best_gets_the_chance_to_beat_it(recorded: tuple[str, int]) -> None:
    url, best = recorded
    app = create_app(url, pubsub="none", seed=12, computer_delay=0, scores=True, limits=LOOSE)
    with TestClient(app) as c:
        made = create(c, rules="yacht", humans=1, name="zoe", undo=True)  # the same player, whatever the case
        other = create(c, rules="yacht", humans=1, name="Newcomer")
        beat = chancejobs.Need(ChanceKind.BEAT, YACHT, best)
        fresh(beat)
        with hello(c, made["code"], made["token"]) as zoe:
            rolled(zoe)
            assert shown_best(zoe) == best
            room = app.state.service.rooms[made["code"]]
            assert room.table.goal == best
            with chancejobs._BUILD:  # held: the preparation starts but waits
                first = hint(zoe)
            assert first["chances"] is None
            assert first["note"].startswith(f"Preparing the chances to beat {best} (once, a few minutes):")
            job = chancejobs.wait(beat, 300)
            assert job.ok, job.error
            after = hint(zoe, again=True)
            assert after["note"] is None
            assert after["chances"] == "beat"
            assert after["goal"] == best
            beats = [o["beat"] for o in after["options"]]
            assert all(0.0 <= b <= 1.0 for b in beats)
            assert 0.0 < max(beats) < 1.0
            # the goal survives a score taken back and a room rebuilt from its stored moves
            version = zoe.state["version"]
            box = min(zoe.state["game"]["options"], key=lambda o: o["points"])
            zoe.send(type="score", box=box["box"])
            zoe.version(version)
            version = zoe.state["version"]
            zoe.send(type="undo")
            zoe.version(version)
            assert room.table.goal == best
            held = room.table
            room.invalidate()  # as after a failed write: the next change rebuilds the table from the stored moves
            version = zoe.state["version"]
            zoe.send(type="roll", keep=[0])
            zoe.version(version)
            assert room.table is not held
            assert room.table.goal == best
        del app.state.service.rooms[made["code"]]  # forgotten in memory: reloaded, its best looked up again
        with hello(c, made["code"], made["token"]) as zoe:
            assert shown_best(zoe) == best
            assert app.state.service.rooms[made["code"]].table.goal == best
            if zoe.state["game"]["dice"] is None:
                zoe.send(type="roll")
                zoe.version(zoe.state["version"])
            again = hint(zoe)
            assert again["chances"] == "beat"
            assert again["goal"] == best
        # someone without a game in the high scores has no best, and hints without chances
        with hello(c, other["code"], other["token"]) as new:
            rolled(new)
            plain = hint(new)
            assert new.state["best"] is None
            assert plain["chances"] is None
            assert plain["note"] is None
            assert app.state.service.rooms[other["code"]].table.goal is None


def test_without_chances_the_hints_carry_none_and_prepare_nothing() -> None:
    app = create_app("sqlite://", pubsub="none", seed=7, computer_delay=0, scores=False, limits=LOOSE, chances=False)
    fresh(WIN)
    with TestClient(app) as c:
        made, _bo = two_players(c)
        with hello(c, made["code"], made["token"]) as ann:
            rolled(ann)
            first = hint(ann)
            assert chancejobs.job(WIN) is None  # no preparation started
            assert chancejobs.wait(WIN, 300).ok  # prepared anyway in this process (as by another server)
            later = hint(ann)
    for msg in (first, later):
        assert msg["note"] is None
        assert msg["chances"] is None
        assert msg["goal"] is None
        assert all("win" not in o and "beat" not in o for o in msg["options"])
        assert isinstance(msg["options"][0]["value"], float)


def test_serve_has_the_chances_switch() -> None:
    out = CliRunner().invoke(serve_cmd, ["--help"], terminal_width=200).output
    assert "--chances / --no-chances" in out
    assert "prepared once in the background" in " ".join(out.split())


def test_the_hint_is_asked_again_only_as_a_flag() -> None:
    from fivedice.web.models import parse_message

    msg: Any = parse_message('{"type": "hint", "again": true}')
    assert msg.again is True
    with pytest.raises(Exception, match="again"):
        parse_message('{"type": "hint", "again": "yes"}')


def test_a_solo_challenge_hint_plays_to_beat_the_challenge_goal(client: TestClient) -> None:
    made = create(client, rules="yacht", humans=1, challenge="web-chances", hints=True)
    with hello(client, made["code"], made["token"]) as ann:
        rolled(ann)
        if ann.state["goal"] is None:
            ann.until(lambda m: m["type"] == "state" and m["state"]["goal"] is not None)
        goal = int(ann.state["goal"]["total"])
        assert ann.state["best"] is None  # a challenge shows its own goal, not the player's best
        assert client.app.state.service.rooms[made["code"]].table.goal == goal  # type: ignore[attr-defined]
        assert chancejobs.wait(chancejobs.Need(ChanceKind.BEAT, YACHT, goal), 300).ok
        msg = hint(ann)
    assert msg["chances"] == "beat"
    assert msg["goal"] == goal
    assert all(0.0 <= o["beat"] <= 1.0 for o in msg["options"])


def test_a_computer_that_plays_to_win_waits_for_its_chances_with_the_room_free(client: TestClient) -> None:
    fresh(WIN)
    made = create(client, rules="yacht", humans=1, computers=["win"], first="host")
    code = made["code"]
    with hello(client, code, made["token"]) as ann:
        ann.send(type="start")
        ann.version(ann.state["version"])
        with chancejobs._BUILD:  # another build holds the machine: the computer's preparation waits its turn
            while ann.state["game"]["current"] == 0:  # Ann's turn; then the computer's
                version = ann.state["version"]
                ann.send(**intent_of(ann.state["game"]), version=version)
                ann.version(version)
            told = within(30, lambda: ann.until(lambda m: m["type"] == "notice"))
            assert told["msg"] == "Preparing the chances to win (once, a few minutes): {done} done."
            assert told["text"] == "Preparing the chances to win (once, a few minutes): 0% done."
            # meanwhile the room answers: its state, and the chat
            assert within(10, lambda: client.get(f"/api/rooms/{code}").json())["game"]["current"] == 1
            ann.send(type="chat", text="still there?")
            assert within(10, lambda: ann.until(lambda m: m["type"] == "chat"))["text"] == "still there?"
            job = chancejobs.job(WIN)
            assert job is not None
            assert not job.done.is_set()
        state = ann.until(lambda m: m["type"] == "state" and m["state"]["game"]["current"] == 0)["state"]
    assert chancejobs.ready(WIN)
    assert state["game"]["round"] == 2  # the computer played its turn once its chances were ready


def within(seconds: float, call: Callable[[], Msg]) -> Msg:
    """``call()``'s answer, failing (not hanging) when it does not come within ``seconds``."""
    answer: list[Msg] = []
    waiter = threading.Thread(target=lambda: answer.append(call()), daemon=True)
    waiter.start()
    waiter.join(seconds)
    assert answer, f"no answer within {seconds} s"
    return answer[0]


def intent_of(game: Msg) -> Msg:
    """Roll, roll, roll, then score the first open box."""
    if game["dice"] is None or game["rolls_left"]:
        return {"type": "roll"}
    return {"type": "score", "box": game["options"][0]["box"]}
