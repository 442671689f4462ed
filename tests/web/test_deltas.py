"""A page that asks for deltas in its hello gets, after its first whole state, only what changed: applied in
order by the page's own ``static/delta.js`` (under Node), they give exactly the whole states that another
connection of the same seat receives; the confirmation of the page's own intent rides in the delta it caused
(no separate ``ack`` message), and every frame validates against the message models."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import fivedice
from fivedice.web import messages
from tests.web.conftest import create, hello, intent

DELTA_JS = Path(fivedice.__file__).parent / "web" / "static" / "delta.js"


def test_deltas_applied_by_the_page_are_the_whole_states_and_carry_the_senders_ack(
    client: TestClient, tmp_path: Path
) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed; the page's delta rule is checked by the browser tests only.")
    made = create(client, rules="yacht", humans=1, computers=["greedy"], undo=True)
    frames: list[dict[str, Any]] = []
    with hello(client, made["code"], made["token"]) as whole, client.websocket_connect(f"/ws/{made['code']}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": made["token"], "deltas": True}))

        def until_version(above: int) -> dict[str, Any]:
            while True:
                frame: dict[str, Any] = ws.receive_json()
                frames.append(frame)
                if frame["type"] == "state" and frame["state"]["version"] > above:
                    return frame
                if frame["type"] == "delta" and frame["state"].get("version", frame["from"]) > above:
                    return frame

        version = until_version(0)["state"]["version"]
        sent: dict[int, int] = {}  # intent id -> the version it was sent at
        ws.send_text(json.dumps({"type": "start", "version": version, "id": 1}))
        sent[1] = version
        msg_id = 1
        while True:
            state = whole.version(version)
            version = state["version"]
            frame = until_version(version - 1)
            if state["status"] == "over":
                break
            game = state["game"]
            if game is None or game["current"] != 0 or game["phase"] == "rolloff":
                continue  # the table rolls the roll-off by itself
            msg_id += 1
            ws.send_text(json.dumps({**intent(game), "version": version, "id": msg_id}))
            sent[msg_id] = version
    states = {f["state"]["version"]: f["state"] for f in whole.seen if f["type"] == "state"}

    for frame in frames:
        if frame["type"] in ("state", "delta", "ack", "presence", "notice", "error"):
            messages.validate(frame)
    assert not [f for f in frames if f["type"] in ("ack", "error")]  # the ack rides in the state or delta instead
    acked = {f["ack"]["id"]: f for f in frames if f.get("ack")}
    assert set(acked) == set(sent)
    for msg_id, at in sent.items():  # the frame that acknowledges an intent shows the version it made
        assert acked[msg_id]["ack"]["version"] == at + 1
    deltas = [f for f in frames if f["type"] == "delta"]
    whole_states = [f for f in frames if f["type"] == "state"]
    assert len(deltas) > 24
    assert len(whole_states) == 1  # at the hello; then deltas only

    recorded = tmp_path / "frames.json"
    recorded.write_text(json.dumps(frames))
    script = tmp_path / "apply.mjs"
    script.write_text(
        f"import {{ applyDelta }} from {json.dumps(DELTA_JS.as_uri())};\n"
        "import {{ readFileSync }} from 'node:fs';\n".replace("{{", "{").replace("}}", "}")
        + f"const frames = JSON.parse(readFileSync({json.dumps(str(recorded))}, 'utf8'));\n"
        "let room = null; const out = [];\n"
        "for (const f of frames) {\n"
        "  if (f.type === 'state') room = f.state;\n"
        "  else if (f.type === 'delta') { room = applyDelta(room, f); if (room === null) throw new Error('gap'); }\n"
        "  else continue;\n"
        "  out.push(room);\n"
        "}\n"
        "console.log(JSON.stringify(out));\n"
    )
    out = subprocess.run([node, str(script)], capture_output=True, text=True, check=True, timeout=60).stdout
    applied = json.loads(out)
    assert applied[-1]["status"] == "over"
    compared = 0
    for room in applied:
        if room["version"] in states and room["version"] == states[room["version"]]["version"]:
            whole_state = states[room["version"]]
            if whole_state["spectators"] == room["spectators"]:  # the same presence revision
                assert room == whole_state
                compared += 1
    assert compared > 24


def test_the_page_asks_for_deltas_and_applies_them() -> None:
    """The room page says ``deltas: true`` in its hello and turns each delta into the state it renders."""
    app = (DELTA_JS.parent / "app.js").read_text()
    assert "deltas: true" in app
    assert "applyDelta(ui.room, msg)" in app
    assert '"/static/delta.js"' in (DELTA_JS.parent / "sw.js").read_text()
