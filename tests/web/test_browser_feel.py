"""The feel of the browser game in Debian's chromium (Playwright): celebrations (in motion and still, with a
fanfare when the sound is on), the "your turn" chime, dice that show faces as they tumble, the levels in
words and How to play in the lobby, a language switch that rewrites the lobby, an offline reload that
says so, and the replay's ranking, scored dice and autoplay. Skips without chromium."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest

from tests.web.conftest import CHROMIUM, RemoteConn, Server, axe_problems, play_remote
from tests.web.test_browser import version, wait_newer
from tests.web.test_browser_looks import measure

if not Path(CHROMIUM).exists():
    pytest.skip(f"{CHROMIUM} is not installed; browser tests skipped.", allow_module_level=True)
pytest.importorskip("playwright.sync_api", reason="playwright is not installed; browser tests skipped.")

# Counts the tones the page plays (each an oscillator of the Web Audio API).
COUNT_TONES = """
window.__tones = 0;
const made = AudioContext.prototype.createOscillator;
AudioContext.prototype.createOscillator = function () { window.__tones++; return made.call(this); };
"""

# Two snapshots of one game, before and after, for celebrate.js's moments(): seat 0 is the player.
MOMENTS = """async () => {
  const { moments } = await import('/static/celebrate.js');
  const labels = ['Aces', 'Twos', 'Threes', 'Fours', 'Fives', 'Sixes', 'Yahtzee', 'Chance'];
  const rules = { boxes: labels.map((label) => ({ label })) };
  const card = (entries, more = {}) => ({ entries, upper_bonus: 0, yahtzee_bonus: 0, ...more });
  const open = () => [3, 6, 9, 12, 15, null, null, null];
  const cards = () => [[card(open())], [card(open())]];
  const game = (more) => ({ dice: null, current: 0, totals: [100, 90], cards: cards(), ...more });
  const room = (g, more = {}) => ({ game_no: 1, status: 'playing', rules, seats: [{}, {}], game: g, ...more });
  const cases = {};
  let before = room(game({ dice: [4, 4, 4, 4, 4] }));
  let after = room(game({ current: 1, cards: [[card([3, 6, 9, 12, 15, null, 50, null])], [card(open())]] }));
  cases.yahtzee = moments(before, after, 0);
  cases.theirs = moments(room(game({ dice: [4, 4, 4, 4, 4], current: 1 })), after, 1);
  before = room(game({ dice: [6, 6, 6, 2, 3] }));
  const full = card([3, 6, 9, 12, 15, 18, null, null], { upper_bonus: 35 });
  after = room(game({ current: 1, cards: [[full], [card(open())]] }));
  cases.bonus = moments(before, after, 0);
  before = room(game({ totals: [195] }), { best: 200, seats: [{}] });
  after = room(game({ totals: [210] }), { best: 200, seats: [{}] });
  cases.best = moments(before, after, 0);
  before = room(game({}));
  after = room(game({ standings: [{ seat: 0, place: 1 }, { seat: 1, place: 2 }] }), { status: 'over' });
  cases.win = moments(before, after, 0);
  cases.lost = moments(before, after, 1);
  return cases;
}"""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(f"sqlite:///{tmp_path / 'rooms.db'}", "--seed", "7", "--computer-delay", "0.05", "--no-scores")
    srv.start()
    yield srv
    srv.stop()


def test_celebrations_in_motion_and_still_with_a_fanfare_when_the_sound_is_on(server: Server, browser: Any) -> None:
    context = browser.new_context(bypass_csp=True)
    context.add_init_script(COUNT_TONES)
    page = context.new_page()
    page.goto(server.url + "/")
    page.locator("#rules-select option").first.wait_for(state="attached")
    cases = page.evaluate(MOMENTS)
    assert cases == {
        "yahtzee": [["yahtzee", "Yahtzee!"]],
        "theirs": [],  # another player's Yahtzee is theirs to celebrate
        "bonus": [["bonus", "Upper bonus: +35!"]],
        "best": [["best", "New personal best: 210!"]],
        "win": [["win", "You win!"]],
        "lost": [],
    }
    show = "async ([k, t]) => (await import('/static/celebrate.js')).celebrate(k, t)"
    page.evaluate(show, ["win", "You win!"])
    banner = page.locator("#celebration .banner")
    assert banner.inner_text() == "You win!"
    assert "pop" in banner.evaluate("b => getComputedStyle(b).animationName")
    assert page.locator("#celebration .confetto").count() == 12
    assert page.locator("#celebration .confetto").first.is_visible()
    assert page.evaluate("window.__tones") == 0  # the sound is off: no fanfare
    page.get_by_role("button", name="Sound").click()
    page.evaluate(show, ["yahtzee", "Yahtzee!"])
    assert page.evaluate("window.__tones") == 5  # a five-note fanfare
    page.locator("#celebration").wait_for(state="hidden")  # and the banner goes by itself
    context.close()

    still = browser.new_context(reduced_motion="reduce", bypass_csp=True)
    calm = still.new_page()
    calm.goto(server.url + "/")
    calm.locator("#rules-select option").first.wait_for(state="attached")
    calm.evaluate(show, ["bonus", "Upper bonus: +35!"])
    banner = calm.locator("#celebration .banner")
    assert banner.is_visible()
    assert "pop" not in banner.evaluate("b => getComputedStyle(b).animationName")  # no motion, a fade only
    assert not calm.locator("#celebration .confetto").first.is_visible()
    still.close()


def test_the_turn_chime_and_dice_that_show_faces_as_they_tumble(server: Server, browser: Any) -> None:
    context = browser.new_context(bypass_csp=True)
    context.add_init_script(COUNT_TONES)
    page = context.new_page()
    made = httpx.post(server.url + "/api/rooms", json={"name": "Cy", "rules": "yacht", "humans": 1}).json()
    page.goto(server.url + "/")
    page.evaluate("([c, t]) => localStorage.setItem(`fivedice:token:${c}`, t)", [made["code"], made["token"]])
    page.goto(server.url + made["link"])
    chime = page.get_by_label("Chime when my turn comes")
    assert not chime.is_checked()
    chime.check()
    assert page.evaluate("window.__tones") == 2  # a sample of the chime, two notes
    page.reload()
    assert page.get_by_label("Chime when my turn comes").is_checked()  # remembered
    page.get_by_role("button", name="Start the game").click()
    page.get_by_role("button", name="Roll", exact=True).wait_for()
    # the dice show a few random faces while they tumble, then the faces the server rolled
    page.evaluate(
        """() => { window.__redraws = 0;
        new MutationObserver((ms) => { window.__redraws += ms.length; })
          .observe(document.querySelector('#dice'), { childList: true, subtree: true }); }"""
    )
    v = version(page)
    page.get_by_role("button", name="Roll", exact=True).click()
    wait_newer(page, v)
    page.wait_for_function("() => window.__redraws > 20")
    landed = """() => [...document.querySelectorAll('#dice .die')].every((d) =>
        d.dataset.value && d.querySelectorAll('.pip').length === Number(d.dataset.value))"""
    page.wait_for_function(landed)
    assert page.locator("#dice .die .face").first.evaluate("f => getComputedStyle(f).animationName") == "tumble"
    context.close()


def test_levels_in_words_and_how_to_play_in_the_lobby(server: Server, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 390, "height": 844}, bypass_csp=True)
    page.goto(server.url + "/")
    page.locator("#rules-select option").first.wait_for(state="attached")
    page.get_by_role("button", name="Add a computer").click()
    level = page.locator('#computer-list select[name="computer"]')
    words = level.locator("option").all_inner_texts()
    assert words[:3] == ["Random", "Easy", "Casual"]
    assert "Perfect" in words
    assert all(":" not in w for w in words)  # no developer text in the list
    assert level.locator("option:checked").inner_text() == "Medium"
    about = page.locator("#computer-list .level-about")
    assert not about.locator(".level-help").is_visible()  # the detail is one tap away
    about.locator("summary").click()
    levels = httpx.get(server.url + "/api/rules").json()["levels"]
    assert about.locator(".level-help").inner_text() == levels["medium"]
    level.select_option("tali")
    assert about.locator(".level-help").inner_text() == levels["tali"]

    page.locator("#create-form").get_by_label("Rule set").select_option("yatzy")
    page.get_by_role("button", name="How to play").click()
    dialog = page.get_by_role("dialog")
    dialog.wait_for()
    assert dialog.get_by_role("heading", level=2).inner_text() == "How to play Scandinavian Yatzy"
    assert dialog.locator(".how-boxes tbody tr").count() == 15
    row = dialog.locator(".how-boxes tr").filter(has_text="Full House")
    assert row.locator("td").inner_text() == "three of one face and two of another; scores sum of all dice"
    assert "The game ends after 15 rounds; the highest total wins." in dialog.inner_text()
    assert "Upper boxes totalling 63 or more earn a bonus of 50." in dialog.inner_text()
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        assert axe_problems(page) == [], scheme
    dialog.get_by_role("button", name="Close").click()
    dialog.wait_for(state="hidden")


def test_a_language_switch_rewrites_the_lobby_and_the_seats(server: Server, browser: Any) -> None:
    page = browser.new_page(bypass_csp=True)
    page.goto(server.url + "/")
    page.locator("#rules-select option").first.wait_for(state="attached")
    page.get_by_role("button", name="Add a computer").click()
    page.locator("#daily-board li").first.wait_for()
    english = (page.locator("#rules-select option").all_inner_texts(), page.locator("#daily-board").inner_text())
    page.locator("#language").select_option("it")
    page.wait_for_function("() => document.querySelector('#computer-list option:checked').textContent === 'Medio'")
    assert page.locator("#computer-list summary").inner_text() == "Informazioni sul livello"
    page.wait_for_function(
        "t => document.querySelector('#daily-board').innerText !== t", arg=english[1]
    )  # today's leaderboard lines anew
    italian = page.locator("#rules-select option").all_inner_texts()
    assert italian != english[0]  # the rule sets' names in the new language
    assert "Yatzy scandinavo" in italian
    # in a room: the computers by their level in Italian, the card's column titles too
    page.locator("#player-name").fill("Ada")
    page.locator("#quick-play").click()
    page.wait_for_url("**/r/*")
    page.locator("#seats li").nth(1).wait_for()
    assert page.locator("#seats .seat-name").nth(1).inner_text() == "Computer Medio"
    page.locator("#language").select_option("en")
    page.wait_for_function("() => document.querySelectorAll('#seats .seat-name')[1].textContent === 'Medium computer'")


def test_an_offline_reload_says_the_player_is_offline(server: Server, browser: Any) -> None:
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    toasts: list[str] = []
    page.on("console", lambda m: None)
    page.goto(server.url + "/")
    page.locator("#rules-select option").first.wait_for(state="attached")
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")  # the app's files are cached
    page.reload()
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    context.set_offline(True)
    page.reload()
    note = page.locator("#offline-note")
    note.wait_for()
    assert note.inner_text().startswith("You are offline")
    toasts.append(page.locator("#toast").inner_text())
    assert "Failed to fetch" not in toasts[0]
    assert not page.locator("#no-rooms").is_visible()  # not "no public room is open": nobody knows
    assert not page.locator("#rules-select").is_visible()
    assert page.locator("#connection").inner_text() == "offline"
    context.set_offline(False)  # back online: the lobby comes back by itself
    note.wait_for(state="hidden")
    page.locator("#rules-select option").first.wait_for(state="attached")
    assert page.locator("#quick-play").is_visible()
    context.close()


def test_the_replay_ranks_once_shows_scored_dice_and_plays_itself(server: Server, browser: Any) -> None:
    made = httpx.post(server.url + "/api/rooms", json={"name": "Ann", "rules": "yacht", "humans": 1}).json()
    conn = RemoteConn(server.ws, made["code"], made["token"])
    conn.send(type="start")
    conn.version(conn.state["version"])
    play_remote({0: conn})
    conn.close()
    link = httpx.post(f"{server.url}/api/rooms/{made['code']}/replay?game=1").json()["link"]
    page = browser.new_page(bypass_csp=True)
    # the end screen (ranking, analysis) passes axe-core in both schemes
    page.goto(server.url + "/")
    page.evaluate("([c, t]) => localStorage.setItem(`fivedice:token:${c}`, t)", [made["code"], made["token"]])
    page.goto(server.url + made["link"])
    page.locator("#over").wait_for()
    page.locator("#analysis h3, #analysis p:not(.muted)").first.wait_for(timeout=120_000)
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        assert axe_problems(page) == [], scheme
    page.goto(server.url + link)
    page.locator("#replay[data-ready]").wait_for()
    # a frame after a score shows the dice that were scored
    page.locator("body").press("ArrowRight")
    for _ in range(40):
        if re.search(r"scores \d+ in", page.locator("#replay-event").inner_text()):
            break
        page.locator("body").press("ArrowRight")
    assert page.locator("#replay-dice .die.scored").count() == 5
    assert (page.locator("#replay-dice").get_attribute("aria-label") or "").startswith("Dice scored: ")
    # the ranking reads "1. Ann — N points", its number once
    page.get_by_role("button", name="Last move").click()
    ranking = page.locator("#replay-ranking")
    assert re.fullmatch(r"1\. Ann — \d+ points", ranking.locator("li").inner_text())
    assert ranking.evaluate("o => getComputedStyle(o).listStyleType") == "none"
    # autoplay: from the start, a move after another, until the button stops it
    page.get_by_role("button", name="First move").click()
    autoplay = page.get_by_role("button", name="Autoplay")
    autoplay.click()
    assert autoplay.get_attribute("aria-pressed") == "true"
    page.wait_for_function("() => document.querySelector('#step').value === '2'")
    autoplay.click()
    assert autoplay.get_attribute("aria-pressed") == "false"
    stopped = page.locator("#step").input_value()
    page.get_by_role("button", name="Next move").click()
    assert int(page.locator("#step").input_value()) == int(stopped) + 1
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        assert axe_problems(page) == [], scheme
    for width, height in ((390, 844), (360, 740), (1366, 768)):
        page.set_viewport_size({"width": width, "height": height})
        assert measure(page, f"replay {width}", width) == []
