"""Profiles over HTTP: a finished game of account seats is kept with its luck and decisions, the skill
rating (OpenSkill, against the package's reference) and the decision rating, leaderboards by both,
a public profile a player may hide, and the schema step that adds the tables."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from fivedice.table.seat import SeatKind
from fivedice.web.profiles import Rating, rate
from tests.web.accounts_helpers import Browser, database, make_app  # noqa: F401
from tests.web.conftest import play


@pytest.fixture
def client(database: dict[str, Any]) -> Iterator[TestClient]:  # noqa: F811 - the imported fixture
    with TestClient(make_app(**database)) as c:
        yield c


def test_ratings_follow_the_openskill_reference_for_a_known_sequence() -> None:
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    reference = [model.rating(), model.rating(), model.rating()]
    mine: list[Rating | None] = [None, None, None]
    sequence = [((0, 1, 2), (1, 2, 3)), ((0, 1), (2, 1)), ((0, 1, 2), (1, 1, 3)), ((1, 2), (1, 2))]
    for seats, places in sequence:
        after = model.rate([[reference[s]] for s in seats], ranks=list(places))
        for s, team in zip(seats, after, strict=True):
            reference[s] = team[0]
        for s, new in zip(seats, rate([mine[s] for s in seats], list(places)), strict=True):
            mine[s] = new
    for ref, got in zip(reference, mine, strict=True):
        assert got is not None
        assert (got.mu, got.sigma) == pytest.approx((ref.mu, ref.sigma), abs=1e-9)
    # openskill 6.2's figures for this sequence, so a change of its defaults shows
    figures = [x for r in mine if r is not None for x in (r.mu, r.sigma)]
    assert figures == pytest.approx([25.74007, 7.82284, 30.38486, 7.49058, 18.62301, 7.71977], abs=1e-4)
    assert [r.games for r in mine if r is not None] == [3, 4, 3]
    assert mine[1] is not None
    assert mine[1].ordinal == pytest.approx(mine[1].mu - 3 * mine[1].sigma)


def finish(client: TestClient, host: Browser, guest: Browser, rules: str = "yacht") -> str:
    made = host.create(rules=rules, humans=2, first="host")
    guest.join(made["code"])
    with host.socket(made["code"]) as a, guest.socket(made["code"]) as b:
        a.send(type="start")
        a.version(a.state["version"])
        assert play({0: a, 1: b})["status"] == "over"
    profiles = client.app.state.profiles  # type: ignore[attr-defined]
    client.portal.call(profiles.settled)  # type: ignore[union-attr]
    return str(made["code"])


def test_a_finished_game_makes_both_profiles_with_luck_ratings_and_leaderboards(client: TestClient) -> None:
    ann, bob = Browser(client), Browser(client)
    ann.sign_up("Ann")
    bob.sign_up("Bob")
    assert ann.get("/api/me/stats").json()["games"] == 0
    code = finish(client, ann, bob)
    finish(client, bob, ann)
    mine = ann.get("/api/me/stats")
    assert mine.status_code == 200
    data = mine.json()
    assert {"games", "wins", "best", "mean", "rating", "decision_rating"} <= data.keys()
    assert data["name"] == "Ann"
    assert data["games"] == 2
    assert data["multiplayer"] == 2
    _newest, oldest = data["history"]
    assert oldest["game"] == f"{code}/1"
    assert oldest["replay"].startswith("/replay/")
    replay_id = oldest["replay"].rsplit("/", 1)[1]
    live = client.get("/api/replays/" + replay_id).json()
    kept = client.get("/api/replays/kept/" + replay_id).json()  # what the replay page reads once the room is gone
    assert kept["frames"] == live["frames"]
    assert kept["standings"] == live["standings"]
    assert client.get("/api/replays/kept/" + "x" * 12).status_code == 404
    assert oldest["opponents"][0]["name"] == "Bob"
    assert data["rivals"] == [{"name": "Bob", "games": 2, "wins": data["wins"], "rate": data["wins"] / 2}]
    for game in data["history"]:  # the split: total - optimal mean = luck - loss
        assert game["total"] - game["optimal"] == pytest.approx(game["luck"] - game["loss"], abs=1e-6)
    assert len(data["timeline"]) == 2
    assert data["rating"]["games"] == 2
    assert data["rating"]["rules"] == "yacht"
    assert data["rating"]["sigma"] < 25 / 3
    assert data["decision_rating"]["decisions"] > 0
    bobs = bob.get("/api/me/stats").json()
    assert bobs["wins"] + data["wins"] >= 2  # a shared first place counts for both
    boards = client.get("/api/leaderboards/ratings", params={"rules": "yacht"}).json()
    assert boards["rules"] == "yacht"
    assert {row["name"] for row in boards["skill"]} == {"Ann", "Bob"}
    assert boards["skill"][0]["ordinal"] >= boards["skill"][1]["ordinal"]
    assert [row["rank"] for row in boards["decisions"]] == [1, 2]
    assert boards["decisions"][0]["mean"] <= boards["decisions"][1]["mean"]
    bad = client.get("/api/leaderboards/ratings", params={"rules": "nosuchgame"})
    assert bad.status_code == 400
    assert "nosuchgame" in bad.json()["error"]

    # the public profile, then hidden: a hidden profile and an unknown name answer alike
    shown = client.get("/api/profiles/ann").json()
    assert shown["games"] == 2
    assert shown["rivals"] == []
    assert "opponents" not in shown["history"][0]
    assert shown["history"][0]["replay"] is None  # replays name the other players: on the own page only
    assert ann.put("/api/me/profile", json={"public": False}).json() == {"public": False}
    hidden, unknown = client.get("/api/profiles/Ann"), client.get("/api/profiles/Nobody")
    assert hidden.status_code == unknown.status_code == 404
    assert hidden.json()["error"] == "There is no public profile called 'Ann'."
    assert ann.get("/api/me/stats").json()["public"] is False
    boards = client.get("/api/leaderboards/ratings", params={"rules": "yacht"}).json()
    assert [row["name"] for row in boards["skill"]] == ["Bob"]
    assert client.get("/profile/Bob").status_code == 200
    assert client.get("/api/me/stats").status_code == 401

    # a deleted account leaves other players' histories anonymised, and its own games go with it
    assert bob.delete("/api/me", json={"password": "correct horse battery"}).status_code == 200
    after = ann.get("/api/me/stats").json()
    assert after["games"] == 2
    assert [r["name"] for r in after["rivals"]] == [after["history"][0]["opponents"][0]["name"]]
    assert after["rivals"][0]["name"].startswith("Former player ")
    boards = client.get("/api/leaderboards/ratings", params={"rules": "yacht"}).json()
    assert boards["skill"] == []  # Ann is hidden, Bob is gone


def test_a_schema_3_database_gains_the_profile_tables(tmp_path: Any) -> None:
    from sqlalchemy import inspect, text

    from fivedice.web.db import RoomStore, SeatRow
    from fivedice.web.profile_tables import profile_tables

    url = f"sqlite:///{tmp_path / 'rooms.db'}"
    old = RoomStore(url)
    old.create("KEEP2345", "yacht", {}, [SeatRow(0, "Ann", SeatKind.HUMAN, None, "h")], now=1.0)
    with old.engine.begin() as conn:  # as fivedice left it before the profiles: schema 3
        pt = profile_tables(old.tables)
        pt.ratings.drop(conn)
        pt.games.drop(conn)
        conn.execute(text("UPDATE web_meta SET value = '3' WHERE key = 'schema'"))
    old.dispose()
    store = RoomStore(url)
    assert {"web_account_games", "web_ratings"} <= set(inspect(store.engine).get_table_names())
    assert store.room("KEEP2345").seats[0].name == "Ann"
    store.dispose()
