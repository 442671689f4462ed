"""My games (order, whose turn, any device), friends, blocks, invitations, the invite QR code and a
deleted account's anonymised high scores."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from fivedice.web.friends import qr_svg
from tests.web.accounts_helpers import Browser, database, make_app, one_sentence  # noqa: F401
from tests.web.conftest import intent, play


@pytest.fixture
def client(database: dict[str, Any]) -> Iterator[TestClient]:  # noqa: F811 - the imported fixture
    with TestClient(make_app(**database)) as c:
        yield c


def start(browser: Browser, code: str) -> None:
    """The host starts the game (through the account's seat: no token needed)."""
    with browser.socket(code) as host:
        version = host.state["version"]
        host.send(type="start")
        host.version(version)


def score_once(browser: Browser, code: str) -> None:
    """Play one whole turn (roll, score) from the account's seat."""
    with browser.socket(code) as me:
        seat = me.you
        while me.state["game"]["current"] == seat:
            version = me.state["version"]
            me.send(**intent(me.state["game"]))
            me.version(version)


def stamp(client: TestClient, at: float) -> None:
    service = client.app.state.service  # type: ignore[attr-defined]
    service.clock = lambda: at


def test_my_games_your_turn_first_then_in_play_lobby_and_over(client: TestClient) -> None:
    ann, bob = Browser(client), Browser(client)
    ann.sign_up("Ann")
    bob.sign_up("Bob")
    t0 = time.time()
    stamp(client, t0)
    mine = ann.create(humans=2, first="host")  # Ann starts: her turn
    bob.join(mine["code"])
    start(ann, mine["code"])
    stamp(client, t0 + 10)
    theirs = bob.create(humans=2, first="host")  # Bob starts: his turn
    ann.join(theirs["code"])
    start(bob, theirs["code"])
    stamp(client, t0 + 20)
    waiting = ann.create(humans=3)  # in the lobby, two open seats
    stamp(client, t0 + 30)
    alone = ann.create(rules="yacht", humans=1)
    with ann.socket(alone["code"]) as solo:
        solo.send(type="start")
        solo.version(solo.state["version"])
        assert play({0: solo})["status"] == "over"
    listed = ann.games()
    assert [g["code"] for g in listed["games"]] == [mine["code"], theirs["code"], waiting["code"], alone["code"]]
    first, second, lobby, over = listed["games"]
    assert first["your_turn"] is True
    assert first["turn"] == "Ann"
    assert first["opponents"] == ["Bob"]
    assert (first["status"], first["round"], first["rounds"], first["seat"]) == ("playing", 1, 13, 0)
    assert first["link"] == f"/r/{mine['code']}"
    assert second["your_turn"] is False
    assert second["turn"] == "Bob"
    assert second["seat"] == 1
    assert (lobby["status"], lobby["round"], lobby["open_seats"], lobby["opponents"]) == ("lobby", None, 2, [])
    assert over["status"] == "over"
    assert over["your_turn"] is False
    assert listed["your_turns"] == 1
    assert bob.games()["your_turns"] == 1
    # Ann plays her turn: the turn passes to Bob in both lists
    score_once(ann, mine["code"])
    assert ann.games()["your_turns"] == 0
    bobs = bob.games()["games"]
    assert [g["code"] for g in bobs if g["your_turn"]] == sorted(
        [mine["code"], theirs["code"]], key=lambda c: -next(g["last_move_at"] for g in bobs if g["code"] == c)
    )
    assert next(g for g in bobs if g["code"] == mine["code"])["round"] == 1


def test_my_games_from_rooms_no_longer_in_this_processs_memory(client: TestClient) -> None:
    ann, bob = Browser(client), Browser(client)
    ann.sign_up("Ann")
    bob.sign_up("Bob")
    made = ann.create(humans=2, first="host")
    bob.join(made["code"])
    start(ann, made["code"])
    score_once(ann, made["code"])
    service = client.app.state.service  # type: ignore[attr-defined]
    service.rooms.clear()  # as after a restart: every room is read and rebuilt from its stored moves
    game = bob.games()["games"][0]
    assert (game["your_turn"], game["turn"], game["round"]) == (True, "Bob", 1)
    assert ann.games()["games"][0]["your_turn"] is False


def test_a_games_notifications_are_turned_off_and_on(client: TestClient) -> None:
    ann = Browser(client)
    ann.sign_up("Ann")
    made = ann.create(humans=2)
    assert ann.put(f"/api/me/games/{made['code']}", json={"notify": False}).json() == {
        "code": made["code"],
        "notify": False,
    }
    assert ann.games()["games"][0]["notify"] is False
    other = Browser(client).create(name="Zed")
    refused = ann.put(f"/api/me/games/{other['code']}", json={"notify": True})
    assert refused.status_code == 404
    assert refused.json() == {"error": f"You have no seat in room {other['code']!r}; nothing was changed."}
    assert Browser(client).get("/api/me/games").status_code == 401


def played_together(client: TestClient, *players: Browser) -> str:
    made = players[0].create(humans=len(players))
    for p in players[1:]:
        p.join(made["code"])
    return str(made["code"])


def test_friends_are_players_you_played_with(client: TestClient) -> None:
    ann, bob, cid = Browser(client), Browser(client), Browser(client)
    for browser, name in ((ann, "Ann"), (bob, "Bob"), (cid, "Cid")):
        browser.sign_up(name)
    played_together(client, ann, bob)
    listed = ann.get("/api/me/friends").json()
    assert [p["name"] for p in listed["played_with"]] == ["Bob"]
    assert listed["friends"] == []
    stranger = ann.post("/api/me/friends", json={"name": "Cid"})
    assert stranger.status_code == 400
    assert stranger.json() == {"error": "You have not played with Cid yet; friends are players you played with."}
    unknown = ann.post("/api/me/friends", json={"name": "Nobody"})
    assert unknown.status_code == 400  # as for a stranger: which names have an account is not told
    assert unknown.json() == {"error": "You have not played with Nobody yet; friends are players you played with."}
    assert ann.post("/api/me/friends", json={"name": "Ann"}).status_code == 400
    assert ann.post("/api/me/friends", json={"name": "bob"}).json() == {"friend": "Bob"}
    assert ann.post("/api/me/friends", json={"name": "BOB"}).status_code == 201  # twice is once
    assert [f["name"] for f in ann.get("/api/me/friends").json()["friends"]] == ["Bob"]
    assert ann.delete("/api/me/friends/Bob").json() == {"friend": "Bob", "removed": True}
    assert ann.get("/api/me/friends").json()["friends"] == []


def test_invite_a_friend_straight_into_a_room(client: TestClient) -> None:
    ann, bob, cid = Browser(client), Browser(client), Browser(client)
    for browser, name in ((ann, "Ann"), (bob, "Bob"), (cid, "Cid")):
        browser.sign_up(name)
    played_together(client, ann, bob)
    room = ann.create(humans=3, rules="yatzy")
    not_friend = ann.post("/api/me/invites", json={"name": "Bob", "code": room["code"]})
    assert not_friend.status_code == 400
    assert not_friend.json() == {"error": "Bob is not your friend; add them first (players you played with)."}
    ann.post("/api/me/friends", json={"name": "Bob"})
    sent = ann.post("/api/me/invites", json={"name": "Bob", "code": room["code"]})
    assert sent.status_code == 201
    assert sent.json() == {"invited": "Bob", "code": room["code"], "notified": 0}
    invites = bob.games()["invites"]
    assert [(i["code"], i["from"], i["rules"]) for i in invites] == [(room["code"], "Ann", "Yatzy")]
    # only into one's own rooms
    other = cid.create(humans=2)
    outsider = ann.post("/api/me/invites", json={"name": "Bob", "code": other["code"]})
    assert outsider.status_code == 403
    bob.join(room["code"])
    assert bob.games()["invites"] == []  # taken: the invitation is gone
    again = ann.post("/api/me/invites", json={"name": "Bob", "code": room["code"]})
    assert again.json() == {"error": f"Bob already plays in room {room['code']!r}."}


def test_a_block_keeps_two_players_apart(client: TestClient) -> None:
    ann, bob = Browser(client), Browser(client)
    ann.sign_up("Ann")
    bob.sign_up("Bob")
    played_together(client, ann, bob)
    ann.post("/api/me/friends", json={"name": "Bob"})
    bob.post("/api/me/friends", json={"name": "Ann"})
    assert bob.post("/api/me/blocks", json={"name": "Ann"}).json() == {"blocked": "Ann"}
    assert ann.get("/api/me/friends").json()["friends"] == []  # the friendship ended both ways
    mine = bob.get("/api/me/friends").json()
    assert (mine["friends"], mine["blocked"], mine["played_with"]) == ([], [{"name": "Ann"}], [])
    befriend = ann.post("/api/me/friends", json={"name": "Bob"})
    assert befriend.status_code == 403
    assert befriend.json() == {"error": "A block stands between you and Bob; they cannot be your friend."}
    bobs_room = bob.create(humans=2)
    refused = ann.post(f"/api/rooms/{bobs_room['code']}/join", json={"name": "Ann"})
    assert refused.status_code == 403
    assert refused.json() == {
        "error": f"You cannot join room {bobs_room['code']!r}: a block stands between you and one of its players."
    }
    anns_room = ann.create(humans=2)
    assert bob.post(f"/api/rooms/{anns_room['code']}/join", json={"name": "Bob"}).status_code == 403
    assert bob.delete("/api/me/blocks/Ann").json() == {"blocked": "Ann", "removed": True}
    assert ann.post(f"/api/rooms/{bobs_room['code']}/join", json={"name": "Ann"}).status_code == 200


def test_the_invite_qr_code_is_the_rooms_link_as_svg(client: TestClient) -> None:
    made = Browser(client).create(name="Zoe")
    answer = client.get(f"/api/rooms/{made['code']}/qr.svg")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "image/svg+xml"
    assert answer.content == qr_svg(f"http://testserver/r/{made['code']}")
    assert f"<title>http://testserver/r/{made['code']}</title>".encode() in answer.content
    missing = client.get("/api/rooms/ABCD2345/qr.svg")
    assert missing.status_code == 404
    assert missing.json() == {"error": "Room 'ABCD2345' does not exist; check the invite code."}


def test_a_deleted_accounts_high_scores_are_anonymised(tmp_path: Path) -> None:
    from fivedice.storage import Store

    db = f"sqlite:///{tmp_path / 'scores.db'}"
    with TestClient(make_app(db, scores=True)) as client:
        ann, bob = Browser(client), Browser(client)
        ann.sign_up("Ann")
        bob.sign_up("Bob")
        made = ann.create(rules="yacht", humans=2, first="host")
        bob.join(made["code"])
        with ann.socket(made["code"]) as a, bob.socket(made["code"]) as b:
            a.send(type="start")
            a.version(a.state["version"])
            final = play({0: a, 1: b})
        assert final["status"] == "over"
        service = client.app.state.service  # type: ignore[attr-defined]
        room = service.rooms[made["code"]]
        client.portal.call(room.flags.until_recorded, 120)  # type: ignore[union-attr]
        names = {row.name for row in Store(db).high_scores(rules="yacht")}
        assert names == {"Ann", "Bob"}
        assert ann.delete("/api/me", json={"password": "correct horse battery"}).status_code == 200
        after = {row.name for row in Store(db).high_scores(rules="yacht")}
        assert "Ann" not in after
        assert "Bob" in after
        assert any(n.startswith("Former player ") for n in after)
        assert Store(db).history("Ann").count == 0


def test_friends_blocks_and_invites_never_tell_which_names_have_an_account(client: TestClient) -> None:
    """A name nobody has and a real player one never played with (or is not a friend, or not blocked) get the
    same status and sentence, as written: before, an unknown name got a 404 and could be blocked apart."""
    ann, cid = Browser(client), Browser(client)
    ann.sign_up("Ann")
    cid.sign_up("Cid")
    room = ann.create(humans=2)

    def answers(name: str) -> list[tuple[int, str]]:
        got = [
            ann.post("/api/me/friends", json={"name": name}),
            ann.post("/api/me/blocks", json={"name": name}),
            ann.post("/api/me/invites", json={"name": name, "code": room["code"]}),
            ann.delete(f"/api/me/friends/{name}"),
            ann.delete(f"/api/me/blocks/{name}"),
        ]
        return [(r.status_code, one_sentence(r).replace(name, "NAME")) for r in got]

    real, unknown = answers("cid"), answers("Zed")
    assert real == unknown
    assert [status for status, _text in real] == [400, 400, 400, 404, 404]
    assert ann.get("/api/me/friends").json()["blocked"] == []  # nothing was stored for either
