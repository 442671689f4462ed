"""In Debian's chromium, on a phone: a solo Yacht player with a game in the server's high scores sees
"Beat your best", and the hint says, while the chances are prepared in the server process, that they are,
then (asked again by the page while the hint stays open) each option's chance of beating that best."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest

from tests.web.conftest import CHROMIUM, RemoteConn, Server, axe_problems, play_remote, recorded_rows

if not Path(CHROMIUM).exists():
    pytest.skip(f"{CHROMIUM} is not installed; browser tests skipped.", allow_module_level=True)
pytest.importorskip("playwright.sync_api", reason="playwright is not installed; browser tests skipped.")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(f"sqlite:///{tmp_path / 'rooms.db'}", "--seed", "4", "--computer-delay", "0.05")
    srv.start()
    yield srv
    srv.stop()


def recorded_game(server: Server, db: Path, name: str) -> int:
    """Play a solo Yacht game of ``name`` over the API and wait until the high scores hold it; its total."""
    made = httpx.post(server.url + "/api/rooms", json={"name": name, "rules": "yacht", "humans": 1}).json()
    conn = RemoteConn(server.ws, made["code"], made["token"])
    conn.send(type="start")
    conn.version(conn.state["version"])
    total = int(play_remote({0: conn})["game"]["totals"][0])
    conn.close()
    recorded_rows(db, "SELECT total FROM fivedice_results")
    return total


def box_parts(page: Any) -> list[str]:
    """The hint panel's nodes (text nodes too: a stray null or undefined would be one)."""
    return list(page.evaluate("() => [...document.querySelector('#hint-box').childNodes].map(n => n.nodeName)"))


def test_the_hint_shows_the_chance_to_beat_ones_best(server: Server, browser: Any, tmp_path: Path) -> None:
    best = recorded_game(server, tmp_path / "rooms.db", "Kim")
    made = httpx.post(server.url + "/api/rooms", json={"name": "Kim", "rules": "yacht", "humans": 1}).json()
    # bypass_csp: a wait_for_function that has to poll evaluates its text, which the page's CSP forbids
    context = browser.new_context(
        viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True, bypass_csp=True
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server.url + "/")
    store = "([code, token]) => localStorage.setItem(`fivedice:token:${code}`, token)"
    page.evaluate(store, [made["code"], made["token"]])
    page.goto(server.url + made["link"])
    page.get_by_role("button", name="Start the game").click()
    page.get_by_role("button", name="Roll", exact=True).click()
    page.wait_for_function("[...document.querySelectorAll('#dice .die')].every(d => d.dataset.value)")
    best_line = page.locator("#best-title")
    best_line.wait_for()
    assert best_line.inner_text() == f"Beat your best: {best}"
    page.get_by_role("button", name="Hint").click()
    # the chances come at once from the shipped per-state summaries: no preparation, no note
    page.locator("#hint-box li.best .chance").wait_for(timeout=60_000)
    assert page.locator("#hint-box .note").count() == 0
    assert page.locator("#hint-box li.best").count() == 1
    chances = page.locator("#hint-box li .chance").all_text_contents()  # the other choices are folded away
    assert len(chances) == page.locator("#hint-box li").count()
    assert all(re.fullmatch(rf"beat {best}: \d{{1,3}}\.\d%", c) for c in chances), chances
    assert "(expected " not in page.locator("#hint-box li.best").inner_text()  # the first choice in words
    page.locator("#hint-box details summary").click()  # the choices with their numbers, one tap away
    assert "(expected " in page.locator("#hint-box details li").first.inner_text()
    assert box_parts(page) == ["DIV", "DETAILS"]  # the choice and Apply on one line, the others: nothing in between
    # the phone layout stays tidy: nothing wider than the screen
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 360
    box = page.locator("#hint-box")
    assert box.evaluate("b => b.scrollWidth <= b.clientWidth")
    assert axe_problems(page) == []
    assert errors == []
    context.close()
