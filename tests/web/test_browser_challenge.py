"""Today's challenge in Debian's chromium (Playwright): from the lobby in one click, played to the end, then
the optimal player's total on the same dice and the leaderboard on the end screen. Skips without chromium."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import CHROMIUM, Server, axe_problems
from tests.web.test_browser import connected, my_turn, version, wait_newer

if not Path(CHROMIUM).exists():
    pytest.skip(f"{CHROMIUM} is not installed; browser tests skipped.", allow_module_level=True)
pytest.importorskip("playwright.sync_api", reason="playwright is not installed; browser tests skipped.")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    from fivedice.storage import Store

    url = f"sqlite:///{tmp_path / 'rooms.db'}"
    Store(url).close()
    srv = Server(url, "--seed", "3", "--computer-delay", "0.05")  # scores kept in the same database
    srv.start()
    yield srv
    srv.stop()


def test_todays_challenge_from_the_lobby_to_the_leaderboard(server: Server, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1024, "height": 800}, bypass_csp=True)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server.url + "/")
    page.locator("#daily-board li").first.wait_for()
    assert page.locator("#daily-board").inner_text() == "No one has played today's challenge yet."
    page.locator("#player-name").fill("Kim")
    page.get_by_role("button", name="Play today's challenge").click()
    page.wait_for_url("**/r/*")
    connected(page)
    today = date.today().isoformat()
    goal = page.locator("#challenge-title-room")
    assert goal.inner_text().startswith(f"Challenge {today}")
    page.wait_for_function("() => document.querySelector('#challenge-title-room').textContent.includes('goal')")
    assert " — Your goal: beat " in goal.inner_text()
    assert goal.inner_text().endswith(", what the optimal player scored on these dice.")
    assert page.locator("#hint").is_hidden()  # no hints in the daily challenge
    while not page.locator("#over").is_visible():
        if not my_turn(page):
            page.wait_for_timeout(50)
            continue
        v = version(page)
        empty = page.locator('#dice .die[data-value=""]').count()
        if empty:
            page.locator("#roll").click()
        else:
            page.locator("#cards td.opt button").first.click()
        wait_newer(page, v)
    result = page.locator("#challenge-result")
    result.locator("ol.leaderboard li").first.wait_for(timeout=60_000)
    text = result.inner_text()
    assert f"Challenge {today}: on the same dice, the optimal player scored " in text
    total = page.locator("#ranking").inner_text().split("— ")[1].split(" ")[0]
    assert f"1. Kim (guest) — {total} points" in result.locator("ol.leaderboard").inner_text()
    assert axe_problems(page) == []
    page.goto(server.url + "/")
    page.locator("#daily-board").get_by_text(f"1. Kim (guest) — {total} points").wait_for()
    assert errors == []
