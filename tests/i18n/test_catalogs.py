"""The catalogs: complete, in step with the sources, compiled, and with every placeholder kept."""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po

from fivedice.i18n import LOCALE_DIR, SOURCE_LANGUAGE, available_languages, placeholders
from fivedice.i18n.catalogs import TEMPLATE, compile_bytes, read, template

LANGUAGES = sorted(p.stem for p in LOCALE_DIR.glob("*.po"))
COMPLETE = ("en", "it", "hr", "su", "co")


def _key(message: Message) -> object:
    return (message.context, message.id if isinstance(message.id, str) else tuple(message.id))


def _ids(catalog: Catalog) -> set[object]:
    return {_key(m) for m in catalog if m.id}


def _forms(message: Message) -> list[str]:
    string = message.string
    if isinstance(string, str):
        return [string]
    return list(string or ())


def test_the_five_languages_have_catalogs() -> None:
    assert set(LANGUAGES) == {"en", "it", "hr", "su", "co"}
    assert set(available_languages()) == set(LANGUAGES)


def test_template_matches_the_sources() -> None:
    """Re-extracting finds exactly the texts of the committed template (run `extract` + `update`)."""
    with TEMPLATE.open("rb") as f:
        committed = read_po(f)
    assert _ids(template()) == _ids(committed)


@pytest.mark.parametrize("code", LANGUAGES)
def test_catalog_covers_every_message(code: str) -> None:
    with TEMPLATE.open("rb") as f:
        assert _ids(read(code)) == _ids(read_po(f))


@pytest.mark.parametrize("code", LANGUAGES)
def test_catalog_compiles_to_the_committed_mo(code: str) -> None:
    compiled = compile_bytes(read(code))
    assert compiled == (LOCALE_DIR / f"{code}.mo").read_bytes(), "run: python -m fivedice.i18n compile"


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_translation_keeps_the_placeholders(code: str) -> None:
    bad = []
    for message in read(code):
        if not message.id:
            continue
        source = message.id if isinstance(message.id, str) else message.id[-1]
        for form in _forms(message):
            if form and placeholders(form) != placeholders(source):
                bad.append((message.id, form))
            if form and (form[:1].isspace(), form[-1:].isspace()) != (source[:1].isspace(), source[-1:].isspace()):
                bad.append((message.id, form))
    assert bad == []


def test_plural_sources_share_their_placeholders() -> None:
    for message in read(SOURCE_LANGUAGE):
        if message.id and message.pluralizable:
            assert placeholders(message.id[0]) == placeholders(message.id[1])


@pytest.mark.parametrize("code", LANGUAGES)
def test_plural_forms_match_the_language(code: str) -> None:
    catalog = read(code)
    for message in catalog:
        if message.id and message.pluralizable:
            assert len(_forms(message)) == catalog.num_plurals


@pytest.mark.parametrize("code", COMPLETE)
def test_complete_catalogs_translate_everything(code: str) -> None:
    missing = [m.id for m in read(code) if m.id and (m.fuzzy or not all(_forms(m)))]
    assert missing == []


def test_english_catalog_is_the_identity() -> None:
    for message in read(SOURCE_LANGUAGE):
        if message.id:
            assert message.string == (message.id if isinstance(message.id, str) else tuple(message.id))


@pytest.mark.parametrize(
    ("code", "labels"),
    [
        (
            "it",
            {
                "Three of a Kind": "Tris",
                "Four of a Kind": "Poker",
                "Full House": "Full",
                "Small Straight": "Scala piccola",
                "Large Straight": "Scala grande",
                "Chance": "Chance",
            },
        ),
        ("hr", {"Aces": "Asovi", "Full House": "Puna kuća", "Chance": "Šansa", "Sixes": "Šestice"}),
        ("su", {"Twos": "Dua", "Large Straight": "Lempeng Gedé", "Chance": "Kasempetan", "Sixes": "Genep"}),
        ("co", {"Threes": "Trè", "Sixes": "Sei", "Four of a Kind": "Quattru di un tipu", "Full House": "Full House"}),
    ],
)
def test_box_names_are_the_ones_players_use(code: str, labels: dict[str, str]) -> None:
    """The seeds' names for the boxes (../shared/seeds/)."""
    strings = {m.id: m.string for m in read(code) if m.id}
    assert {k: strings[k] for k in labels} == labels


def test_init_starts_a_new_language_from_the_template(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from fivedice.i18n import catalogs

    monkeypatch.setattr(catalogs, "LOCALE_DIR", tmp_path)
    path = catalogs.init("pt_BR")
    assert path == tmp_path / "pt_BR.po"
    catalog = read("pt_BR")
    with TEMPLATE.open("rb") as f:
        assert _ids(catalog) == _ids(read_po(f))
    assert all(not any(_forms(m)) for m in catalog if m.id)
    assert catalog.num_plurals == 3
    assert catalogs.stats()["pt_BR"] == (0, 0, len(_ids(catalog)))
    with pytest.raises(SystemExit):
        catalogs.init("pt_BR")
