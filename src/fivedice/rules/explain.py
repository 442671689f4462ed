"""Rule-set options in words: a short name for each option and each choice, and one sentence per choice.

The option keys (``joker=forced``) stay the API; people see these words instead, in their own
language. Every built-in option and choice has its words (a test checks it).

>>> from fivedice import i18n
>>> explain("yahtzee", "order")["choices"][1]
{'value': 'upper_first', 'label': 'Upper section first', 'help': 'Fill all six upper boxes before any lower box.'}
>>> with i18n.language("it"):
...     explain("yacht", "four_kind")["title"]
'Poker'
"""

from __future__ import annotations

from typing import Any

from fivedice.errors import RuleSetError
from fivedice.i18n import N_, _
from fivedice.rules.builtin import BUILTINS

__all__ = ["CHOICES", "TITLES", "explain", "explain_all"]

TITLES: dict[tuple[str, str], str] = {
    ("yahtzee", "joker"): N_("Joker rule"),
    ("yahtzee", "yahtzee_bonus"): N_("Yahtzee bonus"),
    ("yahtzee", "order"): N_("Filling order"),
    ("yahtzee", "cards"): N_("Score cards"),
    ("yacht", "four_kind"): N_("Four of a Kind"),
    ("yatzy", "forced"): N_("Forced order"),
    ("yatzy", "full_house_five_alike"): N_("Five alike as a Full House"),
    ("kismet", "tali"): N_("GNOME Tali's version"),
    ("generala", "generala_points"): N_("Points for a Generala"),
    ("generala", "served_bonus"): N_("First-roll bonus"),
    ("generala", "instant_win"): N_("Instant win"),
    ("kismet", "second_kismet"): N_("Second Kismet"),
    ("kismet", "start"): N_("Who starts"),
    ("generala", "ace_straight"): N_("Straight 3-4-5-6-1"),
    ("generala", "double_generala"): N_("Double Generala"),
}
"""(rule set, option) -> the option's name in words."""

CHOICES: dict[tuple[str, str, str], tuple[str, str]] = {
    ("yahtzee", "joker", "forced"): (
        N_("Official Joker"),
        N_(
            "An extra Yahtzee must go in its upper box if that is open; "
            "otherwise it scores any lower box at full value."
        ),
    ),
    ("yahtzee", "joker", "free"): (
        N_("Free Joker"),
        N_("An extra Yahtzee may go in any open box; straights and Full House score full value."),
    ),
    ("yahtzee", "joker", "none"): (
        N_("No Joker"),
        N_("An extra Yahtzee scores only what the dice are worth in the box chosen."),
    ),
    ("yahtzee", "yahtzee_bonus", "100"): (
        N_("100 points"),
        N_("Each extra Yahtzee earns 100 bonus points while the Yahtzee box holds 50."),
    ),
    ("yahtzee", "yahtzee_bonus", "0"): (N_("None"), N_("Extra Yahtzees earn no bonus points.")),
    ("yahtzee", "order", "free"): (N_("Any order"), N_("Fill any open box, in any order.")),
    ("yahtzee", "order", "upper_first"): (
        N_("Upper section first"),
        N_("Fill all six upper boxes before any lower box."),
    ),
    ("yahtzee", "order", "top_down"): (N_("Top to bottom"), N_("Fill the boxes strictly from the top down.")),
    ("yahtzee", "order", "bottom_up"): (N_("Bottom to top"), N_("Fill the boxes strictly from the bottom up.")),
    ("yahtzee", "cards", "1"): (N_("One card"), N_("One score card and 13 rounds.")),
    ("yahtzee", "cards", "jetsi"): (
        N_("Jetsi: three cards"),
        N_("Three cards at once (one free, one top down, one bottom up) and 39 rounds."),
    ),
    ("yacht", "four_kind", "all_dice"): (N_("All five dice"), N_("Four of a Kind scores the sum of all five dice.")),
    ("yacht", "four_kind", "four_dice"): (
        N_("The four alike"),
        N_("Four of a Kind scores only the four matching dice."),
    ),
    ("yatzy", "forced", "no"): (N_("No"), N_("Fill the boxes in any order.")),
    ("yatzy", "forced", "yes"): (N_("Yes"), N_("Fill the card from top to bottom (forced Yatzy).")),
    ("yatzy", "full_house_five_alike", "no"): (N_("No"), N_("Five alike is not a Full House.")),
    ("yatzy", "full_house_five_alike", "yes"): (N_("Yes"), N_("Five alike also counts as a Full House.")),
    ("kismet", "tali", "no"): (N_("No"), N_("Kismet's own boxes and points.")),
    ("kismet", "tali", "yes"): (
        N_("Yes"),
        N_("A Straight scores 40 and five alike counts as any Full House, as in GNOME Tali."),
    ),
    ("generala", "generala_points", "50"): (N_("50 points"), N_("A Generala (five alike) scores 50 points.")),
    ("generala", "generala_points", "60"): (N_("60 points"), N_("A Generala (five alike) scores 60 points.")),
    ("generala", "served_bonus", "5"): (
        N_("5 points"),
        N_("A Straight, Full or Poker made on the first roll earns 5 extra points."),
    ),
    ("generala", "served_bonus", "10"): (
        N_("10 points"),
        N_("A Straight, Full or Poker made on the first roll earns 10 extra points."),
    ),
    ("generala", "instant_win", "yes"): (
        N_("Yes"),
        N_("Five alike on a turn's first roll, scored as Generala, wins the game at once."),
    ),
    ("generala", "instant_win", "no"): (
        N_("No"),
        N_("A Generala on the first roll scores its points and the game goes on."),
    ),
    ("kismet", "second_kismet", "no"): (N_("No"), N_("A second Kismet scores like any other dice.")),
    ("kismet", "second_kismet", "yes"): (
        N_("Yes"),
        N_("A Kismet rolled while your Kismet box holds one puts a zero in every other player's topmost open box."),
    ),
    ("kismet", "start", "all_dice"): (
        N_("All five dice"),
        N_("Every player rolls all five dice; the highest total starts."),
    ),
    ("kismet", "start", "one_die"): (N_("One die"), N_("Every player rolls one die; the highest starts.")),
    ("generala", "ace_straight", "no"): (N_("No"), N_("A Straight is 1-2-3-4-5 or 2-3-4-5-6.")),
    ("generala", "ace_straight", "yes"): (N_("Yes"), N_("3-4-5-6-1 is a Straight too.")),
    ("generala", "double_generala", "no"): (N_("No"), N_("Ten boxes; a second Generala scores as any dice.")),
    ("generala", "double_generala", "yes"): (
        N_("Yes"),
        N_("An eleventh box: five alike again, once the Generala box holds a Generala, score twice its points."),
    ),
}
"""(rule set, option, choice) -> (the choice's name in words, one sentence saying what it does)."""


def explain(rules: str, option: str) -> dict[str, Any]:
    """An option of a built-in rule set in the current language: its key, title and each choice's words."""
    builtin = BUILTINS.get(rules)
    found = next((o for o in builtin.options if o.name == option), None) if builtin else None
    if builtin is None or found is None:
        raise RuleSetError(_("Rule set {rules!r} has no option {option!r}.", rules=rules, option=option))
    choices = []
    for choice in found.choices:
        label, sentence = CHOICES.get((rules, option, choice), (choice, found.help))
        choices.append({"value": choice, "label": _(label), "help": _(sentence)})
    return {"name": option, "title": _(TITLES.get((rules, option), option)), "choices": choices}


def explain_all(rules: str) -> list[dict[str, Any]]:
    """Every option of a built-in rule set, explained (see :func:`explain`)."""
    builtin = BUILTINS.get(rules)
    if builtin is None:
        raise RuleSetError(
            _("Rule set {rules!r} is unknown; expected one of: {known}.", rules=rules, known=", ".join(BUILTINS))
        )
    return [explain(rules, o.name) for o in builtin.options]
