"""The dice tape: chance drawn once and written down, so that undo can never re-roll luck.

For every turn (seat, round) and roll number the tape holds one value per die position, drawn
the first time that position is rolled (from the table's generator, or from a challenge code)
and never again. A roll that rerolls positions ``P`` shows the tape's values at ``P``, so after
any undo and redo the same roll of the same turn shows the same dice, and the same choices always
meet the same dice.

>>> import random
>>> from fivedice.dice import RandomRoller
>>> tape = DiceTape(5, RandomRoller(random.Random(1)))
>>> key = TapeKey(seat=0, round=1, roll=1)
>>> first = tape.draw(key, (0, 1, 2, 3, 4))
>>> tape.draw(key, (0, 1, 2, 3, 4)) == first
True
>>> tape.draw(key, (3,)) == (first[3],)
True

A challenge's tape depends only on the code, the rule set, the round, the roll and the position,
never on the seat, so every player of a challenge meets the same dice. Without a ``key`` the dice
follow from the code alone (anyone can work them out: fine among friends); a server seals the
challenges it hosts with its own secret key, so nobody can compute their dice offline:

>>> c = ChallengeDice("2026-12-01", "yahtzee")
>>> c.value(TapeKey(0, 1, 1), 0) == c.value(TapeKey(3, 1, 1), 0)
True
>>> sealed = ChallengeDice("2026-12-01", "yahtzee", key=b"server secret")
>>> [sealed.value(TapeKey(0, 1, 1), p) for p in range(5)] != [c.value(TapeKey(0, 1, 1), p) for p in range(5)]
True
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from fivedice.dice import FACES, DiceRoller
from fivedice.errors import IllegalActionError, SaveFormatError
from fivedice.i18n import _

__all__ = ["ChallengeDice", "DiceTape", "TapeConflictError", "TapeKey"]


class TapeConflictError(IllegalActionError):
    """Dice given for a roll disagree with the dice already seen for it."""


@dataclass(frozen=True, slots=True, order=True)
class TapeKey:
    """One roll of one turn: ``seat``, its ``round`` (1-based) and the ``roll`` number (1-based).

    Roll-off rolls use ``round=0`` and the roll-off attempt as ``roll`` (1-based)."""

    seat: int
    round: int
    roll: int


class ChallengeDice:
    """The dice of a challenge: a die's value depends only on (code, rule set, round, roll, position),
    and on ``key`` where a server seals its challenges (an HMAC under its secret instead of a plain hash).

    Roll-offs also depend on the seat (so that players can differ there)."""

    __slots__ = ("code", "key", "spec")

    def __init__(self, code: str, spec: str, key: bytes | None = None) -> None:
        self.code = code
        self.spec = spec
        self.key = key

    def value(self, key: TapeKey, position: int) -> int:
        """The face at ``position`` for the roll ``key``."""
        seat = key.seat if key.round == 0 else "*"
        text = f"fivedice-challenge|{self.code}|{self.spec}|{seat}|{key.round}|{key.roll}|{position}"
        if self.key is not None:
            digest = hmac.new(self.key, text.encode(), hashlib.sha256).digest()
        else:
            digest = hashlib.sha256(text.encode()).digest()
        return int.from_bytes(digest[:8], "big") % FACES + 1


class DiceTape:
    """The values drawn so far, by roll and position; new ones from ``challenge`` or ``roller``."""

    def __init__(self, dice: int, roller: DiceRoller | None = None, challenge: ChallengeDice | None = None) -> None:
        self.dice = dice
        self.roller = roller
        self.challenge = challenge
        self._rolls: dict[TapeKey, list[int]] = {}

    def __len__(self) -> int:
        return len(self._rolls)

    def __iter__(self) -> Iterator[TapeKey]:
        return iter(sorted(self._rolls))

    def known(self, key: TapeKey) -> tuple[int, ...]:
        """The values seen so far for ``key``, by position (0 where a position was never rolled)."""
        return tuple(self._rolls.get(key, [0] * self.dice))

    def missing(self, key: TapeKey, positions: Iterable[int]) -> tuple[int, ...]:
        """Which of ``positions`` have no value on the tape yet (physical dice must be typed for these)."""
        have = self._rolls.get(key)
        return tuple(p for p in positions if have is None or not have[p])

    def draw(self, key: TapeKey, positions: Sequence[int]) -> tuple[int, ...]:
        """The values at ``positions`` for the roll ``key``, drawing (once) the ones not seen yet."""
        values = self._rolls.setdefault(key, [0] * self.dice)
        missing = [p for p in positions if not values[p]]
        if missing:
            if self.challenge is not None:
                drawn: Sequence[int] = [self.challenge.value(key, p) for p in missing]
            elif self.roller is not None:
                drawn = self.roller.roll(len(missing))
            else:
                raise TapeConflictError(_("These dice were never rolled and no dice generator was given."))
            for p, v in zip(missing, drawn, strict=True):
                values[p] = v
        return tuple(values[p] for p in positions)

    def check(self, key: TapeKey, positions: Sequence[int], faces: Sequence[int]) -> str | None:
        """Why writing ``faces`` at ``positions`` would contradict the tape (a sentence), or None."""
        have = self._rolls.get(key)
        if have is None and self.challenge is None:
            return None
        for p, v in zip(positions, faces, strict=True):
            seen = have[p] if have is not None else 0
            if not seen and self.challenge is not None:
                seen = self.challenge.value(key, p)
            if seen and seen != v:
                return _(
                    "Die {die} showed {seen} on this roll before; it cannot show {value} now.",
                    die=p + 1,
                    seen=seen,
                    value=v,
                )
        return None

    def write(self, key: TapeKey, positions: Sequence[int], faces: Sequence[int]) -> None:
        """Note values seen at ``positions`` (physical dice, or a replayed record); raises if they contradict."""
        reason = self.check(key, positions, faces)
        if reason is not None:
            raise TapeConflictError(reason)
        values = self._rolls.setdefault(key, [0] * self.dice)
        for p, v in zip(positions, faces, strict=True):
            values[p] = v

    # -- saving -------------------------------------------------------------------------
    def to_data(self) -> list[list[Any]]:
        """JSON form: ``[seat, round, roll, "v1v2v3v4v5"]`` per roll, 0 for a position never rolled.

        A challenge's tape is derived from its code, so only the rolls seen are kept either way."""
        return [[k.seat, k.round, k.roll, "".join(map(str, self._rolls[k]))] for k in self]

    def load(self, data: object) -> None:
        """Add the rolls of :meth:`to_data` (checked against what the tape holds)."""
        if not isinstance(data, list):
            raise SaveFormatError(_("The saved dice tape is not a list."))
        for item in data:
            if (
                not isinstance(item, list)
                or len(item) != 4
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in item[:3])
                or not isinstance(item[3], str)
                or len(item[3]) != self.dice
                or not all(c in "0123456" for c in item[3])
            ):
                raise SaveFormatError(_("Dice tape entry {entry!r} is not [seat, round, roll, dice].", entry=item))
            key = TapeKey(item[0], item[1], item[2])
            positions = [p for p, c in enumerate(item[3]) if c != "0"]
            try:
                self.write(key, positions, [int(item[3][p]) for p in positions])
            except TapeConflictError as exc:
                raise SaveFormatError(str(exc)) from None
