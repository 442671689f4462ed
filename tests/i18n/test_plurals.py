"""Counts read right in every language: each catalog's plural rule, and ngettext wherever a number meets a noun."""

from __future__ import annotations

import gettext
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from click.testing import CliRunner

import fivedice
from fivedice import i18n
from fivedice.cli import main
from fivedice.engine.game import Game
from fivedice.errors import FiveDiceError, IllegalActionError
from fivedice.i18n import LOCALE_DIR
from fivedice.i18n.catalogs import TEMPLATE, read

PLURAL_FORMS = {
    "en": "nplurals=2; plural=(n != 1);",
    # gettext's rule for Italian (and for Corsican, which counts like it): one form for 1, one for the rest.
    # CLDR's third Italian category, "many", is for exact millions ("1 milione di dadi"), never met here.
    "it": "nplurals=2; plural=(n != 1);",
    "co": "nplurals=2; plural=(n != 1);",
    "hr": "nplurals=3; plural=n % 10 == 1 && n % 100 != 11 ? 0 : n % 10 >= 2 && n % 10 <= 4 && "
    "(n % 100 < 12 || n % 100 > 14) ? 1 : 2;",
    "su": "nplurals=1; plural=0;",
}
"""The Plural-Forms header each catalog must carry."""
SAMPLES = {
    "en": {0: 1, 1: 0, 2: 1, 21: 1, 1_000_000: 1},
    "it": {0: 1, 1: 0, 2: 1, 11: 1, 1_000_000: 1},
    "co": {0: 1, 1: 0, 2: 1, 11: 1, 1_000_000: 1},
    "hr": {0: 2, 1: 0, 2: 1, 4: 1, 5: 2, 11: 2, 12: 2, 14: 2, 21: 0, 22: 1, 25: 2, 101: 0, 111: 2, 112: 2},
    "su": {0: 0, 1: 0, 2: 0, 100: 0},
}
"""n -> the form each language uses (CLDR: hr one/few/other; su has no plural)."""


@pytest.mark.parametrize("code", sorted(PLURAL_FORMS))
def test_each_catalog_has_its_languages_plural_rule(code: str) -> None:
    catalog = read(code)
    assert " ".join(dict(catalog.mime_headers)["Plural-Forms"].split()) == PLURAL_FORMS[code]
    with (LOCALE_DIR / f"{code}.mo").open("rb") as f:
        compiled = gettext.GNUTranslations(f)
    plural = getattr(compiled, "plural")  # the rule compiled from the .mo's header  # noqa: B009
    for n, form in SAMPLES[code].items():
        assert plural(n) == form, n


@pytest.mark.parametrize(
    ("code", "n", "expected"),
    [
        ("en", 1, "Cannot undo 1 action; 0 can be undone."),
        ("en", 2, "Cannot undo 2 actions; 0 can be undone."),
        ("it", 1, "Impossibile annullare 1 azione; se ne possono annullare 0."),
        ("hr", 1, "Ne može se poništiti 1 radnja; može se poništiti 0."),
        ("hr", 3, "Ne mogu se poništiti 3 radnje; može se poništiti 0."),
        ("hr", 5, "Ne može se poništiti 5 radnji; može se poništiti 0."),
        ("co", 1, "Ùn si pò annullà 1 azzione; se ne ponu annullà 0."),
    ],
)
def test_undo_counts_its_actions(code: str, n: int, expected: str) -> None:
    game = Game("yacht", ["Ann"], seed=1)
    with i18n.language(code), pytest.raises(IllegalActionError) as caught:
        game.undo(n)
    assert str(caught.value) == expected


@pytest.mark.parametrize(
    ("lang", "dice", "expected"),
    [
        ("en", ["12345"], "Error: Dice '12345': 1 value given; expected exactly 5.\n"),
        ("en", ["1", "2"], "Error: Dice '1 2': 2 values given; expected exactly 5.\n"),
        ("it", ["12345"], "Errore: Dadi '12345': dato 1 valore; attesi esattamente 5.\n"),
        ("hr", ["12345"], "Greška: Kockice '12345': dana je 1 vrijednost; očekuje se točno 5.\n"),
        ("hr", ["1", "2", "3"], "Greška: Kockice '1 2 3': dane su 3 vrijednosti; očekuje se točno 5.\n"),
        ("co", ["12345"], "Sbagliu: Dadi '12345': datu 1 valore; aspettati ghjustu 5.\n"),
    ],
)
def test_a_wrong_count_of_dice_is_told_in_good_grammar(lang: str, dice: list[str], expected: str) -> None:
    result = CliRunner().invoke(main, ["--lang", lang, "score", "yahtzee", "chance", *dice])
    assert (result.exit_code, result.stderr) == (2, expected)


def test_counts_in_the_rules_reference() -> None:
    from fivedice import rules
    from fivedice.engine.render import rules_card

    one_roll = rules.from_data({"base": "yacht", "name": "quick", "rolls": 1})
    assert rules_card(one_roll).endswith("5 dice, up to 1 roll a turn, 12 rounds.")
    with i18n.language("hr"):
        assert rules_card(rules.get("yahtzee")).endswith("5 kockica, do 3 bacanja po potezu, 13 rundi.")
        assert rules_card(rules.get("yahtzee", cards="jetsi")).endswith("39 rundi.")
        assert "barem 3 iste kockice" in rules_card(rules.get("yahtzee"))
    with i18n.language("co"):
        assert rules_card(one_roll).endswith("5 dadi, finu à 1 tiru per turnu, 12 giri.")


def test_rolls_used_and_dice_kept_read_right() -> None:
    game = Game("yacht", ["Ann"], seed=3)
    for _i in range(3):
        game.roll()
    with pytest.raises(FiveDiceError, match="Ann has used all 3 rolls this turn"):
        game.roll()
    with i18n.language("hr"), pytest.raises(FiveDiceError, match="Ann je iskoristio sva 3 bacanja"):
        game.roll()


# -- every message that puts a number before a noun goes through ngettext -----------------
_COUNTS = (
    r"(?:n|count|rolls|rounds|boxes|entries|games|players|cards|states|seats|points|length|left|decisions|mistakes)"
)
_NOUNS = (
    r"(?:actions?|values?|box(?:es)?|rolls?|rounds?|dice|die|players?|games?|points?|cards?|strateg(?:y|ies)|"
    r"entry|entries|states?|seats?|characters?|bytes?|decisions?|mistakes?|scores?|moves?|turns?)"
)
_NUMBER_NOUN = re.compile(r"\{" + _COUNTS + r"\}\s+(?:[a-z-]+\s+)?" + _NOUNS + r"\b")
NOT_COUNTS = {"{points} points", "Tie at {total}: {players} roll off again."}
"""Texts whose placeholder is no whole count: a decimal (``0,25 points``) or a list of names."""


def test_a_number_before_a_noun_is_a_plural_message() -> None:
    with TEMPLATE.open("rb") as f:
        template = read_po(f)
    found = {m.id for m in template if isinstance(m.id, str) and _NUMBER_NOUN.search(m.id)}
    assert found - NOT_COUNTS == set()


# -- the browser picks plural forms by the catalog's own rule ----------------------------
@pytest.mark.parametrize("code", ["en", "it", "hr", "su", "co"])
def test_the_browser_reads_each_languages_plural_rule_as_gettext_does(code: str, tmp_path: Path) -> None:
    """static/i18n.js's ``pluralRule`` (no eval: the page's CSP forbids it) agrees with babel for n = 0..300."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed; the browser's plural rule is checked by the browser tests only.")
    header = read(code).plural_forms
    script = tmp_path / "rule.mjs"
    module = (Path(fivedice.__file__).parent / "web" / "static" / "i18n.js").as_uri()
    script.write_text(
        f"import {{ pluralRule }} from {json.dumps(module)};\n"
        f"const rule = pluralRule({json.dumps(header)});\n"
        "console.log(JSON.stringify([...Array(301).keys()].map(rule)));\n"
    )
    out = subprocess.run([node, str(script)], capture_output=True, text=True, check=True, timeout=60).stdout
    rule = gettext.c2py(header.split("plural=", 1)[1].rstrip(";"))  # what Python's gettext runs on the server
    assert json.loads(out) == [rule(n) for n in range(301)]
