"""Challenges: every player of a challenge meets the same dice (duplicate play, as in bridge).

A challenge is a code (a date, ``daily`` for today's, or any word); with the rule set it fixes
the dice tape (see :mod:`fivedice.tape`): the dice depend only on the code, the rule set, the
round, the roll number and the positions rerolled. So every first roll of every round is the same
for every player, the same choices always meet the same dice, and what the optimal player made of
the same dice is the optimal strategy replayed on the same tape.

>>> challenge_code("  Friday Night ")
'friday night'
>>> len(challenge_code("daily")) == 10
True
"""

from __future__ import annotations

import unicodedata
from datetime import date

from fivedice.errors import FiveDiceError
from fivedice.i18n import _

__all__ = ["DAILY", "ChallengeError", "challenge_code"]

DAILY = "daily"
"""The code that stands for today's challenge (the local date, ``YYYY-MM-DD``)."""

MAX_LENGTH = 64


class ChallengeError(FiveDiceError):
    """A challenge code that cannot be used."""


def challenge_code(text: str, today: date | None = None) -> str:
    """The canonical form of a challenge code: ``daily`` becomes today's date; other codes are
    trimmed, spaces collapsed, Unicode-normalised and case-folded (``Friday`` and ``friday`` are one)."""
    code = " ".join(unicodedata.normalize("NFC", text).split()).casefold()
    if code == DAILY:
        return (today or date.today()).isoformat()
    if not code or len(code) > MAX_LENGTH or not code.isprintable():
        raise ChallengeError(
            _(
                "Challenge code {code!r} is not usable; expected a word or date of 1 to {most} printable characters.",
                code=text[:80],
                most=MAX_LENGTH,
            )
        )
    return code
