"""A spectator's page at the end of a game, and a bad invite, in Debian's chromium (Playwright). Skips without
chromium."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest

from tests.web.conftest import CHROMIUM, RemoteConn, Server, play_remote

if not Path(CHROMIUM).exists():
    pytest.skip(f"{CHROMIUM} is not installed; browser tests skipped.", allow_module_level=True)
pytest.importorskip("playwright.sync_api", reason="playwright is not installed; browser tests skipped.")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(f"sqlite:///{tmp_path / 'rooms.db'}", "--seed", "3", "--computer-delay", "0.05")
    srv.start()
    yield srv
    srv.stop()


def test_a_spectator_sees_the_analysis_without_being_told_off(server: Server, browser: Any) -> None:
    made = httpx.post(server.url + "/api/rooms", json={"name": "Ann", "rules": "yacht", "humans": 1}).json()
    page = browser.new_page(bypass_csp=True)
    toasts: list[str] = []
    page.expose_function("noteToast", lambda text: toasts.append(text))
    page.goto(f"{server.url}/r/{made['code']}")
    page.wait_for_function("() => document.querySelector('#connection').textContent === 'watching'")
    page.evaluate(
        "() => new MutationObserver(() => window.noteToast(document.querySelector('#toast').textContent))"
        ".observe(document.querySelector('#toast'), {childList: true, characterData: true, subtree: true})"
    )
    ann = RemoteConn(server.ws, made["code"], made["token"])
    ann.send(type="start")
    ann.version(ann.state["version"])
    play_remote({0: ann})
    ann.close()
    analysis = page.locator("#analysis")
    page.wait_for_function(
        "() => !document.querySelector('#analysis').textContent.includes('being prepared')"
        " && document.querySelector('#analysis').textContent.length > 0",
        timeout=60_000,
    )
    assert "being prepared" not in analysis.inner_text()
    assert not [t for t in toasts if "Spectators" in t]


def test_a_bad_invite_says_the_room_is_gone_and_offers_the_lobby(server: Server, browser: Any) -> None:
    page = browser.new_page(bypass_csp=True)
    page.goto(f"{server.url}/r/ABCDEFGH")
    gone = page.locator("#room-gone")
    gone.wait_for()
    assert "does not exist or has expired" in gone.inner_text()
    assert page.locator("#connection").inner_text() == "not in this room"
    page.get_by_role("link", name="Back to the lobby").click()
    page.locator("#lobby").wait_for()
