"""Languages on the web: per request, per connection, switched mid-game; the page's texts all translatable."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from html.parser import HTMLParser
from pathlib import Path

from fastapi.testclient import TestClient

from fivedice.i18n.catalogs import template
from tests.web.conftest import Conn, create, play

STATIC = Path(__file__).resolve().parents[2] / "src" / "fivedice" / "web" / "static"


@contextmanager
def speaker(
    client: TestClient, code: str, token: str | None, lang: str | None = None, **headers: str
) -> Iterator[Conn]:
    """A connection that says hello in ``lang`` (none: whatever the handshake asks for)."""
    with client.websocket_connect(f"/ws/{code}", headers=headers) as ws:
        conn = Conn(ws)
        msg: dict[str, object] = {"type": "hello", "token": token}
        if lang is not None:
            msg["lang"] = lang
        conn.send(**msg)
        conn.until(lambda m: m["type"] == "state")
        yield conn


def test_an_illegal_move_errs_in_each_clients_language_in_the_same_room(client: TestClient) -> None:
    made = create(client, rules="yacht", humans=2)
    code = made["code"]
    joined = client.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).json()
    with speaker(client, code, made["token"], "it") as ann, speaker(client, code, joined["token"], "en") as bob:
        # before the start: both try to roll
        ann.send(type="roll")
        assert ann.error() == "La partita non è ancora iniziata; la avvia chi ospita dalla sala d'attesa."
        bob.send(type="roll")
        assert bob.error() == "The game has not started yet; the host starts it from the lobby."
        bob.send(type="start")
        assert bob.error() == "Only the host, Ann, can start the game."
        ann.send(type="start")
        ann.until(lambda m: m["type"] == "state" and m["state"]["game"]["phase"] == "play")
        bob.version(ann.state["version"] - 1)
        # after the table's roll-off: whoever is not to roll gets the error in their own language
        current = ann.state["game"]["current"]
        waiting, other = (bob, "Ann") if current == 0 else (ann, "Bob")
        waiting.send(type="roll")
        if waiting is ann:
            assert ann.error() == f"Tocca a {other}, non a Ann."
        else:
            assert bob.error() == f"It is {other}'s turn, not Bob's."
        # an engine error (bad box) in Italian for Ann, English for Bob
        ann.send(type="score", box="nonsense")
        bob.send(type="score", box="nonsense")
        italian, english = ann.error(), bob.error()
        assert italian != english
        assert "not" not in italian


def test_a_connection_switches_language_mid_game(client: TestClient) -> None:
    made = create(client, rules="yacht", humans=1)
    with speaker(client, made["code"], made["token"]) as ann:
        ann.send(type="undo")
        assert ann.error() == "This room does not allow undo."
        ann.send(type="language", lang="hr_HR", id=4)
        ack = ann.until(lambda m: m["type"] == "language")
        assert (ack["lang"], ack["id"]) == ("hr", 4)
        ann.send(type="undo")
        assert ann.error() == "Ova soba ne dopušta poništavanje."
        ann.send(type="language", lang="xx")
        assert ann.error() == "Jezik 'xx' nije dostupan."
        ann.send(type="undo")
        assert ann.error() == "Ova soba ne dopušta poništavanje."


def test_the_handshake_language_and_query_are_used_without_a_hello_language(client: TestClient) -> None:
    made = create(client, rules="yacht", humans=1)
    with speaker(client, made["code"], made["token"], None, **{"accept-language": "de-DE,su;q=0.8"}) as ann:
        ann.send(type="undo")
        assert ann.error() == "Kamar ieu teu ngidinan bolaykeun."
    with client.websocket_connect(f"/ws/{made['code']}?lang=it") as ws:
        ws.send_text(json.dumps({"type": "roll"}))
        assert ws.receive_json()["message"].startswith("Il primo messaggio deve essere")


def test_http_errors_follow_lang_then_accept_language(client: TestClient) -> None:
    r = client.post("/api/rooms?lang=it", json={"name": "Ann", "rules": "nosuch"})
    assert r.status_code == 400
    assert r.json()["error"].startswith("Il regolamento 'nosuch' è sconosciuto")
    assert r.headers["content-language"] == "it"
    r = client.get("/api/rooms/ZZZZZZZZ", headers={"Accept-Language": "hr-HR,hr;q=0.9,en;q=0.5"})
    assert r.status_code == 404
    assert r.json()["error"] == "Soba 'ZZZZZZZZ' ne postoji; provjeri pozivni kod."
    r = client.get("/api/rooms/ZZZZZZZZ", headers={"Accept-Language": "de"})
    assert r.json()["error"] == "Room 'ZZZZZZZZ' does not exist; check the invite code."
    r = client.post("/api/rooms", json={"name": "   "}, headers={"Accept-Language": "it"})
    assert r.status_code == 422
    assert "il nome è vuoto" in r.json()["error"]


def test_rules_catalogue_and_languages_in_the_asked_language(client: TestClient) -> None:
    data = client.get("/api/rules?lang=it").json()
    yahtzee = data["rules"][0]
    assert yahtzee["description"].startswith("Yahtzee: 13 caselle")
    assert data["levels"]["random"] == "sceglie a caso tra le mosse lecite"
    found = client.get("/api/languages", headers={"Accept-Language": "su"}).json()
    assert found["current"] == "su"
    assert found["languages"]["it"] == "Italiano"


def test_catalog_endpoint_serves_the_translations(client: TestClient) -> None:
    r = client.get("/i18n/it.json")
    assert r.status_code == 200
    data = r.json()
    assert data["language"] == "it"
    assert data["messages"]["Three of a Kind"] == "Tris"  # box labels come from the same catalog
    assert data["messages"]["Roll the other {n}"] == "Lancia gli altri {n}"
    assert client.get("/i18n/xx.json").status_code == 404
    assert client.get("/i18n/it_IT.json").status_code == 404  # one URL per language


def test_events_and_notices_travel_as_messages_with_fields(client: TestClient) -> None:
    made = create(client, rules="yacht", humans=1)
    with speaker(client, made["code"], made["token"], "it") as ann:
        version = ann.state["version"]
        ann.send(type="start")
        notice = ann.until(lambda m: m["type"] == "notice")
        assert (notice["msg"], notice["text"]) == ("The game has started.", "The game has started.")
        state = ann.version(version)
        while state["game"]["phase"] == "rolloff" or state["game"]["dice"] is None:
            version = state["version"]
            ann.send(type="roll")
            state = ann.version(version)
        version = state["version"]
        ann.send(type="score", box="choice")
        state = ann.version(version)
        event = state["event_keys"][-1]
        assert event["msg"] == "{player} scores {points} in {box}."
        assert event["args"]["box"] == "Choice"
        assert state["events"][-1] == f"Ann scores {event['args']['points']} in Choice."


class _Texts(HTMLParser):
    """Every text of the page not inside an element marked data-i18n (or a script, kbd or the title)."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, bool]] = []
        self.loose: list[str] = []
        self.marked: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("input", "meta", "link", "br"):
            return
        self.stack.append((tag, any(name == "data-i18n" for name, _value in attrs)))

    def handle_endtag(self, tag: str) -> None:
        if self.stack and self.stack[-1][0] == tag:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        text = " ".join(data.split())
        if not text or not self.stack:
            return
        tag, marked = self.stack[-1]
        if marked:
            self.marked.append(text)
        elif tag not in ("title", "kbd", "a", "script") and re.search(r"[^\W\d_]", text):  # icons need no words
            self.loose.append(text)


def test_every_text_of_the_page_and_scripts_is_in_the_catalogs() -> None:
    ids = {m.id for m in template() if m.id}
    for page in ("index.html", "replay.html"):
        parser = _Texts()
        parser.feed((STATIC / page).read_text())
        assert parser.loose == [], page
        assert set(parser.marked) <= ids
    assert {"New room", "Dice: press 1 to 5 or tap a die to keep it", "Copy the invite link", "Next move"} <= ids
    scripts = ("app.js", "hints.js", "language.js", "render.js", "i18n.js", "lobby.js", "end.js", "replay.js")
    for script in (*scripts, "account.js", "notify.js"):
        source = (STATIC / script).read_text()
        calls = re.findall(r'\bt\("((?:[^"\\]|\\.)*)"', source)
        assert calls, script
        assert set(calls) <= ids, set(calls) - ids
        # what the page shows is built with t(); no English sentence goes to textContent or a toast directly
        assert not re.search(r'(textContent = |toast\()"[A-Z]', source), script


def test_the_analysis_comes_in_each_asked_language(client: TestClient) -> None:
    made = create(client, rules="yacht", humans=1)
    with speaker(client, made["code"], made["token"], "it") as ann:
        ann.send(type="start")
        assert play({0: ann})["status"] == "over"
        ann.send(type="analysis")
        italian = ann.until(lambda m: m["type"] == "analysis")["analysis"]
        ann.send(type="language", lang="en")
        ann.send(type="analysis")
        english = ann.until(lambda m: m["type"] == "analysis")["analysis"]
    assert italian is not None
    assert english is not None
    assert italian["players"] == english["players"]
    words = {d["chosen"].split()[0] for d in italian["decisions"]} | {
        d["best"].split()[0] for d in italian["decisions"]
    }
    assert words <= {"segna", "tieni", "ritira"}
    assert {d["chosen"].split()[0] for d in english["decisions"]} <= {"score", "keep", "reroll"}
