"""Choosing the language, translating, formatting, and the JSON catalogs for the web client."""

from __future__ import annotations

import shutil
import threading
from datetime import date, datetime
from pathlib import Path

import pytest

from fivedice import i18n, rules
from fivedice.engine.game import Game
from fivedice.errors import FiveDiceError, IllegalActionError
from fivedice.i18n import _, ngettext


def test_available_languages_have_native_names() -> None:
    names = i18n.available_languages()
    assert names["it"] == "Italiano"
    assert names["hr"] == "Hrvatski"
    assert names["su"] == "Basa Sunda"
    assert names["en"] == "English"
    assert set(names) == {"en", "it", "hr", "su", "co"}


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, "en"),
        ({"LANG": "it_IT.UTF-8"}, "it"),
        ({"LANG": "hr_HR.UTF-8", "LC_MESSAGES": "su_ID.UTF-8"}, "su"),
        ({"LANG": "it_IT.UTF-8", "LC_ALL": "C"}, "en"),
        ({"LANG": "it_IT.UTF-8", "LANGUAGE": "de:co"}, "co"),
        ({"LANG": "de_DE.UTF-8"}, "en"),
        ({"LANGUAGE": "", "LANG": "hr"}, "hr"),
    ],
)
def test_language_follows_the_environment(env: dict[str, str], expected: str) -> None:
    assert i18n.from_environment(env) == expected


def test_accept_language_negotiation() -> None:
    assert i18n.negotiate("hr-HR,hr;q=0.9,en;q=0.8") == "hr"
    assert i18n.negotiate("en;q=0.2, it;q=0.7") == "it"
    assert i18n.negotiate("fr, de") == "en"
    assert i18n.negotiate("it;q=0, su") == "su"
    assert i18n.negotiate(None) == "en"


def test_set_language_and_unknown_codes() -> None:
    assert i18n.set_language("it_IT.UTF-8") == "it"
    assert i18n.current_language() == "it"
    assert _("Total") == "Totale"
    with pytest.raises(
        i18n.LanguageError, match="La lingua 'xx' non è disponibile; attesa una tra: co, en, hr, it, su"
    ):
        i18n.set_language("xx")
    assert i18n.current_language() == "it"
    with pytest.raises(FiveDiceError):
        i18n.set_language("klingon")


def test_language_block_is_local_to_its_thread() -> None:
    i18n.set_language("hr")
    seen: list[str] = []
    started = threading.Event()
    release = threading.Event()

    def other() -> None:
        seen.append(_("Total"))
        started.set()
        release.wait(5)
        seen.append(_("Total"))

    with i18n.language("it"):
        thread = threading.Thread(target=other)
        thread.start()
        started.wait(5)
        assert _("Total") == "Totale"
        release.set()
        thread.join(5)
    assert seen == ["Ukupno", "Ukupno"]
    assert _("Total") == "Ukupno"


def test_plurals_follow_each_language() -> None:
    counts = (1, 2, 5, 21)
    with i18n.language("hr"):
        assert [ngettext("{n} die", "{n} dice", n, n=n) for n in counts] == [
            "1 kockica",
            "2 kockice",
            "5 kockica",
            "21 kockica",
        ]
    with i18n.language("it"):
        assert [ngettext("{n} die", "{n} dice", n, n=n) for n in counts] == ["1 dado", "2 dadi", "5 dadi", "21 dadi"]
    with i18n.language("su"):
        assert ngettext("{n} die", "{n} dice", 5, n=5) == "5 dadu"
    assert ngettext("{n} die", "{n} dice", 1, n=1) == "1 die"


def test_untranslated_and_fuzzy_texts_fall_back_to_english(monkeypatch: pytest.MonkeyPatch) -> None:
    import gettext
    import io

    from babel.messages.catalog import Catalog

    from fivedice.i18n.catalogs import compile_bytes

    draft = Catalog(locale="co")
    draft.add("Total", "Tutale")
    draft.add("Small Straight", "Scala chjuca", flags=["fuzzy"])
    draft.add("Game over.", "")
    translations = gettext.GNUTranslations(io.BytesIO(compile_bytes(draft)))
    monkeypatch.setattr(i18n, "_translations", lambda code: translations)
    with i18n.language("co"):
        assert _("Total") == "Tutale"
        assert _("Small Straight") == "Small Straight"  # fuzzy: left out of the .mo
        assert _("Game over.") == "Game over."  # empty
    assert _("a text in no catalog") == "a text in no catalog"


def test_a_broken_translation_shows_the_english(monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken:
        def gettext(self, message: str) -> str:
            return "{nonsense}"

    monkeypatch.setattr(i18n, "_translations", lambda code: Broken())
    assert _("Saved to {path}.", path="x.json") == "Saved to x.json."


def test_engine_errors_come_out_in_the_language_of_the_moment() -> None:
    game = Game("yahtzee", ["Ann"], seed=1)
    with i18n.language("it"), pytest.raises(IllegalActionError, match="Ann deve tirare prima di segnare"):
        game.score("chance")
    with pytest.raises(IllegalActionError, match="Ann must roll before scoring"):
        game.score("chance")
    game.roll()
    game.score("chance")
    game.roll()
    with (
        i18n.language("hr"),
        pytest.raises(IllegalActionError, match="Polje 'Šansa' je već popunjeno za Ann \\(runda 2\\)"),
    ):
        game.score("chance")
    with i18n.language("su"), pytest.raises(FiveDiceError, match="Kotak 'nope' teu aya dina aturan yahtzee"):
        game.score("nope")


@pytest.mark.parametrize(
    ("code", "typed", "box"),
    [
        ("it", "tris", "three_of_a_kind"),
        ("it", "Scala piccola", "small_straight"),
        ("it", "poker", "four_of_a_kind"),
        ("hr", "sestice", "sixes"),
        ("hr", "Puna kuća", "full_house"),
        ("su", "lempeng gede", "large_straight"),
        ("su", "kasempetan", "chance"),
        ("co", "quattru di un tipu", "four_of_a_kind"),
    ],
)
def test_translated_labels_are_box_names(code: str, typed: str, box: str) -> None:
    rs = rules.get("yahtzee")
    with i18n.language(code):
        assert rs.box(typed).name == box
        assert rs.box(box).name == box  # the identifiers keep working
        assert rs.box("full house").name == "full_house"  # and so do the English names
    with pytest.raises(FiveDiceError, match="Box 'tris' is not in the yahtzee rule set"):
        rs.box("tris")


def test_rule_set_texts_are_translated_where_shown() -> None:
    with i18n.language("it"):
        assert dict(rules.available())["yacht"].startswith("Yacht: l'antenato di pubblico dominio")
        assert rules.describe(rules.get("yahtzee", yahtzee_bonus="0", joker="none")) == (
            "Yahtzee: 13 caselle, bonus di 35 nella sezione superiore a 63, senza bonus Yahtzee, senza Joker."
        )
        assert i18n.box_label(rules.get("yatzy").box("two pairs")) == "Doppia coppia"
        assert rules.get("generala").box("poker").describe() == "almeno 4 dadi uguali; vale 40 (45 al primo lancio)"
    # the data stays English
    assert rules.get("yahtzee").description.startswith("Yahtzee: 13 boxes")
    assert rules.get("yatzy").box("two pairs").label == "Two Pairs"


def test_numbers_and_dates_follow_the_locale() -> None:
    moment = datetime(2026, 11, 29, 18, 5)
    assert i18n.format_number(12345) == "12,345"
    assert i18n.format_decimal(1234.56, 1) == "1,234.6"
    assert i18n.format_percent(0.125) == "12.5%"
    assert i18n.format_date(date(2026, 11, 29)) == "Nov 29, 2026"
    with i18n.language("it"):
        assert i18n.format_number(12345) == "12.345"
        assert i18n.format_decimal(1234.56, 1) == "1.234,6"
        assert i18n.format_percent(0.125) == "12,5%"
        assert i18n.format_date(date(2026, 11, 29), "long") == "29 novembre 2026"
        assert "18:05" in i18n.format_datetime(moment)
    with i18n.language("hr"):
        assert i18n.format_decimal(2.5, 2) == "2,50"
        assert "studenoga" in i18n.format_date(date(2026, 11, 29), "long")
    with i18n.language("co"):
        assert i18n.format_decimal(12345.5, 1) == "12\u202f345,5"
        assert i18n.format_date(date(2026, 11, 29), "long") == "29 di nuvembre di u 2026"


def test_catalog_json_for_the_web_client() -> None:
    data = i18n.catalog_json("it")
    assert data["language"] == "it"
    messages = data["messages"]
    assert isinstance(messages, dict)
    assert messages["Three of a Kind"] == "Tris"
    assert messages["{n} die"] == ["{n} dado", "{n} dadi"]
    assert data["plural"] == "nplurals=2; plural=(n != 1);"
    assert "plural=" in str(data["plural"])
    corsican = i18n.catalog_json("co")["messages"]
    assert isinstance(corsican, dict)
    assert corsican["Small Straight"] == "Scala chjuca"
    assert "Chance" not in corsican  # the same as in English: the client shows the English text
    assert i18n.catalog_json("en")["messages"] == {}  # plural forms and contexts equal to the source need no entry
    with pytest.raises(i18n.LanguageError):
        i18n.catalog_json("xx")


def test_a_new_language_is_one_po_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Dropping ``de.po`` into the locale directory adds German, compiled in memory."""
    from fivedice.i18n import catalogs

    for src in i18n.LOCALE_DIR.iterdir():
        shutil.copy(src, tmp_path / src.name)
    text = (tmp_path / "it.po").read_text(encoding="utf-8")
    text = text.replace('msgstr "Totale"', 'msgstr "Gesamt"').replace("Language: it", "Language: de")
    (tmp_path / "de.po").write_text(text, encoding="utf-8")
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)
    monkeypatch.setattr(catalogs, "LOCALE_DIR", tmp_path)
    i18n.available_languages.cache_clear()
    i18n._translations.cache_clear()
    try:
        assert i18n.available_languages()["de"] == "Deutsch"
        with i18n.language("de_AT"):
            assert _("Total") == "Gesamt"
        assert catalogs.stats()["de"][0] == catalogs.stats()["it"][0]
    finally:
        monkeypatch.undo()  # now: later teardowns (set_language) must not cache the test's German
        i18n.available_languages.cache_clear()
        i18n._translations.cache_clear()
