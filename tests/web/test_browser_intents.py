"""In Debian's chromium: a double click on Roll, or two quick Space presses, roll once (each intent
carries the room version, the page disables the button until the next state arrives)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest

from tests.web.conftest import CHROMIUM, Server

if not Path(CHROMIUM).exists():
    pytest.skip(
        f"{CHROMIUM} is not installed (apt-get install chromium); browser tests skipped.", allow_module_level=True
    )
pytest.importorskip("playwright.sync_api", reason="playwright is not installed; browser tests skipped.")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(f"sqlite:///{tmp_path / 'rooms.db'}", "--seed", "5", "--no-scores")
    srv.start()
    yield srv
    srv.stop()


def wait_version(page: Any, above: int) -> int:
    page.wait_for_function("v => Number(document.querySelector('#room').dataset.version) > v", arg=above)
    return int(page.locator("#room").get_attribute("data-version") or 0)


def test_a_double_click_and_two_quick_presses_roll_once(server: Server, browser: Any, tmp_path: Path) -> None:
    made = httpx.post(server.url + "/api/rooms", json={"name": "Ann", "rules": "yacht", "humans": 1}).json()
    page = browser.new_page()
    page.goto(server.url + "/")
    store = "([code, token]) => localStorage.setItem(`fivedice:token:${code}`, token)"
    page.evaluate(store, [made["code"], made["token"]])
    page.goto(server.url + made["link"])
    version = wait_version(page, 0)
    page.locator("#start").click()
    version = wait_version(page, version)
    page.locator("#roll").dblclick()
    version = wait_version(page, version)
    page.wait_for_timeout(500)  # a second roll, if one went out, has arrived by now
    # two quick presses while the server is slow (the database held by another program for 0.4 s):
    # the second press comes before the state, so the page holds it back (and the server would refuse it)
    locker = sqlite3.connect(tmp_path / "rooms.db", timeout=5)
    locker.execute("BEGIN EXCLUSIVE")
    page.locator("body").focus()
    page.keyboard.press("Space")
    page.keyboard.press("Space")
    page.wait_for_timeout(400)
    locker.rollback()
    locker.close()
    wait_version(page, version)
    page.wait_for_timeout(500)
    log = httpx.get(f"{server.url}/api/rooms/{made['code']}/log").json()["moves"]
    assert [m["record"]["type"] for m in log] == ["roll", "roll"]
    assert page.locator("#roll").is_enabled()  # enabled again once the state arrived
    page.close()
