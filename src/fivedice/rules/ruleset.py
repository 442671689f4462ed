"""The :class:`RuleSet` value: a whole game's rules as validated, frozen data."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from typing import Any

from fivedice.dice import Dice, count_error, counts_of
from fivedice.errors import DiceError, RuleSetError
from fivedice.i18n import _, box_name, fold, ngettext
from fivedice.rules.kinds import AllAlike, Face, Kind, Points, SecondAlike, kind_from_data
from fivedice.rules.words import typed_names

__all__ = ["BonusTier", "Box", "FillOrder", "Joker", "RuleSet", "normalize_name"]


def normalize_name(name: str) -> str:
    """Box and rule-set names compare case-insensitively, with spaces, ``-`` and ``_`` alike, and
    punctuation ignored (the rule sources write ``Yahtzee!``).

    >>> normalize_name("Four of-a_Kind")
    'four_of_a_kind'
    >>> normalize_name("Yahtzee!")
    'yahtzee'
    """
    return "_".join(_PUNCTUATION.sub(" ", name).lower().replace("-", " ").replace("_", " ").split())


_PUNCTUATION = re.compile(r"[^\w\s-]")


SOLVER_MAX_BOXES = 20
"""The most boxes the exact solver handles (its states are subsets of the boxes)."""


class Joker(enum.Enum):
    """What five alike may do once the Yahtzee box is filled (RULES.md, VARIANTS.md)."""

    FORCED = "forced"
    """Official: matching upper box if open, else any lower box at full value, else a zero."""
    FREE = "free"
    """Any open box; lower fixed-value boxes at full value only if the matching upper box is filled."""
    NONE = "none"
    """No Joker: five alike score as ordinary dice."""


class FillOrder(enum.Enum):
    """Which open boxes of a card may be filled."""

    FREE = "free"
    UPPER_FIRST = "upper_first"
    TOP_DOWN = "top_down"
    BOTTOM_UP = "bottom_up"


@dataclass(frozen=True, slots=True)
class BonusTier:
    """An upper total of at least ``threshold`` earns ``points`` (the highest tier met counts)."""

    threshold: int
    points: int


@dataclass(frozen=True, slots=True)
class Box:
    """One box of a score card: its ``name`` (an identifier), display ``label``, section,
    what it needs (``kind``) and what it scores (``points``)."""

    name: str
    label: str
    section: str
    kind: Kind
    points: Points
    aliases: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if normalize_name(self.name) != self.name or not self.name:
            raise RuleSetError(_("Box name {name!r} is not an identifier like 'full_house'.", name=self.name))
        if self.section not in ("upper", "lower"):
            raise RuleSetError(
                _("Box section {section!r} is not valid; expected 'upper' or 'lower'.", section=self.section)
            )

    @property
    def face(self) -> int | None:
        """The face an upper box counts, or None."""
        return self.kind.face if isinstance(self.kind, Face) else None

    def score(self, counts: tuple[int, ...], roll: int = 3) -> int:
        """Points for dice with these face ``counts``, made on roll number ``roll``."""
        if not self.kind.qualifies(counts):
            return 0
        return self.points.of(sum(c * f for f, c in enumerate(counts, 1)), self.kind.matched(counts), roll)

    def full_value(self, counts: tuple[int, ...], roll: int = 3) -> int:
        """Points as if the dice qualified (what a Joker scores here)."""
        return self.points.of(sum(c * f for f, c in enumerate(counts, 1)), self.kind.matched(counts), roll)

    def describe(self) -> str:
        """``needs -> scores`` in words."""
        return _("{needs}; scores {points}", needs=self.kind.needs(), points=str(self.points))

    def to_data(self) -> dict[str, Any]:
        """The box as plain data, loadable by :func:`fivedice.rules.from_data`."""
        data = self.kind.to_data()
        data.update(name=self.name, label=self.label, section=self.section)
        p = self.points
        data["points"] = p.value if p.base == "fixed" else (p.base + (f"+{p.value}" if p.value else ""))
        if p.first_roll is not None:
            data["first_roll_points"] = p.first_roll
        if self.aliases:
            data["aliases"] = list(self.aliases)
        return data

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Box:
        """Build a box from plain data: ``name``, ``kind`` and its parameters, optional
        ``label``, ``section`` (upper for face boxes), ``points`` and ``first_roll_points``."""
        params = dict(data)
        try:
            name = normalize_name(str(params.pop("name")))
        except KeyError:
            raise RuleSetError(_("Box {data!r} has no 'name'.", data=data)) from None
        label = str(params.pop("label", name.replace("_", " ").title()))
        aliases = tuple(normalize_name(a) for a in params.pop("aliases", ()))
        points_spec = params.pop("points", None)
        first = params.pop("first_roll_points", None)
        section = params.pop("section", None)
        kind = kind_from_data(params)
        points = Points.parse(kind.default_points if points_spec is None else points_spec, first)
        section = section or ("upper" if isinstance(kind, Face) else "lower")
        return cls(name, label, str(section), kind, points, aliases)


@dataclass(frozen=True, slots=True)
class RuleSet:
    """A complete rule set. Every field is data; the engine and solver read only these.

    ``cards`` gives the fill order of each score card a player keeps (one for most
    games, three for Jetsi); ``yahtzee_box`` names the five-alike box that the Joker
    rule and the extra-Yahtzee bonus refer to; ``instant_win`` names a box that wins
    the game at once when scored with dice made on the turn's first roll. ``rolloff_dice`` is how many
    dice each player rolls to decide who starts (0: all of them; Kismet's card rolls one), and
    ``extra_alike_penalty`` makes a player who scores all dice alike while their ``yahtzee_box`` holds
    points cost every other player the topmost open box of their card (a zero; Kismet's second Kismet).
    """

    name: str
    title: str
    description: str
    boxes: tuple[Box, ...]
    upper_bonus: tuple[BonusTier, ...] = ()
    yahtzee_box: str | None = None
    yahtzee_bonus: int = 0
    joker: Joker = Joker.NONE
    cards: tuple[FillOrder, ...] = (FillOrder.FREE,)
    rolls: int = 3
    dice: int = 5
    instant_win: str | None = None
    rolloff_dice: int = 0
    extra_alike_penalty: bool = False
    options: tuple[tuple[str, str], ...] = ()
    _index: dict[str, int] = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)
    _upper: tuple[int, ...] = field(default=(), init=False, repr=False, compare=False, hash=False)
    _second: tuple[int, ...] = field(default=(), init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        if not self.boxes:
            raise RuleSetError(_("Rule set {name!r} has no boxes; expected at least one.", name=self.name))
        index: dict[str, int] = {}
        for i, box in enumerate(self.boxes):
            for key in (box.name, *box.aliases):
                if key in index:
                    raise RuleSetError(
                        _("Box name {key!r} appears twice in rule set {name!r}.", key=key, name=self.name)
                    )
                index[key] = i
        object.__setattr__(self, "_index", index)
        # asked for whenever a card's options are scored: worked out once
        object.__setattr__(self, "_upper", tuple(i for i, b in enumerate(self.boxes) if b.section == "upper"))
        object.__setattr__(
            self, "_second", tuple(i for i, b in enumerate(self.boxes) if isinstance(b.kind, SecondAlike))
        )
        for attr in ("yahtzee_box", "instant_win"):
            ref = getattr(self, attr)
            if ref is not None and ref not in index:
                raise RuleSetError(
                    _("{field} {ref!r} is not a box of rule set {name!r}.", field=attr, ref=ref, name=self.name)
                )
        if self.yahtzee_box is not None and not isinstance(self.box(self.yahtzee_box).kind, AllAlike):
            raise RuleSetError(_("yahtzee_box {box!r} must be an all-alike box.", box=self.yahtzee_box))
        needs_box = (
            self.joker is not Joker.NONE or self.yahtzee_bonus or self.extra_alike_penalty or self.second_indices
        )
        if needs_box and self.yahtzee_box is None:
            raise RuleSetError(
                _(
                    "Rule set {name!r} has a Joker rule, a Yahtzee bonus, a penalty for all dice alike or a "
                    "second-alike box but no yahtzee_box.",
                    name=self.name,
                )
            )
        thresholds = [t.threshold for t in self.upper_bonus]
        if thresholds != sorted(set(thresholds)):
            raise RuleSetError(
                _("Upper-bonus thresholds {thresholds} must be strictly increasing.", thresholds=thresholds)
            )
        if not self.cards:
            raise RuleSetError(_("Rule set {name!r} has no score cards; expected at least one.", name=self.name))
        if not 1 <= self.rolls <= 10:
            raise RuleSetError(_("Rolls per turn {rolls!r} is not valid; expected 1 to 10.", rolls=self.rolls))
        if not 1 <= self.dice <= 10:
            raise RuleSetError(_("Number of dice {dice!r} is not valid; expected 1 to 10.", dice=self.dice))
        if not 0 <= self.rolloff_dice <= self.dice:
            raise RuleSetError(
                _(
                    "Roll-off dice {count!r} is not valid; expected 0 (all dice) to {dice}.",
                    count=self.rolloff_dice,
                    dice=self.dice,
                )
            )

    # -- lookup -----------------------------------------------------------------------
    def box_index(self, name: str) -> int:
        """The position of a box on the card, by name or alias (case-insensitive)."""
        try:
            return self._index[normalize_name(name)]
        except KeyError:
            pass
        found = self._local_index(name)
        if found is not None:
            return found
        names = ", ".join(box_name(b) for b in self.boxes)
        raise RuleSetError(
            _(
                "Box {box!r} is not in the {rules} rule set; expected one of: {names}.",
                box=name,
                rules=self.name,
                names=names,
            )
        )

    def _local_index(self, name: str) -> int | None:
        """A box by its label in the current language, its English label or a name the rule
        sources of the current language give it (:mod:`fivedice.rules.words`; accents and case
        ignored), if only one box goes by that name."""
        key = fold(name)
        hits = {i for i, b in enumerate(self.boxes) if key in typed_names(b)}
        return hits.pop() if len(hits) == 1 else None

    def box(self, name: str) -> Box:
        """A box by name or alias (case-insensitive; spaces, ``-`` and ``_`` alike), or by the
        names players of the current language use (see :meth:`box_index`)."""
        return self.boxes[self.box_index(name)]

    def solver_refusal(self) -> str | None:
        """Why the exact solver cannot play this rule set (a sentence), or None: it handles one score card
        of at most :data:`SOLVER_MAX_BOXES` boxes. The one place this is decided."""
        if len(self.cards) != 1:
            return ngettext(
                "Rule set {rules!r} plays {cards} score card; the solver handles single-card rule sets.",
                "Rule set {rules!r} plays {cards} score cards; the solver handles single-card rule sets.",
                len(self.cards),
                rules=self.spec,
                cards=len(self.cards),
            )
        if len(self.boxes) > SOLVER_MAX_BOXES:
            return ngettext(
                "Rule set {rules!r} has {boxes} box; the solver handles up to {most}.",
                "Rule set {rules!r} has {boxes} boxes; the solver handles up to {most}.",
                len(self.boxes),
                rules=self.spec,
                boxes=len(self.boxes),
                most=SOLVER_MAX_BOXES,
            )
        return None

    @property
    def box_names(self) -> tuple[str, ...]:
        """The boxes' names in card order."""
        return tuple(b.name for b in self.boxes)

    @property
    def second_indices(self) -> tuple[int, ...]:
        """Positions of the boxes of all dice alike once more (:class:`~fivedice.rules.kinds.SecondAlike`)."""
        return self._second

    @property
    def starting_dice(self) -> int:
        """How many dice each player rolls to decide who starts."""
        return self.rolloff_dice or self.dice

    @property
    def rounds(self) -> int:
        """Turns each player takes: one per box on every card."""
        return len(self.boxes) * len(self.cards)

    @property
    def upper_indices(self) -> tuple[int, ...]:
        """Positions of the upper-section boxes."""
        return self._upper

    def face_box(self, face: int) -> int | None:
        """The position of the upper box that counts ``face``, or None."""
        for i, b in enumerate(self.boxes):
            if b.section == "upper" and b.face == face:
                return i
        return None

    def upper_bonus_for(self, upper_total: int) -> int:
        """The upper bonus an upper total earns.

        >>> from fivedice import rules
        >>> rules.get("kismet").upper_bonus_for(72)
        55
        """
        earned = 0
        for tier in self.upper_bonus:
            if upper_total >= tier.threshold:
                earned = tier.points
        return earned

    # -- scoring on an empty card -----------------------------------------------------
    def score(self, box: str, dice: Dice | tuple[int, ...] | list[int], roll: int = 3) -> int:
        """Points for ``dice`` in ``box`` on an empty card (no Joker), made on roll ``roll``.

        >>> from fivedice import rules
        >>> rules.get("yatzy").score("two pairs", (2, 2, 2, 5, 5))
        14
        """
        if not isinstance(dice, Dice):
            dice = Dice(tuple(dice))
        self.check_dice(dice)
        return self.box(box).score(counts_of(dice.values), roll)

    def check_dice(self, dice: Dice) -> None:
        """Raise unless there are exactly as many dice as the rule set uses."""
        if len(dice) != self.dice:
            raise DiceError(count_error(str(dice), len(dice), self.dice))

    @property
    def spec(self) -> str:
        """The rule set's name with its non-default options, e.g. ``yahtzee joker=free``."""
        return " ".join([self.name, *(f"{k}={v}" for k, v in self.options)])

    def to_data(self) -> dict[str, Any]:
        """The whole rule set as plain data (TOML/JSON friendly)."""
        data: dict[str, Any] = {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "rolls": self.rolls,
            "dice": self.dice,
            "cards": [c.value for c in self.cards],
            "joker": self.joker.value,
            "yahtzee_bonus": self.yahtzee_bonus,
            "upper_bonus": [[t.threshold, t.points] for t in self.upper_bonus],
            "boxes": [b.to_data() for b in self.boxes],
        }
        if self.yahtzee_box:
            data["yahtzee_box"] = self.yahtzee_box
        if self.instant_win:
            data["instant_win"] = self.instant_win
        if self.rolloff_dice:
            data["rolloff_dice"] = self.rolloff_dice
        if self.extra_alike_penalty:
            data["extra_alike_penalty"] = True
        if self.options:
            data["options"] = dict(self.options)
        return data
