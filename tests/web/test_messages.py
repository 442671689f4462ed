"""The server's outgoing messages are pydantic models with a JSON Schema: recorded frames of a whole game
validate against it, and every field the page reads of a room is in it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from fivedice.web import messages
from fivedice.web.messages import RoomSnapshot, StateMessage
from tests.web.conftest import create, hello, play

STATIC = Path(messages.__file__).parent / "static"
PAGE = {"app.js", "hints.js", "moves.js"}
"""The room page's scripts that read the room snapshot."""
DOM = {"length", "disabled", "name"}
"""What the page reads of an array or an element it also names ``g``."""


def test_recorded_frames_of_a_whole_game_validate_against_the_models(client: TestClient) -> None:
    made = create(client, rules="yacht", humans=1, computers=["greedy"], undo=True)
    with hello(client, made["code"], made["token"]) as ann:
        ann.send(type="start")
        play({0: ann})
        ann.send(type="ping", id=7)
        ann.until(lambda m: m["type"] == "pong")
    frames = [f for f in ann.seen if f["type"] in ("state", "ack", "presence", "notice", "error", "pong")]
    kinds = {f["type"] for f in frames}
    assert {"state", "ack", "notice", "pong"} <= kinds
    for frame in frames:
        messages.validate(frame)
    states = [messages.validate(f) for f in frames if f["type"] == "state"]
    assert all(isinstance(s, StateMessage) for s in states)
    turns = [s.state.turn for s in states if isinstance(s, StateMessage) and s.state.status == "playing"]
    assert len(set(turns)) > 12  # a new id each turn, the same between a turn's rolls
    assert states[-1].state.turn is None  # type: ignore[union-attr]


def test_the_turn_id_stays_between_rolls_and_comes_back_when_a_score_is_taken_back(client: TestClient) -> None:
    made = create(client, rules="yacht", humans=1, undo=True)
    with hello(client, made["code"], made["token"]) as ann:
        ann.send(type="start")
        ann.until(lambda m: m["type"] == "ack")
        turn = ann.state["turn"]
        for msg in ({"type": "roll"}, {"type": "roll", "keep": [0]}):
            ann.send(**msg)
            ann.until(lambda m: m["type"] == "ack")
            assert ann.state["turn"] == turn
        ann.send(type="score", box="choice")
        ann.until(lambda m: m["type"] == "ack")
        assert ann.state["turn"] != turn
        ann.send(type="undo")
        ann.until(lambda m: m["type"] == "ack")
        assert ann.state["turn"] == turn


def properties(schema: dict[str, Any], name: str) -> set[str]:
    return set(schema["$defs"][name]["properties"])


def test_the_schema_has_every_field_the_page_reads_of_a_room() -> None:
    schema = messages.schema()
    room, game = properties(schema, "RoomSnapshot"), properties(schema, "GameData")
    assert "turn" in room
    source = "".join(p.read_text(encoding="utf-8") for p in sorted(STATIC.glob("*.js")) if p.name in PAGE)
    read_room = set(re.findall(r"\b(?:ui\.room|room|before)\.([a-z_]+)\b", source))
    read_game = set(re.findall(r"\b(?:g|room\.game)\.([a-z_]+)\b", source))
    assert read_room - {"game"} <= room, read_room - room
    assert read_game - DOM <= game, read_game - game
    assert RoomSnapshot.model_json_schema()["properties"]["turn"]["description"]
