"""The lobby, the chat kept with a room, spectators by name, replays and the installable app (in process)."""

from __future__ import annotations

import json
from pathlib import Path

from fastapi.testclient import TestClient

from fivedice.rules import BUILTINS
from fivedice.table.seat import SeatKind
from tests.web.conftest import create, hello, play


def test_the_lobby_lists_public_rooms_with_open_seats_and_games_to_watch(client: TestClient) -> None:
    private = create(client, rules="yacht", humans=2)
    waiting = create(client, rules="yatzy", humans=3, name="Pia", public=True)
    full = create(client, rules="yacht", humans=1, name="Sol", public=True)
    rooms = {r["code"]: r for r in client.get("/api/lobby").json()["rooms"]}
    assert private["code"] not in rooms  # only rooms made public are listed
    assert full["code"] not in rooms  # no seat left and not started: nothing to do there
    entry = rooms[waiting["code"]]
    assert entry["status"] == "lobby"
    assert (entry["open"], entry["seats"]) == (2, 3)
    assert entry["rules"]["title"] == "Yatzy"
    assert [p["name"] for p in entry["players"]] == ["Pia"]
    assert "token" not in json.dumps(entry)
    # a public game in play is listed to watch; once over, it leaves the lobby
    with hello(client, full["code"], full["token"]) as sol:
        sol.send(type="start")
        sol.version(sol.state["version"])
        rooms = {r["code"]: r for r in client.get("/api/lobby").json()["rooms"]}
        assert rooms[full["code"]]["status"] == "playing"
        play({0: sol})
    assert full["code"] not in {r["code"] for r in client.get("/api/lobby").json()["rooms"]}
    # a joined seat closes: the room stays listed while a seat is open
    client.post(f"/api/rooms/{waiting['code']}/join", json={"name": "Quim"})
    rooms = {r["code"]: r for r in client.get("/api/lobby").json()["rooms"]}
    assert rooms[waiting["code"]]["open"] == 1


def test_chat_is_kept_with_the_room_and_shown_again_after_a_reload(client: TestClient) -> None:
    made = create(client, rules="yacht", humans=1)
    code = made["code"]
    with hello(client, code, made["token"]) as ann:
        history = ann.until(lambda m: m["type"] == "chat_history")
        assert history["lines"] == []
        for text in ("first", "second"):
            ann.send(type="chat", text=text)
            ann.until(lambda m: m["type"] == "chat")
    # a new connection (the page reloaded) receives what was said, oldest first, with names
    with hello(client, code, made["token"]) as again:
        history = again.until(lambda m: m["type"] == "chat_history")
        assert [(line["name"], line["text"]) for line in history["lines"]] == [("Ann", "first"), ("Ann", "second")]
    with hello(client, code, None) as watcher:  # spectators read the chat too
        assert len(watcher.until(lambda m: m["type"] == "chat_history")["lines"]) == 2


def test_a_room_keeps_only_its_latest_chat_lines(client: TestClient) -> None:
    from fivedice.web.lobby import CHAT_KEPT

    made = create(client, rules="yacht", humans=1)
    with hello(client, made["code"], made["token"]) as ann:
        for i in range(CHAT_KEPT + 5):
            ann.send(type="chat", text=f"line {i}")
            ann.until(lambda m: m["type"] == "chat")
    with hello(client, made["code"], made["token"]) as again:
        lines = again.until(lambda m: m["type"] == "chat_history")["lines"]
    assert len(lines) == CHAT_KEPT
    assert (lines[0]["text"], lines[-1]["text"]) == ("line 5", f"line {CHAT_KEPT + 4}")


def test_spectators_are_listed_by_name_and_leave_the_list_when_they_go(client: TestClient) -> None:
    made = create(client, rules="yacht", humans=1)
    code = made["code"]
    with hello(client, code, made["token"]) as ann:
        with client.websocket_connect(f"/ws/{code}") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": None, "name": "Zoe"}))
            # a small presence update, not the whole state (about 2 KB each time)
            ann.until(lambda m: m["type"] == "presence" and m["spectators"] == ["Zoe"])
            with hello(client, code, None):
                ann.until(lambda m: m["type"] == "presence" and m["spectators"] == ["Zoe", None])
        ann.until(lambda m: m["type"] == "presence" and m["spectators"] == [])
        assert client.get(f"/api/rooms/{code}").json()["spectators"] == []
        # a spectator's name follows the name rules
        with client.websocket_connect(f"/ws/{code}") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": None, "name": "x" * 30}))
            assert "expected at most 24" in ws.receive_json()["message"]


def test_a_finished_game_is_shared_as_a_read_only_replay(client: TestClient) -> None:
    made = create(client, rules="yacht", humans=2)
    code = made["code"]
    bob = client.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).json()
    with hello(client, code, made["token"]) as ann, hello(client, code, bob["token"]) as b:
        refused = client.post(f"/api/rooms/{code}/replay")
        assert refused.status_code == 400
        assert "not over" in refused.json()["error"]
        ann.send(type="start")
        ann.version(ann.state["version"])
        final = play({0: ann, 1: b})
    shared = client.post(f"/api/rooms/{code}/replay").json()
    assert shared["link"] == f"/replay/{shared['id']}"
    assert code not in shared["id"]  # the link never gives the invite code away
    assert client.post(f"/api/rooms/{code}/replay?game=1").json() == shared  # one link per game
    data = client.get(f"/api/replays/{shared['id']}").json()
    assert "code" not in data
    assert code not in json.dumps(data)
    assert data["players"] == ["Ann", "Bob"]
    frames = data["frames"]
    log = client.get(f"/api/rooms/{code}/log").json()
    assert len(frames) == len(log["moves"]) + 1  # the start, then one frame per move
    assert frames[0]["event"] is None
    assert frames[-1]["totals"] == final["game"]["totals"]
    assert data["standings"] == final["game"]["standings"]
    rolls = [f for f in frames if f["event"] and f["event"]["msg"].startswith("{player} rolls {dice}")]
    assert rolls
    assert all(f["dice"] is not None and len(f["dice"]) == 5 for f in rolls)
    scored = [f for f in frames if f["event"] and "scores" in f["event"]["msg"]]
    assert len(scored) == 24  # 12 rounds, two players
    assert client.get(f"/replay/{shared['id']}").status_code == 200
    assert "default-src 'self'" in client.get(f"/replay/{shared['id']}").headers["content-security-policy"]
    for bad in ("nope", "A" * 12, "x" * 300):
        r = client.get(f"/api/replays/{bad}")
        assert r.status_code == 404
        assert "does not exist" in r.json()["error"]


def test_rematch_keeps_the_same_seats_and_the_chat(client: TestClient) -> None:
    made = create(client, rules="yacht", humans=2, computers=["greedy"])
    code = made["code"]
    bob = client.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).json()
    with hello(client, code, made["token"]) as ann, hello(client, code, bob["token"]) as b:
        b.send(type="chat", text="good luck")
        ann.until(lambda m: m["type"] == "chat")
        ann.send(type="start")
        ann.version(ann.state["version"])
        play({0: ann, 1: b})
        before = [(s["name"], s["kind"], s["level"]) for s in ann.state["seats"]]
        v = ann.state["version"]
        b.send(type="rematch")
        state = ann.version(v)
        assert state["status"] == "playing"
        assert state["game_no"] == 2
        assert [(s["name"], s["kind"], s["level"]) for s in state["seats"]] == before
    with hello(client, code, bob["token"]) as again:
        assert again.you == 1
        assert [line["text"] for line in again.until(lambda m: m["type"] == "chat_history")["lines"]] == ["good luck"]


def test_every_rule_set_option_is_explained_in_words_in_the_asked_language(client: TestClient) -> None:
    for lang in ("en", "it"):
        rules = {r["name"]: r for r in client.get(f"/api/rules?lang={lang}").json()["rules"]}
        assert set(rules) == set(BUILTINS)
        for name, builtin in BUILTINS.items():
            explained = rules[name]["explained"]
            assert [o["name"] for o in explained] == [o.name for o in builtin.options]
            for option, found in zip(builtin.options, explained, strict=True):
                assert [c["value"] for c in found["choices"]] == list(option.choices)
                for choice in found["choices"]:
                    assert choice["label"] != choice["value"] or choice["value"] in ("jetsi",)
                    assert choice["help"].endswith(".")
                    assert choice["help"] != option.help
    joker = client.get("/api/rules?lang=it").json()["rules"][0]["explained"][0]
    assert joker["title"] == "Regola del Joker"
    assert joker["choices"][2]["label"] == "Nessun Joker"


def test_the_installable_app_manifest_icons_and_service_worker(client: TestClient) -> None:
    manifest = client.get("/static/manifest.webmanifest")
    assert manifest.status_code == 200
    assert manifest.headers["content-type"].startswith("application/manifest+json")
    data = manifest.json()
    assert data["start_url"] == "/"
    assert data["display"] == "standalone"
    sizes = {icon["sizes"] for icon in data["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in data["icons"]:
        assert client.get(icon["src"]).status_code == 200
    sw = client.get("/sw.js")
    assert sw.status_code == 200
    assert sw.headers["content-type"].startswith("text/javascript")
    assert "no-cache" in sw.headers["cache-control"]
    # the worker caches exactly the static files that exist
    listed = [line.strip().strip('",') for line in sw.text.splitlines() if line.strip().startswith('"/static/')]
    assert "/static/app.js" in listed
    for path in listed:
        assert client.get(path).status_code == 200, path
    page = client.get("/").text
    assert '<link rel="manifest" href="/static/manifest.webmanifest">' in page


def test_dropping_the_room_tables_drops_the_chat_and_replays_beside_them(tmp_path: Path) -> None:
    from sqlalchemy import inspect

    from fivedice.web.db import RoomStore, SeatRow
    from fivedice.web.lobby import RoomExtras
    from fivedice.web.replay import ReplayStore

    url = f"sqlite:///{tmp_path / 'rooms.db'}"
    store = RoomStore(url, "t_")
    extras, replays = RoomExtras(store), ReplayStore(store)
    store.create("ABCD2345", "yacht", {}, [SeatRow(0, "Ann", SeatKind.HUMAN, None, "x")], now=1.0)
    extras.add_chat("ABCD2345", 0, "Ann", "hi", now=2.0)
    replays.share("ABCD2345", 1, now=3.0)
    store.dispose()
    fresh = RoomStore(url, "t_")  # an operator's or a test's clean-up knows only the room tables
    fresh.drop()
    assert [t for t in inspect(fresh.engine).get_table_names() if t.startswith("t_")] == []
    fresh.dispose()
