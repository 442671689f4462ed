"""Dice values: a small immutable :class:`Dice` and helpers over dice multisets.

>>> d = Dice((3, 1, 3, 6, 5))
>>> d.counts
(1, 0, 2, 0, 1, 1)
>>> d.total
18
>>> str(d)
'3 1 3 6 5'
>>> len(multisets(5))
252
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Protocol, runtime_checkable

from fivedice.errors import DiceError
from fivedice.i18n import _, ngettext

__all__ = [
    "FACES",
    "Dice",
    "DiceRoller",
    "RandomRoller",
    "count_error",
    "counts_of",
    "make_roller",
    "multisets",
    "parse_dice",
]

FACES = 6
"""Every die in fivedice has six faces, numbered 1 to 6."""


def counts_of(values: Iterable[int]) -> tuple[int, ...]:
    """How many dice show each face, as a 6-tuple indexed by ``face - 1``.

    >>> counts_of([6, 6, 1])
    (1, 0, 0, 0, 0, 2)
    """
    counts = [0] * FACES
    for v in values:
        counts[v - 1] += 1
    return tuple(counts)


@cache
def multisets(n: int) -> tuple[tuple[int, ...], ...]:
    """Every multiset of ``n`` dice as a sorted tuple, in lexicographic order."""
    return tuple(itertools.combinations_with_replacement(range(1, FACES + 1), n))


@dataclass(frozen=True, slots=True)
class Dice:
    """The faces showing on a set of dice, in die order (die 1 first)."""

    values: tuple[int, ...]

    def __post_init__(self) -> None:
        values = self.values
        if not isinstance(values, tuple):
            object.__setattr__(self, "values", values := tuple(values))
        for v in values:
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= FACES:
                raise DiceError(_("Die value {value!r} is not a whole number from 1 to {faces}.", value=v, faces=FACES))

    @property
    def counts(self) -> tuple[int, ...]:
        """How many dice show each face (index ``face - 1``)."""
        return counts_of(self.values)

    @property
    def total(self) -> int:
        """The sum of all the dice."""
        return sum(self.values)

    @property
    def sorted(self) -> tuple[int, ...]:
        """The values in ascending order (the multiset)."""
        return tuple(sorted(self.values))

    def __len__(self) -> int:
        return len(self.values)

    def __iter__(self) -> Iterator[int]:
        return iter(self.values)

    def __str__(self) -> str:
        return " ".join(map(str, self.values))


def parse_dice(text: str | Sequence[int | str], n: int | None = 5) -> Dice:
    """Parse dice from ``"3 3 5 1 6"``, ``"33516"``, ``"3,3,5,1,6"`` or a sequence.

    >>> parse_dice("4-4-4-4-1").values
    (4, 4, 4, 4, 1)
    >>> parse_dice("44441").values
    (4, 4, 4, 4, 1)
    """
    if isinstance(text, str):
        raw = text.replace(",", " ").replace("-", " ").split()
        if len(raw) == 1 and len(raw[0]) > 1:
            raw = list(raw[0])
        items: Sequence[int | str] = raw
    else:
        items = text
    values: list[int] = []
    for item in items:
        try:
            values.append(int(item))
        except (TypeError, ValueError):
            raise DiceError(
                _("Die value {value!r} is not a whole number from 1 to {faces}.", value=item, faces=FACES)
            ) from None
    if n is not None and len(values) != n:
        shown = " ".join(map(str, values)) or _("nothing")
        raise DiceError(count_error(shown, len(values), n))
    return Dice(tuple(values))


def count_error(dice: str, count: int, n: int) -> str:
    """The sentence for ``count`` dice given where ``n`` are expected."""
    return ngettext(
        "Dice {dice!r}: {count} value given; expected exactly {n}.",
        "Dice {dice!r}: {count} values given; expected exactly {n}.",
        count,
        dice=dice,
        count=count,
        n=n,
    )


@runtime_checkable
class DiceRoller(Protocol):
    """Anything that rolls ``n`` dice and returns their faces."""

    def roll(self, n: int) -> tuple[int, ...]:
        """Roll ``n`` dice."""
        ...


class RandomRoller:
    """Rolls dice from an injected ``random.Random`` or ``numpy.random.Generator``."""

    __slots__ = ("rng",)

    def __init__(self, rng: object) -> None:
        self.rng = rng

    def roll(self, n: int) -> tuple[int, ...]:
        """Roll ``n`` dice."""
        rng = self.rng
        if isinstance(rng, random.Random):
            return tuple(rng.randint(1, FACES) for _i in range(n))
        integers = getattr(rng, "integers", None)
        if integers is None:
            raise TypeError(f"{rng!r} is neither a random.Random nor a numpy Generator.")
        return tuple(int(v) for v in integers(1, FACES + 1, size=n))


def make_roller(rng: object = None, seed: int | None = None) -> DiceRoller:
    """A roller from a ``DiceRoller``, a ``random.Random``, a numpy ``Generator`` or a seed."""
    if isinstance(rng, DiceRoller):
        return rng
    if rng is None:
        return RandomRoller(random.Random(seed))
    return RandomRoller(rng)
