"""The rule data behind the page's "How to play": each box with what it needs and scores, in the asker's language."""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_how_to_play_data_comes_with_each_rule_set(client: TestClient) -> None:
    rules = {r["name"]: r for r in client.get("/api/rules").json()["rules"]}
    yahtzee = rules["yahtzee"]
    assert (yahtzee["dice"], yahtzee["rolls"], yahtzee["rounds"]) == (5, 3, 13)
    assert yahtzee["upper_bonus"] == [{"threshold": 63, "points": 35}]
    assert yahtzee["yahtzee_bonus"] == 100
    boxes = {b["label"]: b for b in yahtzee["boxes"]}
    assert len(boxes) == 13
    assert boxes["Full House"] == {
        "label": "Full House",
        "section": "lower",
        "rule": "three of one face and two of another; scores 25",
    }
    assert boxes["Aces"]["section"] == "upper"
    assert rules["yatzy"]["rounds"] == 15
    assert rules["yacht"]["upper_bonus"] == []
    # the rules in the asker's language; the labels stay English keys, translated by the page's catalog
    italian = {r["name"]: r for r in client.get("/api/rules?lang=it").json()["rules"]}
    full = next(b for b in italian["yahtzee"]["boxes"] if b["label"] == "Full House")
    assert full["rule"].startswith("tre di una faccia")
