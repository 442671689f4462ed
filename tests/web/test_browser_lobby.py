"""The lobby and the details of the room in Debian's chromium (Playwright): play now against the computer
by keyboard alone, public rooms to join and watch, six seats on a 360 px phone, dice motion and sound,
options in words, disabled controls that say why, the hint applied with one key. Skips without chromium."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import CHROMIUM, Server, axe_problems
from tests.web.test_browser import connected, kept, my_turn, version, wait_newer

if not Path(CHROMIUM).exists():
    pytest.skip(f"{CHROMIUM} is not installed; browser tests skipped.", allow_module_level=True)
pytest.importorskip("playwright.sync_api", reason="playwright is not installed; browser tests skipped.")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(f"sqlite:///{tmp_path / 'rooms.db'}", "--seed", "3", "--computer-delay", "0.05", "--no-scores")
    srv.start()
    yield srv
    srv.stop()


def focused(page: Any) -> str:
    return str(
        page.evaluate("() => document.activeElement && (document.activeElement.id || document.activeElement.tagName)")
    )


def tab_to(page: Any, element_id: str, limit: int = 40) -> None:
    for _ in range(limit):
        if focused(page) == element_id:
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"#{element_id} is not reachable with Tab")


def wait_my_turn(page: Any) -> None:
    page.wait_for_function("() => document.querySelector('#turn').className === 'yours'", timeout=20_000)


def test_play_now_against_the_computer_with_the_keyboard_alone(server: Server, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1024, "height": 800}, bypass_csp=True)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server.url + "/")
    page.locator("#rules-select option").first.wait_for(state="attached")
    tab_to(page, "player-name")
    page.keyboard.type("Kim")
    page.keyboard.press("Tab")
    assert focused(page) == "quick-play"
    page.keyboard.press("Enter")  # one key: a room with a computer, started at once
    page.wait_for_url("**/r/*")
    connected(page)
    page.locator("#dice").wait_for()
    seats = page.locator("#seats").inner_text()
    assert "Kim (you)" in seats
    assert "computer" in seats
    page.locator("#events").get_by_text("The game has started.").wait_for()
    # a few turns by keys: roll, the hint (H) shown on the dice or the card and applied (A), keep, score
    hints = scored = 0
    while scored < 3:
        wait_my_turn(page)
        v = version(page)
        page.locator("body").focus()
        g = page.evaluate(
            "() => [document.querySelectorAll('#dice .die[data-value=\"\"]').length, "
            "document.querySelector('#rolls-left').textContent]"
        )
        if g[0] or "Rolls left" not in g[1]:
            page.keyboard.press("Space")
        elif hints < 2 and g[1].startswith("Rolls left: 2 of"):
            page.keyboard.press("h")
            page.locator("#hint-box li.best").wait_for(timeout=60_000)
            assert page.locator("#dice .die.hinted, #cards td.opt button.hinted").count() >= 1
            best = page.locator("#hint-box li.best").inner_text()
            page.keyboard.press("a")
            hints += 1
            scored += best.startswith("Score")
        else:
            page.keyboard.press("ArrowDown")
            page.keyboard.press("ArrowDown")
            page.keyboard.press("Enter")
            scored += 1
        wait_newer(page, v)
    assert hints == 2
    # chat by keyboard too
    tab_to(page, "chat-text", limit=80)
    page.keyboard.type("gg")
    page.keyboard.press("Enter")
    page.locator("#chat-log").get_by_text("Kim: gg").wait_for()
    assert errors == []


def test_the_lobby_lists_public_rooms_to_join_and_to_watch(server: Server, browser: Any) -> None:
    pia = browser.new_page(viewport={"width": 1280, "height": 820}, bypass_csp=True)
    pia.goto(server.url + "/")
    pia.locator("#player-name").fill("Pia")
    form = pia.locator("#create-form")
    form.get_by_label("Rule set").select_option("yatzy")
    form.get_by_label("List the room in the lobby for anyone to join").check()
    form.get_by_role("button", name="Create room").click()
    pia.wait_for_url("**/r/*")
    connected(pia)

    phone = browser.new_context(viewport={"width": 375, "height": 740}, is_mobile=True, has_touch=True, bypass_csp=True)
    quim = phone.new_page()
    quim.goto(server.url + "/")
    quim.locator("#player-name").fill("Quim")
    quim.locator("#player-name").dispatch_event("change")
    entry = quim.locator("#public-rooms li").filter(has_text="Pia")
    entry.wait_for()
    assert "Open seats: 1 of 2" in entry.inner_text()
    assert axe_problems(quim) == []
    entry.get_by_role("button", name=re.compile("^Join")).tap()
    quim.wait_for_url("**/r/*")
    assert quim.locator("#join-form input").input_value() == "Quim"  # remembered from the lobby
    quim.get_by_role("button", name="Join as a player").tap()
    connected(quim)
    pia.get_by_role("button", name="Start the game").click()
    quim.locator("#dice").wait_for()

    # a third person watches from the lobby, listed by name
    zoe = browser.new_page(viewport={"width": 1280, "height": 820}, bypass_csp=True)
    zoe.goto(server.url + "/")
    zoe.locator("#player-name").fill("Zoe")
    zoe.locator("#player-name").dispatch_event("change")
    watch = zoe.locator("#public-rooms li").filter(has_text="Quim")
    watch.wait_for(timeout=15_000)
    assert "in play" in watch.inner_text()
    watch.get_by_role("button", name=re.compile("^Watch")).click()
    connected(zoe, "watching")
    pia.locator("#spectators").get_by_text("Watching: Zoe").wait_for()
    assert zoe.locator("#chat-form").is_hidden()
    assert zoe.locator("#controls-why").inner_text() == "You are watching this game."
    assert axe_problems(zoe) == []
    phone.close()


def test_six_seats_fit_a_360_px_phone_and_the_card_scrolls_in_its_box(server: Server, browser: Any) -> None:
    context = browser.new_context(
        viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True, bypass_csp=True
    )
    page = context.new_page()
    page.goto(server.url + "/")
    page.locator("#player-name").fill("Ann")
    form = page.locator("#create-form")
    form.get_by_label("People playing").fill("1")
    for _ in range(5):
        page.get_by_role("button", name="Add a computer").tap()
    for select in page.locator('#computer-list select[name="computer"]').all():
        select.select_option("greedy")
    form.get_by_role("button", name="Create room").tap()
    page.wait_for_url("**/r/*")
    page.get_by_role("button", name="Start the game").tap()
    page.locator("#dice").wait_for()
    wait_my_turn(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    box = page.locator("#card-box")
    assert box.evaluate("b => b.scrollWidth > b.clientWidth")  # six columns scroll sideways inside the box
    name = page.locator("#cards tbody th").first
    before = name.bounding_box()
    box.evaluate("b => { b.scrollLeft = b.scrollWidth; }")
    after = name.bounding_box()
    assert before is not None
    assert after is not None
    assert after["x"] == pytest.approx(before["x"], abs=1)  # the box names stay in view
    roll = page.locator("#roll").bounding_box()
    assert roll is not None
    assert roll["y"] > 740 * 0.6
    assert roll["x"] + roll["width"] <= 360
    assert axe_problems(page) == []
    context.close()


def start_solo(page: Any, url: str, name: str = "Solo", rules: str = "yahtzee") -> None:
    page.goto(url + "/")
    page.locator("#player-name").fill(name)
    form = page.locator("#create-form")
    form.get_by_label("Rule set").select_option(rules)
    form.get_by_label("People playing").fill("1")
    form.get_by_role("button", name="Create room").click()
    page.get_by_role("button", name="Start the game").click()
    page.get_by_role("button", name="Roll", exact=True).wait_for()


def test_dice_motion_sound_words_reasons_and_the_hint(server: Server, browser: Any) -> None:
    # rule-set options in words, each choice explained in a sentence
    page = browser.new_page(viewport={"width": 1280, "height": 820}, bypass_csp=True)
    page.goto(server.url + "/")
    joker = page.locator("#create-form").get_by_label("Joker rule")
    joker.locator("option").first.wait_for(state="attached")  # the lobby fills its options once loaded
    assert joker.locator("option").all_inner_texts() == ["Official Joker", "Free Joker", "No Joker"]
    help_id = joker.get_attribute("aria-describedby")
    assert page.locator(f"#{help_id}").inner_text().startswith("An extra Yahtzee must go in its upper box")
    joker.select_option("none")
    assert (
        page.locator(f"#{help_id}").inner_text()
        == "An extra Yahtzee scores only what the dice are worth in the box chosen."
    )
    # the sound is off until turned on, and remembered
    sound = page.get_by_role("button", name="Sound")
    assert sound.get_attribute("aria-pressed") == "false"
    sound.click()
    assert sound.get_attribute("aria-pressed") == "true"
    page.reload()
    assert page.get_by_role("button", name="Sound").get_attribute("aria-pressed") == "true"

    start_solo(page, server.url)
    page.get_by_role("button", name="Roll", exact=True).click()
    page.wait_for_function("[...document.querySelectorAll('#dice .die')].every(d => d.dataset.value)")
    assert page.locator("#dice .die.rolling").count() == 5
    assert page.locator("#dice .die .face").first.evaluate("f => getComputedStyle(f).animationName") == "tumble"
    # boxes that would score 0 are dimmed, still playable; each open box says what it scores
    zero = page.locator("#cards td.opt button.zero")
    assert zero.count() >= 1
    assert zero.first.is_enabled()
    assert (zero.first.get_attribute("aria-label") or "").startswith("Score 0 in ")
    # nothing is chosen until the arrows are used (no box looks recommended)
    assert page.locator("#cards td.opt button.selected").count() == 0
    # the hint marks what to keep or where to score
    page.get_by_role("button", name="Hint").click()
    page.locator("#hint-box li.best").wait_for(timeout=60_000)
    assert page.locator("#dice .die.hinted, #cards td.opt button.hinted").count() >= 1
    # no rolls left: the roll button is disabled and the page says why
    for _ in range(2):
        v = version(page)
        page.get_by_role("button", name=re.compile("^Roll")).click()
        wait_newer(page, v)
    assert page.locator("#roll").is_disabled()
    assert page.locator("#controls-why").inner_text() == "No rolls left: choose a box on your card."
    assert "controls-why" in (page.locator("#roll").get_attribute("aria-describedby") or "")
    assert page.locator("#hint").get_attribute("aria-describedby") == "controls-why"

    # under prefers-reduced-motion the dice land without a tumble
    still = browser.new_context(viewport={"width": 1280, "height": 820}, reduced_motion="reduce", bypass_csp=True)
    calm = still.new_page()
    start_solo(calm, server.url, "Calm", "yacht")
    calm.get_by_role("button", name="Roll", exact=True).click()
    calm.wait_for_function("[...document.querySelectorAll('#dice .die')].every(d => d.dataset.value)")
    assert calm.locator("#dice .die .face").first.evaluate("f => getComputedStyle(f).animationName") == "none"
    # kept dice are set apart (raised and marked) and announced
    calm.locator("body").focus()
    calm.keyboard.press("3")
    die = calm.locator("#dice .die").nth(2)
    assert die.get_attribute("aria-pressed") == "true"
    assert die.inner_text().strip().lower() == "kept"
    assert die.evaluate("d => getComputedStyle(d).transform") != "none"
    calm.wait_for_function("() => document.querySelector('#announce').textContent === 'Die 3 kept.'")
    assert kept(calm) == [2]
    still.close()


def test_accessible_names_and_escaped_text(server: Server, browser: Any) -> None:
    page = browser.new_page(bypass_csp=True)
    start_solo(page, server.url, "<i>Solo</i>", "yacht")
    assert my_turn(page)
    page.get_by_role("button", name="Roll", exact=True).click()
    for i in range(1, 6):  # wait for the roll to land: "Die 1: not rolled" would also match "Die 1:"
        page.get_by_role("button", name=re.compile(rf"^Die {i}: [1-6]")).wait_for()
    labels = [page.get_by_role("button", name=f"Die {i}:").get_attribute("aria-label") for i in range(1, 6)]
    assert all(label and label[7] in "123456" for label in labels)
    score = page.get_by_role("button", name="Score").first
    assert (score.get_attribute("aria-label") or "").startswith("Score ")
    page.get_by_role("button", name="Copy the invite link").wait_for()
    assert "<i>Solo</i> (you)" in page.locator("#seats").inner_text()  # shown as text
    assert page.locator("#seats i, #cards i").count() == 0  # never as markup
    page.get_by_label("Message").fill("<img src=x onerror=alert(1)> hello")
    page.get_by_role("button", name="Send").click()
    page.locator("#chat-log").get_by_text("hello").wait_for()
    assert page.locator("#chat-log img").count() == 0
    # the live region tells what happened
    assert page.locator("#announce[aria-live='polite']").count() == 1
    assert "Space" in (page.locator("footer").text_content() or "")
