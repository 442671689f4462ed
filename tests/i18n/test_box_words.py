"""The rule sources' own box names as aliases in their language, the notes on which box is the Poker,
and messages that name boxes by the reader's labels."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from fivedice import i18n, rules
from fivedice.cli import main
from fivedice.cli.plain import local_commands
from fivedice.cli.solve import parse_card
from fivedice.engine.game import Game
from fivedice.errors import FiveDiceError
from fivedice.rules import words

CLEAN = {"LANGUAGE": None, "LC_ALL": None, "LC_MESSAGES": None, "LANG": None}


def run(*args: str, input: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), input=input, env=CLEAN)
    return result.exit_code, result.stdout, result.stderr


SEED_WORDS = [
    # Italian: Regole del gioco Yahtzee (seed 000) and Wikipedia (seed 002)
    ("it", "yahtzee", "3 dadi uguali", "three_of_a_kind"),
    ("it", "yahtzee", "4 dadi uguali", "four_of_a_kind"),
    ("it", "yahtzee", "4 di un tipo", "four_of_a_kind"),
    ("it", "yahtzee", "scala con 4", "small_straight"),
    ("it", "yahtzee", "scala con 5", "large_straight"),
    ("it", "yahtzee", "scala con 4 dadi", "small_straight"),
    ("it", "yahtzee", "piccolo rettilineo", "small_straight"),
    ("it", "yahtzee", "grande rettilineo", "large_straight"),
    ("it", "yahtzee", "Dritta Grande", "large_straight"),
    ("it", "yahtzee", "possibilità", "chance"),
    ("it", "yahtzee", "possibilita", "chance"),
    ("it", "yahtzee", "dadi con 6", "sixes"),
    ("it", "yacht", "possibilità", "choice"),
    ("it", "yatzy", "piccolo rettilineo", "small_straight"),
    # Croatian: Pravila igre Yahtzee (seed 001)
    ("hr", "yahtzee", "veliki ravno", "large_straight"),
    ("hr", "yahtzee", "mali ravno", "small_straight"),
    ("hr", "yahtzee", "male ravne", "small_straight"),
    ("hr", "yahtzee", "veliki nizovi", "large_straight"),
    ("hr", "yahtzee", "šanse", "chance"),
    ("hr", "yahtzee", "jedanci", "aces"),
    # Sundanese: Aturan Game Yahtzee (seed 004)
    ("su", "yahtzee", "leutik lempeng", "small_straight"),
    ("su", "yahtzee", "lempeng gedé", "large_straight"),
    ("su", "yahtzee", "lempeng badag", "large_straight"),
    ("su", "yahtzee", "kasempetan", "chance"),
    # Corsican: Comu ghjucà u ghjocu di yacht (seed 003)
    ("co", "yacht", "iate", "yacht"),
    ("co", "yacht", "casa fulla", "full_house"),
    ("co", "yacht", "a scelta", "choice"),
]


@pytest.mark.parametrize(("code", "spec", "typed", "box"), SEED_WORDS)
def test_the_sources_words_name_boxes_in_their_language(code: str, spec: str, typed: str, box: str) -> None:
    rs = rules.parse_spec(spec)
    with i18n.language(code):
        assert rs.box(typed).name == box
        assert rs.box(box).name == box
    with pytest.raises(FiveDiceError, match="is not in the"):
        rs.box(typed)  # in English the word names nothing


def test_a_word_that_says_what_the_box_holds_fits_only_that_kind() -> None:
    """'scala con 4' is a straight of four: Yatzy's Small Straight is 1-2-3-4-5, so not there."""
    with i18n.language("it"), pytest.raises(FiveDiceError, match="'scala con 4' non è nel regolamento yatzy"):
        rules.get("yatzy").box("scala con 4")
    with i18n.language("hr"), pytest.raises(FiveDiceError):
        rules.get("yahtzee").box("scala con 4")  # Italian words are not Croatian ones


def test_the_sources_words_work_everywhere_a_box_is_typed() -> None:
    code, out, err = run("--lang", "it", "score", "yahtzee", "scala con 4", "1", "2", "3", "4", "6")
    assert (code, out, err) == (0, "30\n", "")
    code, out, _err = run("--lang", "hr", "score", "yahtzee", "veliki ravno", "2", "3", "4", "5", "6")
    assert (code, out) == (0, "40\n")
    with i18n.language("it"):
        card = parse_card(rules.get("yahtzee"), "3 dadi uguali=20, grande rettilineo=40, possibilità=17")
    assert card.get("three_of_a_kind") == 20
    assert card.get("large_straight") == 40
    assert card.get("chance") == 17
    lines = ["Ann", "scala con 4", "sì", "quit"]
    code, out, _err = run("--lang", "it", "play", "--plain", "--seed", "3", input="\n".join(lines) + "\n")
    assert code == 0
    assert "Ann segna 0 in Scala piccola." in out
    lines = ["Asep", "leutik lempeng", "kaluar"]
    args = ("--lang", "su", "play", "--plain", "--no-confirm", "--seed", "3")
    code, out, _err = run(*args, input="\n".join(lines) + "\n")
    assert " dina Lempeng Leutik." in out


def _rule_sets() -> list[rules.RuleSet]:
    return [rules.get(name, **chosen) for name, builtin in rules.BUILTINS.items() for chosen in builtin.combinations()]


@pytest.mark.parametrize("code", sorted(i18n.available_languages()))
def test_every_word_names_one_box_and_no_command(code: str) -> None:
    labels = {b.label for rs in _rule_sets() for b in rs.boxes}
    table = words._table()
    assert code in table, "every language has a section in boxwords.toml"
    assert set(table[code].aliases) <= labels, "aliases are keyed by the English labels of boxes"
    assert set(table[code].notes) <= labels
    with i18n.language(code):
        commands = set(local_commands())
        for rs in _rule_sets():
            for box in rs.boxes:
                for word in words.aliases(box):
                    assert rs.box(word) is box, (rs.spec, word)
                    assert i18n.fold(word) not in commands, word


@pytest.mark.parametrize("code", sorted(i18n.available_languages()))
def test_the_rules_reference_says_which_box_is_the_poker(code: str) -> None:
    code_, out, _err = run("--lang", code, "rules", "generala")
    assert code_ == 0
    note = words.note(rules.get("generala").box("poker"), code)
    assert note is not None
    assert " ".join(note.split()) in " ".join(out.split())
    assert "Poker" in note


def test_the_italian_reference_lists_the_other_names_and_the_poker() -> None:
    code, out, _err = run("--lang", "it", "rules", "yahtzee")
    assert code == 0
    assert "Altri nomi delle caselle, da scrivere come i loro nomi:" in out
    assert "  Poker: 4 dadi uguali, 4 di un tipo\n" in out
    assert "  Scala piccola: piccolo rettilineo, piccola retta, piccola dritta, scala con 4, scala con 4 dadi\n" in out
    assert "Poker è la casella dei 4 dadi uguali" in out
    assert "«combinazione del poker»" in " ".join(out.split())
    code, out, _err = run("rules", "yahtzee")
    assert "Other names" not in out  # English has none beyond the labels
    assert "Poker" not in out


# -- messages name boxes by the reader's labels ------------------------------------------------
def _filled(spec: str = "yahtzee") -> Game:
    game = Game(rules.parse_spec(spec), ["Ann"], seed=4)
    game.roll()
    game.score("large_straight")
    game.roll()
    return game


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("en", "Box 'large_straight' is already filled for Ann (round 2)."),
        ("it", "La casella 'Scala grande' è già riempita per Ann (round 2)."),
        ("hr", "Polje 'Veliki niz' je već popunjeno za Ann (runda 2)."),
        ("co", "A casella 'Scala grande' hè dighjà piena per Ann (giru 2)."),
    ],
)
def test_a_filled_box_is_named_by_its_label(code: str, message: str) -> None:
    game = _filled()
    with i18n.language(code), pytest.raises(FiveDiceError) as caught:
        game.score("large_straight")
    assert str(caught.value) == message


def test_the_expected_boxes_are_listed_by_their_labels() -> None:
    with i18n.language("hr"), pytest.raises(FiveDiceError) as caught:
        rules.get("yacht").box("nope")
    assert str(caught.value).endswith(
        "Jedinice, Dvojke, Trojke, Četvorke, Petice, Šestice, Puna kuća, 4 vrste, Mali niz, Veliki niz, Izbor, Yacht."
    )
    with pytest.raises(FiveDiceError) as caught:
        rules.get("yacht").box("nope")
    assert str(caught.value).endswith(
        "ones, twos, threes, fours, fives, sixes, full_house, four_of_a_kind, "
        "small_straight, large_straight, choice, yacht."
    )


def test_fill_order_and_joker_messages_use_labels() -> None:
    game = Game(rules.get("yahtzee", order="top_down"), ["Ann"], seed=4)
    game.roll()
    with i18n.language("su"), pytest.raises(FiveDiceError) as caught:
        game.score("chance")
    assert "'Kasempetan'" in str(caught.value)
    assert "'As'" in str(caught.value)
    game = Game(rules.get("yahtzee"), ["Ann"], seed=1)
    game.roll(dice=(5, 5, 5, 5, 5))
    game.score("yahtzee")
    game.roll(dice=(5, 5, 5, 5, 5))
    with i18n.language("it"), pytest.raises(FiveDiceError) as caught:
        game.score("chance")
    assert str(caught.value).startswith(
        "La casella 'Chance' non è ammessa: la regola del Joker manda cinque 5 in 'Cinque' per Ann"
    )
    with i18n.language("it"), pytest.raises(FiveDiceError, match="La casella 'Tris' compare due volte"):
        parse_card(rules.get("yahtzee"), "tris=9, 3 dadi uguali=12")
