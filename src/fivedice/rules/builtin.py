"""The built-in rule sets and their options (RULES.md and VARIANTS.md), as data."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from fivedice.errors import RuleSetError
from fivedice.i18n import N_, _
from fivedice.rules.kinds import (
    AllAlike,
    Chance,
    Face,
    Flush,
    FullHouse,
    Kind,
    OfAKind,
    Pair,
    Points,
    SecondAlike,
    Straight,
    TwoPair,
)
from fivedice.rules.ruleset import BonusTier, Box, FillOrder, Joker, RuleSet

__all__ = ["BUILTINS", "Builtin", "Option", "describe"]

_FACE_LABELS = {
    "yahtzee": (N_("Aces"), N_("Twos"), N_("Threes"), N_("Fours"), N_("Fives"), N_("Sixes")),
    "default": (N_("Ones"), N_("Twos"), N_("Threes"), N_("Fours"), N_("Fives"), N_("Sixes")),
}


def _upper(labels: tuple[str, ...]) -> list[Box]:
    boxes = []
    for face, label in enumerate(labels, 1):
        aliases = ("ones",) if label == "Aces" else ("aces",) if label == "Ones" else ()
        boxes.append(Box(label.lower(), label, "upper", Face(face), Points("matched"), aliases))
    return boxes


def _box(label: str, kind: Kind, points: str | int, first: int | None = None, *aliases: str) -> Box:
    name = "_".join(label.lower().split())
    return Box(name, label, "lower", kind, Points.parse(points, first), tuple(aliases))


@dataclass(frozen=True, slots=True)
class Option:
    """A rule-set option: its allowed ``choices`` (first is the default) and meaning."""

    name: str
    choices: tuple[str, ...]
    help: str

    @property
    def default(self) -> str:
        """The default choice."""
        return self.choices[0]


@dataclass(frozen=True, slots=True)
class Builtin:
    """A built-in rule set: a description, its options and a builder."""

    name: str
    description: str
    options: tuple[Option, ...]
    build: Callable[[dict[str, str]], RuleSet]
    excludes: tuple[tuple[str, str, str], ...] = ()
    """Options that cannot combine: ``(option, value, other)`` means that with ``option=value`` the
    option ``other`` keeps its default (the value decides what ``other`` would)."""

    def combinations(self) -> Iterator[dict[str, str]]:
        """Every combination of option values that makes a rule set (those that can combine).

        >>> len(list(BUILTINS["yahtzee"].combinations()))  # 3 x 2 x 4 x 2, less 3 x 2 x 3 with jetsi
        30
        """
        names = [o.name for o in self.options]
        for values in itertools.product(*(o.choices for o in self.options)):
            chosen = dict(zip(names, values, strict=True))
            defaults = {o.name: o.default for o in self.options}
            if not any(chosen[a] == v and chosen[b] != defaults[b] for a, v, b in self.excludes):
                yield chosen


_BOOL = ("no", "yes")


def _yahtzee(o: dict[str, str]) -> RuleSet:
    boxes = [
        *_upper(_FACE_LABELS["yahtzee"]),
        _box(N_("Three of a Kind"), OfAKind(3), "sum", None, "3_of_a_kind", "three_kind"),
        _box(N_("Four of a Kind"), OfAKind(4), "sum", None, "4_of_a_kind", "four_kind"),
        _box(N_("Full House"), FullHouse(), 25),
        _box(N_("Small Straight"), Straight.of_length(4), 30, None, "sm_straight"),
        _box(N_("Large Straight"), Straight.of_length(5), 40, None, "lg_straight"),
        _box(N_("Yahtzee"), AllAlike(), 50),
        _box(N_("Chance"), Chance(), "sum"),
    ]
    order = FillOrder(o["order"])
    cards = (FillOrder.FREE, FillOrder.TOP_DOWN, FillOrder.BOTTOM_UP) if o["cards"] == "jetsi" else (order,)
    return RuleSet(
        name="yahtzee",
        title=N_("Yahtzee"),
        description=_yahtzee_description(o),
        boxes=tuple(boxes),
        upper_bonus=(BonusTier(63, 35),),
        yahtzee_box="yahtzee",
        yahtzee_bonus=int(o["yahtzee_bonus"]),
        joker=Joker(o["joker"]),
        cards=cards,
    )


def _yacht(o: dict[str, str]) -> RuleSet:
    four = "sum" if o["four_kind"] == "all_dice" else "matched"
    boxes = [
        *_upper(_FACE_LABELS["default"]),
        _box(N_("Full House"), FullHouse(), "sum"),
        _box(N_("Four of a Kind"), OfAKind(4), four, None, "4_of_a_kind", "four_kind"),
        _box(N_("Small Straight"), Straight(((1, 2, 3, 4, 5),)), 30),
        _box(N_("Large Straight"), Straight(((2, 3, 4, 5, 6),)), 30),
        _box(N_("Choice"), Chance(), "sum", None, "chance"),
        _box(N_("Yacht"), AllAlike(), 50),
    ]
    return RuleSet("yacht", N_("Yacht"), _DESCRIPTIONS["yacht"], tuple(boxes), yahtzee_box="yacht")


def _yatzy(o: dict[str, str]) -> RuleSet:
    boxes = [
        *_upper(_FACE_LABELS["default"]),
        _box(N_("One Pair"), Pair(), "matched", None, "pair"),
        _box(N_("Two Pairs"), TwoPair(), "matched", None, "two_pair"),
        _box(N_("Three of a Kind"), OfAKind(3), "matched", None, "3_of_a_kind", "three_kind"),
        _box(N_("Four of a Kind"), OfAKind(4), "matched", None, "4_of_a_kind", "four_kind"),
        _box(N_("Small Straight"), Straight(((1, 2, 3, 4, 5),)), 15),
        _box(N_("Large Straight"), Straight(((2, 3, 4, 5, 6),)), 20),
        _box(N_("Full House"), FullHouse(five_alike=o["full_house_five_alike"] == "yes"), "sum"),
        _box(N_("Chance"), Chance(), "sum"),
        _box(N_("Yatzy"), AllAlike(), 50, None, "yahtzee"),
    ]
    order = FillOrder.TOP_DOWN if o["forced"] == "yes" else FillOrder.FREE
    return RuleSet(
        "yatzy", N_("Yatzy"), _DESCRIPTIONS["yatzy"], tuple(boxes),
        upper_bonus=(BonusTier(63, 50),), yahtzee_box="yatzy", cards=(order,),
    )  # fmt: skip


def _kismet(o: dict[str, str]) -> RuleSet:
    tali = o["tali"] == "yes"
    boxes = [
        *_upper(_FACE_LABELS["yahtzee"]),
        _box(N_("Two Pair Same Colour"), TwoPair(four_alike=True, same_colour=True), "sum", None, "two_pair"),
        _box(N_("Three of a Kind"), OfAKind(3), "sum", None, "3_of_a_kind", "three_kind"),
        _box(N_("Straight"), Straight(), 40 if tali else 30),
        _box(N_("Flush"), Flush(), 35),
        _box(N_("Full House"), FullHouse(five_alike=tali), "sum+15"),
        _box(N_("Full House Same Colour"), FullHouse(five_alike=tali, same_colour=True), "sum+20"),
        _box(N_("Four of a Kind"), OfAKind(4), "sum+25", None, "4_of_a_kind", "four_kind"),
        _box(N_("Yarborough"), Chance(), "sum", None, "chance"),
        _box(N_("Kismet"), AllAlike(), "sum+50", None, "yahtzee"),
    ]
    tiers = (BonusTier(63, 35), BonusTier(71, 55), BonusTier(78, 75))
    return RuleSet(
        "kismet", N_("Kismet"), _DESCRIPTIONS["kismet"], tuple(boxes), upper_bonus=tiers, yahtzee_box="kismet",
        rolloff_dice=1 if o["start"] == "one_die" else 0, extra_alike_penalty=o["second_kismet"] == "yes",
    )  # fmt: skip


def _generala(o: dict[str, str]) -> RuleSet:
    extra = int(o["served_bonus"])
    runs = ((1, 2, 3, 4, 5), (2, 3, 4, 5, 6), *([(3, 4, 5, 6, 1)] if o["ace_straight"] == "yes" else []))
    generala = int(o["generala_points"])
    boxes = [
        *_upper(_FACE_LABELS["default"]),
        _box(N_("Straight"), Straight(runs), 20, 20 + extra, "escalera"),
        _box(N_("Full"), FullHouse(), 30, 30 + extra, "full_house"),
        _box(N_("Poker"), OfAKind(4), 40, 40 + extra, "four_of_a_kind"),
        _box(N_("Generala"), AllAlike(), generala, None, "yahtzee"),
    ]
    if o["double_generala"] == "yes":
        boxes.append(_box(N_("Double Generala"), SecondAlike(), 2 * generala, None, "generala_doble", "doble"))
    return RuleSet(
        "generala", N_("Generala"), _DESCRIPTIONS["generala"], tuple(boxes), yahtzee_box="generala",
        instant_win="generala" if o["instant_win"] == "yes" else None,
    )  # fmt: skip


_JOKER_TEXT = {"forced": N_("official Joker rule"), "free": N_("free Joker"), "none": N_("no Joker")}
_YAHTZEE_DESCRIPTION = N_("Yahtzee: 13 boxes, 35 upper bonus at 63, {bonus}, {joker}.")


def _english(text: str, /, **fields: object) -> str:
    return text.format(**fields)


def _yahtzee_description(o: dict[str, str], translate: bool = False) -> str:
    """Yahtzee's description for these options, in English (the data) or translated."""
    tr = _ if translate else _english
    bonus_text = N_("{points} per extra Yahtzee") if o["yahtzee_bonus"] != "0" else N_("no Yahtzee bonus")
    bonus = tr(bonus_text, points=o["yahtzee_bonus"])
    return tr(_YAHTZEE_DESCRIPTION, bonus=bonus, joker=tr(_JOKER_TEXT[o["joker"]]))


def describe(rules: RuleSet) -> str:
    """A rule set's description in the current language (the rule set keeps the English).

    >>> from fivedice import i18n, rules
    >>> with i18n.language("it"):
    ...     describe(rules.get("yahtzee", joker="free"))
    'Yahtzee: 13 caselle, bonus di 35 nella sezione superiore a 63, 100 per ogni Yahtzee in più, Joker libero.'
    """
    if rules.name == "yahtzee":
        options = {opt.name: opt.default for opt in BUILTINS["yahtzee"].options}
        options.update(rules.options)
        if _yahtzee_description(options) == rules.description:
            return _yahtzee_description(options, translate=True)
    return _(rules.description)


_DESCRIPTIONS = {
    "yahtzee": N_("Yahtzee: 13 boxes, 35 upper bonus at 63, 100 per extra Yahtzee, official Joker rule."),
    "yacht": N_("Yacht: the public-domain ancestor; 12 boxes, no bonuses, no Joker."),
    "yatzy": N_("Scandinavian Yatzy: 15 boxes with pairs, 50 upper bonus at 63."),
    "kismet": N_("Kismet: 15 boxes with coloured faces and a three-tier upper bonus."),
    "generala": N_("Generala: 10 boxes, extra points on the first roll, a served Generala wins at once."),
}

BUILTINS: dict[str, Builtin] = {
    b.name: b
    for b in (
        Builtin("yahtzee", _DESCRIPTIONS["yahtzee"], (
            Option("joker", ("forced", "free", "none"), N_("what five alike may do once the Yahtzee box is filled")),
            Option("yahtzee_bonus", ("100", "0"), N_("bonus per extra Yahtzee when the Yahtzee box holds 50")),
            Option("order", ("free", "upper_first", "top_down", "bottom_up"), N_("which open boxes may be filled")),
            Option("cards", ("1", "jetsi"), N_("jetsi: three cards at once (free, top-down, bottom-up), 39 rounds")),
        ), _yahtzee, excludes=(("cards", "jetsi", "order"),)),
        Builtin("yacht", _DESCRIPTIONS["yacht"], (
            Option("four_kind", ("all_dice", "four_dice"), N_("Four of a Kind counts all five dice or the four alike")),
        ), _yacht),
        Builtin("yatzy", _DESCRIPTIONS["yatzy"], (
            Option("forced", _BOOL, N_("fill the card top to bottom (tvangsyatzy)")),
            Option("full_house_five_alike", _BOOL, N_("five alike also counts as a Full House")),
        ), _yatzy),
        Builtin("kismet", _DESCRIPTIONS["kismet"], (
            Option("tali", _BOOL, N_("GNOME Tali's version: Straight 40, five alike is any Full House")),
            Option("second_kismet", _BOOL,
                   N_("a second Kismet puts a zero in every other player's topmost open box")),
            Option("start", ("all_dice", "one_die"), N_("who starts: the highest roll of all five dice or of one die")),
        ), _kismet),
        Builtin("generala", _DESCRIPTIONS["generala"], (
            Option("generala_points", ("50", "60"), N_("points for a Generala")),
            Option("served_bonus", ("5", "10"),
                   N_("extra points for a Straight, Full or Poker made on the first roll")),
            Option("instant_win", ("yes", "no"), N_("five alike on a turn's first roll, scored as Generala, wins")),
            Option("ace_straight", _BOOL, N_("3-4-5-6-1 is a Straight too")),
            Option("double_generala", _BOOL,
                   N_("an 11th box, Double Generala: five alike again, after a Generala, score twice its points")),
        ), _generala),
    )
}  # fmt: skip
"""Every built-in rule set by name."""

_ALIASES = {"yes": ("true", "on", "1"), "no": ("false", "off", "0"), "top_down": ("ordered", "obbligata")}


def resolve_options(builtin: Builtin, given: dict[str, object]) -> dict[str, str]:
    """Check options against ``builtin`` and fill in defaults; raise on an unknown one."""
    known = {o.name: o for o in builtin.options}
    chosen = {o.name: o.default for o in builtin.options}
    for key, value in given.items():
        option = known.get(key.strip().lower().replace("-", "_"))
        if option is None:
            names = ", ".join(known) or _("none")
            raise RuleSetError(
                _(
                    "Option {key!r} is not an option of {rules}; expected one of: {names}.",
                    key=key,
                    rules=builtin.name,
                    names=names,
                )
            )
        text = (
            str(value).strip().lower().replace("-", "_") if not isinstance(value, bool) else ("yes" if value else "no")
        )
        for canonical, aliases in _ALIASES.items():
            if text in aliases and canonical in option.choices:
                text = canonical
        if text not in option.choices:
            raise RuleSetError(
                _(
                    "Option {option}={value!r} is not valid for {rules}; expected one of: {choices}.",
                    option=option.name,
                    value=value,
                    rules=builtin.name,
                    choices=", ".join(option.choices),
                )
            )
        chosen[option.name] = text
    defaults = {o.name: o.default for o in builtin.options}
    for name, value, other in builtin.excludes:
        if chosen[name] == value and chosen[other] != defaults[other]:
            raise RuleSetError(
                _(
                    "Option {other}={chosen!r} cannot go with {option}={value!r}, which sets it itself; "
                    "drop one of them.",
                    other=other,
                    chosen=chosen[other],
                    option=name,
                    value=value,
                )
            )
    return chosen
