"""Pass and play in Debian's chromium (Playwright): two players on one page take turns, the device handed
over between them (a screen naming whose turn it is hides the board until tapped), in a room whose turns
may wait days. Skips without chromium."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest

from tests.web.conftest import CHROMIUM, Server, axe_problems
from tests.web.test_browser import connected, version, wait_newer

if not Path(CHROMIUM).exists():
    pytest.skip(f"{CHROMIUM} is not installed; browser tests skipped.", allow_module_level=True)
pytest.importorskip("playwright.sync_api", reason="playwright is not installed; browser tests skipped.")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(f"sqlite:///{tmp_path / 'rooms.db'}", "--seed", "5", "--computer-delay", "0.05", "--no-scores")
    srv.start()
    yield srv
    srv.stop()


def current(page: Any) -> str:
    """The name of the seat marked as playing now."""
    return str(page.locator("#seats li.current .seat-name").inner_text()).removesuffix(" (you)")


def play_turn(page: Any) -> None:
    """Roll, roll again, score the first open box: one whole turn by taps on the page."""
    for _roll in range(2):
        v = version(page)
        page.locator("#roll").click()
        wait_newer(page, v)
    v = version(page)
    page.locator("#cards td.opt button:not([disabled])").first.click()
    wait_newer(page, v)


def test_two_players_take_turns_on_one_page(server: Server, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1024, "height": 800}, bypass_csp=True)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server.url + "/")
    page.locator("#rules-select option").first.wait_for(state="attached")
    page.locator("#player-name").fill("Ann")
    form = page.locator("#create-form")
    form.get_by_label("Rule set").select_option("yacht")
    form.get_by_label("People playing").fill("2")
    form.get_by_role("button", name="Add a player on this device").click()
    page.locator('#local-list input[name="local"]').fill("Bob")
    form.get_by_label("Time for each turn (empty: no limit)").fill("2")
    form.get_by_label("Unit").select_option("86400")
    form.get_by_label("When the time runs out").select_option("forfeit")
    form.get_by_role("button", name="Create room").click()
    page.wait_for_url("**/r/*")
    connected(page)
    policy = page.locator("#turn-policy").inner_text()
    assert policy == "2 days a turn, then the computer plays it; 3 missed turns forfeit."
    assert "Ann (you)" in page.locator("#seats").inner_text()
    page.locator("#start").click()  # both seats are taken: the host starts at once
    page.wait_for_function(
        "() => document.querySelector('#room').classList.contains('in-play') "
        "&& document.querySelector('#seats li.current')",
        timeout=20_000,
    )
    page.wait_for_function("() => !document.querySelector('#turn').textContent.startsWith('Roll-off')", timeout=20_000)
    shown = "Ann"
    turns = {"Ann": 0, "Bob": 0}
    handovers = 0
    while min(turns.values()) < 3:
        player = current(page)
        if player != shown:  # the device goes to the other player: the board is hidden until they tap
            page.locator("#handover").wait_for(state="visible")
            assert page.locator("#handover-title").inner_text() == f"Pass the device to {player}."
            assert page.locator("#dice").is_hidden()
            assert page.locator("#cards").is_hidden()
            if handovers == 0:
                assert axe_problems(page) == []
            page.get_by_role("button", name=f"I am {player}: show my turn").click()
            handovers += 1
            shown = player
        assert page.locator("#handover").is_hidden()
        assert f"{player} (you)" in page.locator("#seats").inner_text()
        assert page.locator("#turn").get_attribute("class") == "yours"
        play_turn(page)
        turns[player] += 1
    assert handovers >= 5
    # every score was made by its own seat, none by the computer
    code = page.url.rsplit("/", 1)[1]
    log = httpx.get(f"{server.url}/api/rooms/{code}/log").json()["moves"]
    scores = [m for m in log if m["record"]["type"] == "score"]
    assert {m["seat"] for m in scores} == {0, 1}
    assert {m["by"] for m in scores} == {"seat"}
    assert errors == []
