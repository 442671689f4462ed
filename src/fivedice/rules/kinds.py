"""Box kinds: what a box needs (``qualifies``) and which dice it counts (``matched``).

A kind is a small frozen value; a box pairs a kind with a :class:`Points` rule. All
functions take the dice as face counts (``counts[f - 1]`` dice show face ``f``).

>>> FullHouse().qualifies((0, 0, 3, 0, 2, 0))
True
>>> Straight.of_length(4).qualifies((1, 1, 1, 1, 0, 1))
True
>>> OfAKind(4).matched((0, 0, 0, 4, 0, 1))
16
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from fivedice.dice import FACES
from fivedice.errors import RuleSetError
from fivedice.i18n import _, ngettext

__all__ = [
    "KINDS",
    "KISMET_COLOURS",
    "AllAlike",
    "Chance",
    "Face",
    "Flush",
    "FullHouse",
    "Kind",
    "OfAKind",
    "Pair",
    "Points",
    "SecondAlike",
    "Straight",
    "TwoPair",
    "kind_from_data",
]

KISMET_COLOURS: tuple[int, ...] = (0, 1, 2, 2, 1, 0)
"""Kismet's die colours by face: 1 and 6 black (0), 2 and 5 red (1), 3 and 4 green (2)."""


def _total(counts: tuple[int, ...]) -> int:
    return sum(c * f for f, c in enumerate(counts, 1))


@dataclass(frozen=True, slots=True)
class Points:
    """How a qualifying box scores: ``fixed`` points, the ``sum`` of all dice, or the
    sum of the ``matched`` dice, plus ``bonus``; ``first_roll`` (if set) replaces the
    fixed value when the dice were made on the turn's first roll.

    >>> Points.parse("sum+15").of(20, 9, roll=2)
    35
    >>> Points.parse("20", first_roll=25).of(17, 17, roll=1)
    25
    """

    base: Literal["fixed", "sum", "matched"]
    value: int = 0
    first_roll: int | None = None

    def of(self, total: int, matched: int, roll: int) -> int:
        """Points for dice with this ``total`` and ``matched`` sum, made on ``roll``."""
        if self.base == "fixed":
            if roll == 1 and self.first_roll is not None:
                return self.first_roll
            return self.value
        return (total if self.base == "sum" else matched) + self.value

    @classmethod
    def parse(cls, spec: str | int, first_roll: int | None = None) -> Points:
        """Read ``25``, ``"sum"``, ``"sum+15"``, ``"matched"`` or ``"matched+5"``."""
        if isinstance(spec, int) and not isinstance(spec, bool):
            return cls("fixed", spec, first_roll)
        text = str(spec).replace(" ", "").lower()
        base, sep, extra = text.partition("+")
        if text.isdigit():
            return cls("fixed", int(text), first_roll)
        if base not in ("sum", "matched") or (sep and not extra.isdigit()):
            raise RuleSetError(
                _(
                    "Points {spec!r} are not understood; expected a number, 'sum', 'sum+N', 'matched' or 'matched+N'.",
                    spec=spec,
                )
            )
        if first_roll is not None:
            raise RuleSetError(_("Points {spec!r} cannot have first-roll points; only fixed points can.", spec=spec))
        return cls("sum" if base == "sum" else "matched", int(extra or 0))

    def __str__(self) -> str:
        if self.base == "fixed":
            if self.first_roll is not None:
                return _("{points} ({first} on the first roll)", points=self.value, first=self.first_roll)
            return str(self.value)
        name = _("sum of all dice") if self.base == "sum" else _("sum of the matching dice")
        return f"{name} + {self.value}" if self.value else name


class Kind:
    """Base of box kinds; subclasses are frozen dataclasses."""

    __slots__ = ()
    kind: ClassVar[str]
    default_points: ClassVar[str] = "sum"

    def qualifies(self, counts: tuple[int, ...]) -> bool:
        """Whether dice with these face counts qualify for the box."""
        raise NotImplementedError

    def matched(self, counts: tuple[int, ...]) -> int:
        """The sum of the dice that make the combination (all dice unless overridden)."""
        return _total(counts)

    def needs(self) -> str:
        """What the box needs, in words."""
        raise NotImplementedError

    def to_data(self) -> dict[str, Any]:
        """The kind as plain data (the inverse of :func:`kind_from_data`)."""
        data: dict[str, Any] = {"kind": self.kind}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if value != f.default:
                data[f.name] = [list(v) for v in value] if f.name == "runs" else value
        return data


@dataclass(frozen=True, slots=True)
class Face(Kind):
    """An upper box: always qualifies, counts the dice showing ``face``."""

    kind: ClassVar[str] = "face"
    default_points: ClassVar[str] = "matched"
    face: int

    def __post_init__(self) -> None:
        if not 1 <= self.face <= FACES:
            raise RuleSetError(
                _("Face {face!r} is not a die face; expected 1 to {faces}.", face=self.face, faces=FACES)
            )

    def qualifies(self, counts: tuple[int, ...]) -> bool:
        return True

    def matched(self, counts: tuple[int, ...]) -> int:
        return counts[self.face - 1] * self.face

    def needs(self) -> str:
        return _("any dice; counts the {face}s", face=self.face)


@dataclass(frozen=True, slots=True)
class OfAKind(Kind):
    """At least ``n`` dice alike; ``matched`` is ``n`` times that face."""

    kind: ClassVar[str] = "of_a_kind"
    n: int

    def __post_init__(self) -> None:
        if self.n < 1:
            raise RuleSetError(_("Of-a-kind size {n!r} is not valid; expected 1 or more.", n=self.n))

    def qualifies(self, counts: tuple[int, ...]) -> bool:
        return max(counts) >= self.n

    def matched(self, counts: tuple[int, ...]) -> int:
        for face in range(FACES, 0, -1):
            if counts[face - 1] >= self.n:
                return self.n * face
        return 0

    def needs(self) -> str:
        return ngettext("at least {n} die alike", "at least {n} dice alike", self.n, n=self.n)


@dataclass(frozen=True, slots=True)
class AllAlike(Kind):
    """Every die alike (a Yahtzee, Yacht, Yatzy, Kismet or Generala)."""

    kind: ClassVar[str] = "all_alike"

    def qualifies(self, counts: tuple[int, ...]) -> bool:
        return sum(counts) > 0 and max(counts) == sum(counts)

    def needs(self) -> str:
        return _("all dice alike")


@dataclass(frozen=True, slots=True)
class SecondAlike(Kind):
    """Every die alike once more (Generala's Double Generala): it scores only while the rule set's first
    all-alike box (its ``yahtzee_box``) holds points, which the score card knows, so on its own (an empty
    card) it never qualifies; :class:`~fivedice.engine.scorecard.Scorecard` gives it its points."""

    kind: ClassVar[str] = "second_alike"

    def qualifies(self, counts: tuple[int, ...]) -> bool:
        return False

    def needs(self) -> str:
        return _("all dice alike once more, while the first box of all dice alike holds points")


@dataclass(frozen=True, slots=True)
class FullHouse(Kind):
    """Three of one face and two of another; ``five_alike`` lets five alike count too,
    ``same_colour`` requires both faces to share a colour."""

    kind: ClassVar[str] = "full_house"
    five_alike: bool = False
    same_colour: bool = False
    colours: tuple[int, ...] = KISMET_COLOURS

    def qualifies(self, counts: tuple[int, ...]) -> bool:
        if self.five_alike and 5 in counts:
            return True
        if sorted(c for c in counts if c) != [2, 3]:
            return False
        if self.same_colour:
            faces = [f for f, c in enumerate(counts) if c]
            return self.colours[faces[0]] == self.colours[faces[1]]
        return True

    def needs(self) -> str:
        if self.same_colour:
            text = _("three of one face and two of another, both faces of one colour")
        else:
            text = _("three of one face and two of another")
        return _("{needs} (five alike counts)", needs=text) if self.five_alike else text


@dataclass(frozen=True, slots=True)
class Straight(Kind):
    """The dice contain one of ``runs`` (each a tuple of consecutive faces)."""

    kind: ClassVar[str] = "straight"
    runs: tuple[tuple[int, ...], ...] = field(default=((1, 2, 3, 4, 5), (2, 3, 4, 5, 6)))

    def __post_init__(self) -> None:
        runs = tuple(tuple(int(f) for f in run) for run in self.runs)
        object.__setattr__(self, "runs", runs)
        if not runs or any(not run or not all(1 <= f <= FACES for f in run) for run in runs):
            raise RuleSetError(
                _("Straight runs {runs!r} are not valid; expected faces 1 to {faces}.", runs=self.runs, faces=FACES)
            )

    @classmethod
    def of_length(cls, length: int) -> Straight:
        """Any ``length`` consecutive faces."""
        if not 1 <= length <= FACES:
            raise RuleSetError(
                _("Straight length {length!r} is not valid; expected 1 to {faces}.", length=length, faces=FACES)
            )
        return cls(tuple(tuple(range(s, s + length)) for s in range(1, FACES - length + 2)))

    def qualifies(self, counts: tuple[int, ...]) -> bool:
        return any(all(counts[f - 1] for f in run) for run in self.runs)

    def needs(self) -> str:
        return _(" or ").join("-".join(map(str, run)) for run in self.runs)


@dataclass(frozen=True, slots=True)
class Pair(Kind):
    """At least two dice alike; ``matched`` is twice the highest such face."""

    kind: ClassVar[str] = "pair"
    default_points: ClassVar[str] = "matched"

    def qualifies(self, counts: tuple[int, ...]) -> bool:
        return max(counts) >= 2

    def matched(self, counts: tuple[int, ...]) -> int:
        return OfAKind(2).matched(counts)

    def needs(self) -> str:
        return _("at least two dice alike")


@dataclass(frozen=True, slots=True)
class TwoPair(Kind):
    """Two different faces each at least twice (``four_alike``: four alike counts too;
    ``same_colour``: both pairs' faces share a colour); ``matched`` is 2a + 2b."""

    kind: ClassVar[str] = "two_pair"
    default_points: ClassVar[str] = "matched"
    four_alike: bool = False
    same_colour: bool = False
    colours: tuple[int, ...] = KISMET_COLOURS

    def _pairs(self, counts: tuple[int, ...]) -> list[int] | None:
        faces = [f for f in range(FACES, 0, -1) if counts[f - 1] >= 2]
        if len(faces) >= 2:
            a, b = faces[0], faces[1]
            if self.same_colour and self.colours[a - 1] != self.colours[b - 1]:
                return None
            return [a, b]
        if self.four_alike and faces and counts[faces[0] - 1] >= 4:
            return [faces[0], faces[0]]
        return None

    def qualifies(self, counts: tuple[int, ...]) -> bool:
        return self._pairs(counts) is not None

    def matched(self, counts: tuple[int, ...]) -> int:
        pairs = self._pairs(counts)
        return 2 * sum(pairs) if pairs else 0

    def needs(self) -> str:
        text = _("two pairs whose faces share a colour") if self.same_colour else _("two pairs of different faces")
        return _("{needs} (four alike counts)", needs=text) if self.four_alike else text


@dataclass(frozen=True, slots=True)
class Flush(Kind):
    """Every die of one colour."""

    kind: ClassVar[str] = "flush"
    colours: tuple[int, ...] = KISMET_COLOURS

    def qualifies(self, counts: tuple[int, ...]) -> bool:
        return len({self.colours[f] for f, c in enumerate(counts) if c}) == 1

    def needs(self) -> str:
        return _("all dice one colour")


@dataclass(frozen=True, slots=True)
class Chance(Kind):
    """Always qualifies."""

    kind: ClassVar[str] = "chance"

    def qualifies(self, counts: tuple[int, ...]) -> bool:
        return True

    def needs(self) -> str:
        return _("any dice")


KINDS: dict[str, type[Kind]] = {
    k.kind: k for k in (Face, OfAKind, AllAlike, SecondAlike, FullHouse, Straight, Pair, TwoPair, Flush, Chance)
}
"""Every box kind by its name, for rule sets written as data (TOML)."""


def kind_from_data(data: dict[str, Any]) -> Kind:
    """Build a kind from ``{"kind": name, **parameters}``; ``length`` makes a straight."""
    params = dict(data)
    name = params.pop("kind", None)
    cls = KINDS.get(str(name))
    if cls is None:
        raise RuleSetError(
            _("Box kind {name!r} is unknown; expected one of: {kinds}.", name=name, kinds=", ".join(KINDS))
        )
    if cls is Straight and "length" in params:
        length = params.pop("length")
        if params:
            raise RuleSetError(_("Straight parameters {params} cannot go with 'length'.", params=sorted(params)))
        return Straight.of_length(int(length))
    for key in ("colours", "runs"):
        if key in params:
            value = params[key]
            params[key] = tuple(tuple(v) if isinstance(v, list) else v for v in value)
    try:
        return cls(**params)
    except TypeError:
        allowed = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
        raise RuleSetError(
            _(
                "Parameters {params} do not fit box kind {name!r}; expected some of {allowed}.",
                params=sorted(params),
                name=name,
                allowed=allowed,
            )
        ) from None
