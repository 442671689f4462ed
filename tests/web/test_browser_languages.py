"""The browser client in other languages (Debian's chromium through Playwright): a game started in Italian
(from the browser's Accept-Language), switched to Croatian mid-game with the state untouched, remembered."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.web.conftest import Server
from tests.web.test_browser import version, wait_newer


@pytest.fixture
def server(tmp_path: Any) -> Iterator[Server]:
    srv = Server(f"sqlite:///{tmp_path / 'rooms.db'}", "--seed", "5", "--computer-delay", "0.05", "--no-scores")
    srv.start()
    yield srv
    srv.stop()


def test_a_game_in_italian_switched_to_croatian_mid_game(server: Server, browser: Any) -> None:
    context = browser.new_context(locale="it-IT", viewport={"width": 1100, "height": 860}, bypass_csp=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server.url + "/")
    # the lobby in Italian, from the browser's language
    page.wait_for_function("document.documentElement.lang === 'it'")
    assert page.locator("#language").input_value() == "it"
    page.locator("#lobby").get_by_label("Il tuo nome").fill("Ann")
    form = page.locator("#create-form")
    form.get_by_label("Persone che giocano").fill("1")
    page.get_by_role("button", name="Aggiungi un computer").click()
    assert page.locator("#rules-description").inner_text().startswith("Yahtzee: 13 caselle")
    # every option in words, each choice explained in a sentence, in Italian
    assert form.get_by_label("Regola del Joker").locator("option").first.inner_text() == "Joker ufficiale"
    page.locator('#computer-list select[name="computer"]').select_option("greedy")
    form.get_by_role("button", name="Crea la stanza").click()
    page.wait_for_url("**/r/*")
    page.wait_for_function("document.querySelector('#connection').textContent === 'connesso'")
    page.get_by_role("button", name="Avvia la partita").click()
    page.locator("#dice").wait_for()

    # play until it is Ann's turn with dice to keep (the roll-off and the computer come first)
    for _ in range(200):
        g = page.evaluate("() => document.querySelector('#turn').className")
        rolls_left = page.locator("#rolls-left").inner_text()
        if g == "yours" and rolls_left.startswith("Lanci rimasti: 2"):
            break
        if g == "yours":
            v = version(page)
            page.locator("#roll").click()
            wait_newer(page, v)
        else:
            page.wait_for_timeout(50)
    assert page.locator("#rolls-left").inner_text() == "Lanci rimasti: 2 su 3"
    cards = page.locator("#cards").inner_text()
    for word in ("Tris", "Scala piccola", "Scala grande", "Totale"):
        assert word in cards
    assert page.locator("#turn").inner_text().startswith("Tocca a te — turno 1 di 13.")
    assert page.locator("footer").inner_text().startswith("Tasti:")

    # keep two dice, then switch language with the selector: same game, same kept dice, no reload
    page.locator("body").focus()
    page.keyboard.press("1")
    page.keyboard.press("2")
    page.evaluate("() => { window.sameDocument = true; }")
    before = {
        "version": version(page),
        "dice": [d.get_attribute("data-value") for d in page.locator("#dice .die").all()],
        "kept": page.locator("#dice .die[aria-pressed='true']").count(),
        "numbers": page.locator("#cards td").all_inner_texts(),
        "events": page.locator("#events li").count(),
    }
    assert before["kept"] == 2
    assert page.locator("#roll").inner_text() == "Lancia gli altri 3"
    page.locator("#language").select_option("hr")
    page.wait_for_function("document.documentElement.lang === 'hr'")
    after = {
        "version": version(page),
        "dice": [d.get_attribute("data-value") for d in page.locator("#dice .die").all()],
        "kept": page.locator("#dice .die[aria-pressed='true']").count(),
        "numbers": page.locator("#cards td").all_inner_texts(),
        "events": page.locator("#events li").count(),
    }
    assert after == before
    assert page.evaluate("() => window.sameDocument === true")
    cards = page.locator("#cards").inner_text()
    for word in ("3 vrste", "Mali niz", "Veliki niz", "Ukupno"):
        assert word in cards
    assert "Scala piccola" not in cards
    assert page.locator("#roll").inner_text() == "Baci ostalih 3"
    assert page.locator("#rolls-left").inner_text() == "Preostala bacanja: 2 od 3"
    assert page.locator("#connection").inner_text() == "povezano"
    assert page.locator("footer").inner_text().startswith("Tipke:")
    words = (" baca ", " upisuje ", " počinje.", "Igra je počela.")  # rolls, scores, who starts, the start
    assert all(any(w in e for w in words) for e in page.locator("#events li").all_inner_texts())

    # play on in Croatian: the roll goes through with the kept dice; the server speaks Croatian too
    def first_two() -> tuple[str | None, str | None]:
        return page.locator("#dice .die").nth(0).get_attribute("data-value"), page.locator("#dice .die").nth(
            1
        ).get_attribute("data-value")

    kept = first_two()
    v = version(page)
    page.locator("#roll").click()
    wait_newer(page, v)
    assert first_two() == kept
    page.get_by_role("button", name="Savjet").click()
    page.locator("#hint-box li").first.wait_for()
    hint = page.locator("#hint-box").inner_text()
    assert "Najbolji izbori" in hint or "Polja po" in hint
    assert errors == []

    # the choice is remembered: a reload comes back in Croatian, in the same game
    page.reload()
    page.wait_for_function("document.querySelector('#connection').textContent === 'povezano'")
    assert page.locator("#language").input_value() == "hr"
    assert "Mali niz" in page.locator("#cards").inner_text()
    context.close()
