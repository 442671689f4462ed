"""The shared scenario (tests/scenario.py) played through the web API, and undo never re-rolling a roll
already seen, over the web."""

from __future__ import annotations

from fastapi.testclient import TestClient

from fivedice.engine import notation
from fivedice.rules import parse_spec
from fivedice.table.seat import SeatKind
from fivedice.web.db import MoveRow, SeatRow
from fivedice.web.rooms import table_from_moves
from tests.scenario import CHALLENGE, SEATS, SPEC, STEPS, reference_log
from tests.web.conftest import Conn, Msg, create, hello

HUMANS = [s for s in SEATS if ":" not in s]
LEVELS = [s.split(":")[1] for s in SEATS if ":" in s]


def settled(conns: dict[int, Conn], state: Msg) -> Msg:
    """Wait until a human of ``conns`` is to act (the computer's moves happen in between)."""
    while state["status"] == "playing" and state["game"]["current"] not in conns:
        for conn in conns.values():
            conn.version(state["version"])
        state = max((c.state for c in conns.values()), key=lambda s: int(s["version"]))
    return state


def act(conns: dict[int, Conn], seat: int, msg: Msg) -> Msg:
    """Send ``msg`` from ``seat`` and wait until every connection has the state it made."""
    version = conns[seat].state["version"]
    conns[seat].send(**msg)
    reply = conns[seat].until(lambda m: m["type"] in ("ack", "error"))
    assert reply["type"] == "ack", reply
    for conn in conns.values():
        conn.version(version)
    return conns[seat].state


def test_the_web_plays_the_scenario_to_the_same_move_log(client: TestClient) -> None:
    made = create(
        client,
        rules=SPEC,
        name=HUMANS[0],
        humans=len(HUMANS),
        computers=LEVELS,
        undo=True,
        first="host",
        challenge=CHALLENGE,
    )
    code = made["code"]
    bob = client.post(f"/api/rooms/{code}/join", json={"name": HUMANS[1]}).json()
    with hello(client, code, made["token"]) as ann, hello(client, code, bob["token"]) as b:
        conns = {0: ann, 1: b}
        state = act(conns, 0, {"type": "start"})
        assert state["challenge"] == CHALLENGE
        for step in STEPS:
            state = settled(conns, state)
            game = state["game"]
            if step[0] == "undo":
                state = act(conns, game["undo_by"], {"type": "undo"})
                continue
            if step[0] == "redo":
                state = act(conns, game["redo_by"], {"type": "redo"})
                continue
            seat = game["current"]
            if game["dice"] is None and step != ("roll",):
                state = act(conns, seat, {"type": "roll"})  # the reference table made this first roll itself
            if step[0] == "roll":
                state = act(conns, seat, {"type": "roll", "keep": [int(p) for p in step[1:]]})
            else:
                state = act(conns, seat, {"type": "score", "box": step[1]})
        state = settled(conns, state)
        assert state["status"] == "over"
    log = client.get(f"/api/rooms/{code}/log").json()
    kinds = [m["record"]["type"] for m in log["moves"]]
    assert "undo" in kinds
    assert "redo" in kinds
    seats = [SeatRow(s["seat"], s["name"], s["kind"], s["level"], None) for s in state["seats"]]
    moves = [MoveRow(m["seq"], m["seat"], m["by"], m["record"], 0.0) for m in log["moves"]]
    key = client.app.state.service.challenge_key  # type: ignore[attr-defined]
    table = table_from_moves(parse_spec(log["spec"]), seats, state["settings"], moves, key=key)
    # the server's dice are sealed by its secret: the reference plays the same steps on the same sealed dice
    assert [notation.to_text(r) for r in table.game.log] == reference_log(key=key)
    assert reference_log(key=key) != reference_log()
    assert table.undos == 2
    assert state["game"]["totals"] == list(table.state.totals)


def test_undo_never_shows_other_dice_for_a_roll_already_seen(client: TestClient) -> None:
    made = create(client, rules="yacht", humans=1, undo=True)
    code = made["code"]
    service = client.app.state.service  # type: ignore[attr-defined]
    with hello(client, code, made["token"]) as ann:
        conns = {0: ann}
        act(conns, 0, {"type": "start"})
        first = act(conns, 0, {"type": "roll"})["game"]["dice"]
        second = act(conns, 0, {"type": "roll", "keep": [0, 1]})["game"]["dice"]
        assert act(conns, 0, {"type": "undo"})["game"]["dice"] == first
        assert act(conns, 0, {"type": "roll", "keep": [0, 1]})["game"]["dice"] == second
        act(conns, 0, {"type": "undo"})
        other = act(conns, 0, {"type": "roll", "keep": [0]})["game"]["dice"]
        assert other[2:] == second[2:]  # dice rolled again where they were rolled before show the same faces
        # back to before the first roll, and the room reloaded from the database: still the same dice
        act(conns, 0, {"type": "undo"})
        assert act(conns, 0, {"type": "undo"})["game"]["dice"] is None
        del service.rooms[code]
    with hello(client, code, made["token"]) as ann:
        conns = {0: ann}
        assert act(conns, 0, {"type": "roll"})["game"]["dice"] == first
        assert act(conns, 0, {"type": "roll", "keep": [0]})["game"]["dice"] == other
        score = act(conns, 0, {"type": "score", "box": "choice"})
        assert score["game"]["totals"] == [sum(other)]
        undone = act(conns, 0, {"type": "undo"})["game"]
        assert undone["dice"] == other
        assert act(conns, 0, {"type": "redo"})["game"]["totals"] == [sum(other)]


def test_logs_stored_before_the_table_still_load() -> None:
    """An older server let a player take back the score a stand-in made for them and rolled off by the seats
    themselves: such a log still rebuilds, the undo taking back that one score."""
    seats = [SeatRow(0, "Ann", SeatKind.HUMAN, None, None), SeatRow(1, "Bob", SeatKind.HUMAN, None, None)]
    records: list[tuple[int, str, dict[str, object]]] = [
        (0, "seat", {"type": "rolloff", "seat": 0, "dice": [6, 6, 6, 6, 6]}),
        (1, "seat", {"type": "rolloff", "seat": 1, "dice": [1, 1, 1, 1, 1]}),
        (0, "seat", {"type": "roll", "held": [], "dice": [2, 3, 4, 5, 6]}),
        (0, "timer", {"type": "score", "card": 0, "box": "choice", "points": 20}),
        (0, "seat", {"type": "undo"}),
        (0, "seat", {"type": "score", "card": 0, "box": "large_straight", "points": 30}),
    ]
    moves = [MoveRow(i + 1, seat, by, record, 0.0) for i, (seat, by, record) in enumerate(records)]
    table = table_from_moves(parse_spec("yacht"), seats, {"undo": True}, moves)
    assert [notation.to_text(r) for r in table.game.log][-2:] == [
        notation.to_text(notation.from_json(records[2][2])),
        notation.to_text(notation.from_json(records[5][2])),
    ]
    assert table.state.totals == (30, 0)
    assert table.undos == 1
    assert table.state.current == 1
