"""Two accounts play an asynchronous game in Debian's chromium (Playwright) across a server restart.

Ann and Bob sign up in browsers of their own (two contexts: cookies on localhost are shared across ports,
not across contexts). Ann creates a room that gives each turn two days; Bob opens the invite link and
joins; they play. The server process is stopped and started again on the same database and port; both
reopen "my games", see whose turn it is (the turn in the middle of its rolls, its clock still running),
open the game and play on; the first state their sockets receive is the one from before the restart. The
tab title and the installed app's badge count the turn. And the invite on a phone over plain http (no
clipboard, no share sheet), where only the shown link and the QR code can carry it.
Every wait is on the page (a selector, the room's version, the connection line), never on time. Skips without chromium.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import CHROMIUM, Server, free_port
from tests.web.test_browser import act, connected, dice, my_turn, version, wait_newer
from tests.web.test_browser_accounts import page_of, sign_up_with_password

if not Path(CHROMIUM).exists():
    pytest.skip(f"{CHROMIUM} is not installed; browser tests skipped.", allow_module_level=True)
pytest.importorskip("playwright.sync_api", reason="playwright is not installed; browser tests skipped.")


BADGE = """
window.__badge = null;
navigator.setAppBadge = (n) => { window.__badge = n; return Promise.resolve(); };
navigator.clearAppBadge = () => { window.__badge = 0; return Promise.resolve(); };
"""
"""The installed app's badge (the Badging API), recorded."""
PLAIN_HTTP = """
Object.defineProperty(Navigator.prototype, "clipboard", { get: () => undefined });
Object.defineProperty(Navigator.prototype, "share", { get: () => undefined });
"""
"""A page served over plain http on a LAN, as with ``--host 0.0.0.0``: no clipboard, no share sheet."""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """A server on a port of its own, so that it can be started again where the pages knew it."""
    srv = Server(f"sqlite:///{tmp_path / 'rooms.db'}", "--seed", "5", "--no-scores", port=free_port())
    srv.start()
    yield srv
    srv.stop()


def frames(page: Any) -> list[dict[str, Any]]:
    """The room messages the page's WebSockets receive, in order, as the page receives them."""
    seen: list[dict[str, Any]] = []

    def watch(ws: Any) -> None:
        ws.on("framereceived", lambda payload: seen.append(json.loads(payload)))

    page.on("websocket", watch)
    return seen


def turn_of(ann: Any, bob: Any) -> Any:
    """The page whose turn it is (the roll-off is rolled by the table: wait until a player's turn)."""
    ann.wait_for_function(
        "() => document.querySelector('#turn').className.includes('yours')"
        " || /’s turn|'s turn/.test(document.querySelector('#turn').textContent)",
        timeout=15_000,
    )
    if my_turn(ann):
        return ann
    bob.wait_for_function("() => document.querySelector('#turn').className.includes('yours')", timeout=15_000)
    return bob


def score_turn(page: Any, touch: bool) -> None:
    """The player whose page this is plays the rest of a turn: roll, keep dice 1 and 2 and roll, score a box
    (by keys, or by taps on a phone)."""
    for _ in range(4):
        if act(page, keep=True, touch=touch) == "score":
            return
    raise AssertionError("a turn took more than four actions")


def test_two_accounts_play_an_asynchronous_game_across_a_server_restart(server: Server, browser: Any) -> None:
    url = f"http://localhost:{server.port}"
    ann = page_of(browser, viewport={"width": 1280, "height": 900})
    bob = page_of(browser, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    for page in (ann, bob):
        page.context.add_init_script(BADGE)
    sign_up_with_password(ann, url, "Ann")
    sign_up_with_password(bob, url, "Bob")

    # Ann creates a room whose turns wait two days for the player
    form = ann.locator("#create-form")
    form.get_by_label("People playing").fill("2")
    form.get_by_label("Time for each turn (empty: no limit)").fill("2")
    form.get_by_label("Unit").select_option("86400")
    form.get_by_label("When the time runs out").select_option("wait")
    form.get_by_role("button", name="Create room").click()
    ann.wait_for_url("**/r/*")
    connected(ann)
    code = ann.locator("#room-code").inner_text()
    assert ann.locator("#turn-policy").inner_text() == "2 days a turn, then the room waits."
    link = ann.locator("#invite-link").inner_text()
    assert link == f"{url}/r/{code}"

    # Bob opens the invite link, joins with his account's name, and Ann starts
    bob.goto(link)
    join = bob.locator("#join-form")
    join.get_by_role("button", name="Join as a player").wait_for()
    assert join.get_by_label("Your name").input_value() == "Bob"
    join.get_by_role("button", name="Join as a player").tap()
    connected(bob)
    ann.locator("#seats").get_by_text("Bob").wait_for()
    ann.get_by_role("button", name="Start the game").click()
    for page in (ann, bob):
        page.locator("#dice .die").first.wait_for()

    # two turns each, then the next player rolls once: the restart comes in the middle of a turn (its dice rolled once)
    for _ in range(4):
        page = turn_of(ann, bob)
        score_turn(page, touch=page is bob)
    player = turn_of(ann, bob)
    waiting = bob if player is ann else ann
    name, other = ("Ann", "Bob") if player is ann else ("Bob", "Ann")
    assert act(player, keep=False, touch=player is bob) == "roll"
    before_version = version(player)
    waiting.wait_for_function(
        "v => Number(document.querySelector('#room').dataset.version) >= v", arg=before_version, timeout=15_000
    )
    before_dice = dice(player)
    before_cards = player.locator("#cards").inner_text()
    assert "left." in player.locator("#turn").inner_text()  # the two days' clock

    # the server stops (every socket closes: both pages say so) and starts again on the same database
    server.stop()
    for page in (ann, bob):
        connected(page, "offline — reconnecting…")
    server.start()

    # both reopen my games: the room is there, with the turn where it was
    seen = {page: frames(page) for page in (ann, bob)}
    for page in (ann, bob):
        page.goto(url + "/")
    game = player.locator("#my-games li.yours")
    game.wait_for()
    assert f"with {other}" in game.inner_text()
    assert "Your turn — round 3 of 13." in game.inner_text()
    line = waiting.locator("#my-games li").filter(has_text=f"with {name}")
    line.wait_for()
    assert f"{name}'s turn — round 3 of 13." in line.inner_text()
    assert "yours" not in (line.get_attribute("class") or "")
    player.wait_for_function("() => document.title.startsWith('(1) your turn')")
    assert player.evaluate("() => window.__badge") == 1  # the installed app's badge says it too
    assert not waiting.title().startswith("(")
    assert waiting.evaluate("() => window.__badge") == 0

    # both open the game: the first state their sockets receive is the one before the restart
    game.get_by_role("button", name="Play").click()
    line.get_by_role("button", name="Open").click()
    for page in (ann, bob):
        page.wait_for_url(f"**/r/{code}")
        connected(page)
        page.wait_for_function(
            "v => Number(document.querySelector('#room').dataset.version) >= v", arg=before_version, timeout=15_000
        )
        state = next(m for m in seen[page] if m.get("type") == "state")["state"]
        assert state["version"] == before_version
        assert state["status"] == "playing"
        assert state["deadline"] is not None
    assert dice(player) == before_dice
    assert player.locator("#cards").inner_text() == before_cards
    assert "Ann (you)" in ann.locator("#seats").inner_text()
    assert "Bob (you)" in bob.locator("#seats").inner_text()
    assert my_turn(player)
    assert not my_turn(waiting)
    assert "left." in player.locator("#turn").inner_text()

    # and they play on: the player finishes the turn, the other plays the next one, which both see
    v = version(waiting)
    score_turn(player, touch=player is bob)
    wait_newer(waiting, v)
    waiting.wait_for_function("() => document.querySelector('#turn').className.includes('yours')", timeout=15_000)
    v = version(player)
    score_turn(waiting, touch=waiting is bob)
    wait_newer(player, v)
    player.locator("#turn").get_by_text("Your turn — round 4 of 13.").wait_for()
    assert ann.errors == bob.errors == []


def test_the_invite_over_plain_http_on_a_phone_without_clipboard_or_share(server: Server, browser: Any) -> None:
    """Outside a secure context a phone has neither the clipboard nor the share sheet: the link is shown (and
    fits), "Copy invite link" says to copy it from there, the share button is not offered, the QR code is."""
    context = browser.new_context(
        bypass_csp=True, viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True
    )
    context.add_init_script(PLAIN_HTTP)
    page = context.new_page()
    page.goto(server.url + "/")
    page.locator("#player-name").fill("Ann")
    page.locator("#create-form").get_by_role("button", name="Create room").click()
    page.wait_for_url("**/r/*")
    connected(page)
    code = page.locator("#room-code").inner_text()
    link = page.locator("#invite-link")
    assert link.is_visible()
    assert link.inner_text() == f"{server.url}/r/{code}"
    box = link.bounding_box()
    assert box is not None
    assert box["x"] + box["width"] <= 360
    assert page.locator("#share-invite").is_hidden()
    page.get_by_role("button", name="Copy the invite link").tap()
    page.locator("#toast").filter(has_text="Copy the link shown next to the button.").wait_for()
    page.locator("#qr-box summary").tap()
    page.wait_for_function("() => document.querySelector('#qr').complete && document.querySelector('#qr').naturalWidth")
