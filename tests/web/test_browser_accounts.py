"""Accounts in Debian's chromium (Playwright): sign up and in with a password and with a passkey (CDP's
virtual authenticator), my games with the player's turn first on another device that enters its seat
without the seat token, the tab title and a background notification when the turn comes, and the invite
link, share button and QR code on a phone. Skips without chromium."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import CHROMIUM, Server, axe_problems
from tests.web.test_browser import connected

if not Path(CHROMIUM).exists():
    pytest.skip(f"{CHROMIUM} is not installed; browser tests skipped.", allow_module_level=True)
pytest.importorskip("playwright.sync_api", reason="playwright is not installed; browser tests skipped.")

PASSWORD = "correct horse battery"
NOTIFICATIONS = """
Object.defineProperty(document, "hidden", { get: () => Boolean(window.__hidden) });
window.__notes = [];
window.Notification = class {
  constructor(title, o) { window.__notes.push({ title, body: o.body }); }
  static get permission() { return "granted"; }
  static requestPermission() { return Promise.resolve("granted"); }
  addEventListener() {}
  close() {}
};
"""
"""The page is "in the background" (document.hidden) and its notifications are recorded (Notification API)."""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(f"sqlite:///{tmp_path / 'rooms.db'}", "--seed", "3", "--computer-delay", "0.05", "--no-scores")
    srv.start()
    yield srv
    srv.stop()


def site(server: Server) -> str:
    """``localhost``: a secure context and a valid WebAuthn relying party id (an IP address is not one)."""
    return f"http://localhost:{server.port}"


def page_of(browser: Any, **context: Any) -> Any:
    page = browser.new_context(bypass_csp=True, **context).new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    return page


def signed_in(page: Any, name: str) -> None:
    page.locator("#account-name").filter(has_text=f"Signed in as {name}.").wait_for(timeout=15_000)


def sign_up_with_password(page: Any, url: str, name: str) -> None:
    page.goto(url + "/")
    page.locator("#signup-box summary").click()
    form = page.locator("#signup-form")
    form.get_by_label("Name").fill(name)
    form.get_by_label("Password (8 characters or more; not needed with a passkey)").fill(PASSWORD)
    form.get_by_role("button", name="Create account").click()
    signed_in(page, name)


def test_sign_up_play_sign_out_and_in_with_a_password(server: Server, browser: Any) -> None:
    url = site(server)
    page = page_of(browser, viewport={"width": 1280, "height": 900})
    sign_up_with_password(page, url, "Ann")
    assert page.evaluate("() => document.cookie") == ""  # the session cookie is HttpOnly: no script reads it
    assert page.locator("#games-panel").is_visible()
    assert page.locator("#player-name").input_value() == "Ann"
    page.locator("#quick-play").click()
    page.wait_for_url("**/r/*")
    connected(page)
    code = page.locator("#room-code").inner_text()
    page.wait_for_function("() => document.title.startsWith('(1) your turn')", timeout=20_000)
    page.goto(url + "/")
    game = page.locator("#my-games li").first
    game.wait_for()
    assert "Your turn" in game.inner_text()
    assert "with Computer 1" in game.inner_text()
    page.wait_for_function("() => document.title === '(1) your turn — fivedice'")
    page.locator("#signout").click()
    page.locator("#signed-out").wait_for()
    assert page.locator("#games-panel").is_hidden()
    form = page.locator("#signin-form")
    form.get_by_label("Name").fill("ann")
    form.get_by_label("Password").fill("not the password")
    form.get_by_role("button", name="Sign in", exact=True).click()
    page.locator("#toast").filter(has_text="That name and password do not match an account.").wait_for()
    form.get_by_label("Password").fill(PASSWORD)
    form.get_by_role("button", name="Sign in", exact=True).click()
    signed_in(page, "Ann")
    page.locator("#my-games li").first.wait_for()
    page.locator("#account-settings summary").click()  # every form of the account open
    assert axe_problems(page) == []
    page.locator("#my-games li").first.get_by_role("button", name="Play").click()
    page.wait_for_url(f"**/r/{code}")
    connected(page)
    assert "Ann (you)" in page.locator("#seats").inner_text()
    assert page.errors == []


def test_another_device_opens_its_game_without_the_seat_token(server: Server, browser: Any) -> None:
    url = site(server)
    laptop = page_of(browser, viewport={"width": 1280, "height": 900})
    sign_up_with_password(laptop, url, "Bea")
    laptop.locator("#quick-play").click()
    laptop.wait_for_url("**/r/*")
    connected(laptop)
    phone = page_of(browser, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    phone.goto(url + "/")
    form = phone.locator("#signin-form")
    form.get_by_label("Name").fill("Bea")
    form.get_by_label("Password").fill(PASSWORD)
    form.get_by_role("button", name="Sign in", exact=True).click()
    signed_in(phone, "Bea")
    assert phone.evaluate("() => Object.keys(localStorage).filter(k => k.startsWith('fivedice:token:'))") == []
    phone.locator("#my-games li").first.get_by_role("button", name="Play").tap()
    phone.wait_for_url("**/r/*")
    connected(phone)  # a player, not a spectator: the account's seat
    assert "Bea (you)" in phone.locator("#seats").inner_text()
    assert phone.locator("#dock").is_visible()
    assert axe_problems(phone) == []
    assert laptop.errors == phone.errors == []


def test_sign_up_and_in_with_a_passkey(server: Server, browser: Any) -> None:
    url = site(server)
    page = page_of(browser, viewport={"width": 1024, "height": 900})
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    added = cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
                "automaticPresenceSimulation": True,
            }
        },
    )
    page.goto(url + "/")
    page.locator("#signup-box summary").click()
    page.locator("#signup-form").get_by_label("Name").fill("Cleo")
    page.get_by_role("button", name="Create with a passkey").click()
    signed_in(page, "Cleo")
    credentials = cdp.send("WebAuthn.getCredentials", {"authenticatorId": added["authenticatorId"]})["credentials"]
    assert len(credentials) == 1
    assert credentials[0]["isResidentCredential"] is True
    assert credentials[0]["rpId"] == "localhost"
    page.locator("#signout").click()
    page.locator("#signed-out").wait_for()
    page.get_by_role("button", name="Sign in with a passkey").click()
    signed_in(page, "Cleo")
    assert page.locator("#push-toggle").is_visible()
    # the passkey's counter moved on: the server checked a real assertion
    after = cdp.send("WebAuthn.getCredentials", {"authenticatorId": added["authenticatorId"]})["credentials"]
    assert after[0]["signCount"] > credentials[0]["signCount"]
    assert page.errors == []


def test_the_turn_shows_in_the_title_and_as_a_notification_in_the_background(server: Server, browser: Any) -> None:
    url = site(server)
    context = browser.new_context(bypass_csp=True, viewport={"width": 1024, "height": 800})
    context.add_init_script(NOTIFICATIONS)
    page = context.new_page()
    sign_up_with_password(page, url, "Dan")
    page.locator("#quick-play").click()
    page.wait_for_url("**/r/*")
    connected(page)
    page.wait_for_function("() => document.title.startsWith('(1) your turn')", timeout=20_000)
    page.evaluate("() => { window.__hidden = true; }")
    page.keyboard.press("Space")  # roll
    page.wait_for_function("() => document.querySelector('#rolls-left').textContent.includes('2')", timeout=10_000)
    page.locator("#cards td.opt button").first.click()  # score: the computer plays, then it is Dan's turn again
    page.wait_for_function("() => window.__notes.length > 0", timeout=20_000)
    note = page.evaluate("() => window.__notes[0]")
    assert note["title"] == "Your turn"
    assert note["body"].startswith("Your turn — round 2 of 13.")


def test_the_invite_on_a_phone_link_qr_code_and_share(server: Server, browser: Any) -> None:
    url = site(server)
    context = browser.new_context(
        bypass_csp=True, viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True
    )
    context.add_init_script("navigator.share = (data) => { window.__shared = data; return Promise.resolve(); };")
    page = context.new_page()
    page.goto(url + "/")
    page.locator("#player-name").fill("Eve")
    form = page.locator("#create-form")
    form.get_by_role("button", name="Create room").click()
    page.wait_for_url("**/r/*")
    connected(page)
    code = page.locator("#room-code").inner_text()
    link = page.locator("#invite-link")
    assert link.is_visible()  # always shown, phones included
    assert link.inner_text() == f"{url}/r/{code}"
    page.get_by_role("button", name="Share the invite").tap()
    page.wait_for_function("() => window.__shared !== undefined")
    shared = page.evaluate("() => window.__shared")
    assert shared["url"] == f"{url}/r/{code}"
    page.locator("#qr-box summary").tap()
    qr = page.get_by_role("img", name="QR code of the invite link")
    qr.wait_for()
    page.wait_for_function(
        "() => document.querySelector('#qr').complete && document.querySelector('#qr').naturalWidth > 0"
    )
    box = qr.bounding_box()
    assert box is not None
    assert box["width"] >= 150
    assert box["x"] + box["width"] <= 360
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 360  # nothing sticks out sideways
    assert axe_problems(page) == []


def test_a_turn_in_another_game_notifies_the_lobby_in_the_background(server: Server, browser: Any) -> None:
    from tests.web.test_accounts_processes import Player, play_turn

    url = site(server)
    context = browser.new_context(bypass_csp=True, viewport={"width": 1024, "height": 800})
    context.add_init_script(NOTIFICATIONS)
    page = context.new_page()
    sign_up_with_password(page, url, "Fay")
    bob = Player()
    assert bob.call(server, "POST", "/api/accounts", json={"name": "Gus", "password": PASSWORD}).status_code == 201
    made = bob.call(server, "POST", "/api/rooms", json={"name": "Gus", "humans": 2, "first": "host"}).json()
    joined = page.request.post(f"{url}/api/rooms/{made['code']}/join", data={"name": "Fay"}, headers={"origin": url})
    assert joined.ok
    page.reload()
    signed_in(page, "Fay")
    page.locator("#my-games li").filter(has_text="Gus").wait_for()
    page.evaluate("() => { window.__hidden = true; }")  # Fay's lobby is in a background tab
    host = bob.socket(server, made["code"])
    version = host.state["version"]
    host.send(type="start")
    host.version(version)
    play_turn(host)  # Gus's turn is over: Fay's turn, while her lobby waits in the background
    host.close()
    page.wait_for_function("() => window.__notes.length > 0", timeout=30_000)
    note = page.evaluate("() => window.__notes[0]")
    assert note["title"] == "Your turn"
    assert note["body"] == "Yahtzee with Gus. Your turn — round 1 of 13."
    page.wait_for_function("() => document.title === '(1) your turn — fivedice'")


def test_a_pushed_turn_is_shown_by_the_service_worker(tmp_path: Path, browser: Any) -> None:
    """The server's push message, as the loopback push service decrypted it, handed to the page's service
    worker (CDP's ServiceWorker.deliverPushMessage stands in for the browser's push service), which shows it."""
    import json

    from tests.web.pushservice import PushService
    from tests.web.test_accounts_processes import Player, play_turn

    with PushService() as pushes:
        server = Server(f"sqlite:///{tmp_path / 'rooms.db'}", "--no-scores", "--push-loopback").start()
        try:
            url = site(server)
            context = browser.new_context(bypass_csp=True)
            context.grant_permissions(["notifications"], origin=url)
            page = context.new_page()
            cdp = context.new_cdp_session(page)
            registrations: list[dict[str, Any]] = []
            cdp.on("ServiceWorker.workerRegistrationUpdated", lambda e: registrations.extend(e["registrations"]))
            cdp.send("ServiceWorker.enable")
            sign_up_with_password(page, url, "Hal")
            page.evaluate("async () => { await navigator.serviceWorker.ready; }")
            device = pushes.device("hal")
            for method, path, body in (
                ("PUT", "/api/me/settings", {"push": True}),
                ("POST", "/api/me/push", device.subscription(pushes.base)),
            ):
                answer = page.request.fetch(url + path, method=method, data=body, headers={"origin": url})
                assert answer.ok, answer.text()
            gus = Player()
            assert (
                gus.call(server, "POST", "/api/accounts", json={"name": "Gus", "password": PASSWORD}).status_code == 201
            )
            made = gus.call(server, "POST", "/api/rooms", json={"name": "Gus", "humans": 2, "first": "host"}).json()
            assert page.request.post(
                f"{url}/api/rooms/{made['code']}/join", data={"name": "Hal"}, headers={"origin": url}
            ).ok
            host = gus.socket(server, made["code"])
            version = host.state["version"]
            host.send(type="start")
            host.version(version)
            play_turn(host)  # Hal's turn: his page shows the lobby, not the room, so the server pushes
            host.close()
            (delivery,) = pushes.wait(1)
            (registration,) = {r["registrationId"] for r in registrations if not r["isDeleted"]}
            cdp.send(
                "ServiceWorker.deliverPushMessage",
                {"origin": url + "/", "registrationId": registration, "data": json.dumps(delivery.payload)},
            )
            page.wait_for_function(
                "async () => (await (await navigator.serviceWorker.ready).getNotifications()).length > 0"
            )
            shown = page.evaluate(
                "async () => (await (await navigator.serviceWorker.ready).getNotifications())"
                ".map(n => ({title: n.title, body: n.body, tag: n.tag, url: n.data.url}))"
            )
            assert shown == [
                {
                    "title": "Your turn in Yahtzee",
                    "body": f"Round 1 of 13 against Gus: room {made['code']} waits for you.",
                    "tag": f"turn:{made['code']}",
                    "url": f"/r/{made['code']}",
                }
            ]
        finally:
            server.stop()
