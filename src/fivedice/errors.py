"""Errors raised by fivedice.

Every error is a :class:`FiveDiceError`, itself a :class:`ValueError`, and carries a
one-sentence message naming the offending value and what was expected.
"""

from __future__ import annotations

__all__ = [
    "DiceError",
    "FiveDiceError",
    "IllegalActionError",
    "NotationError",
    "RuleSetError",
    "SaveError",
    "SaveFormatError",
]


class FiveDiceError(ValueError):
    """Base class of every error fivedice raises on bad input."""


class RuleSetError(FiveDiceError):
    """An unknown rule set, box or option, or an invalid rule-set definition."""


class DiceError(FiveDiceError):
    """Dice values that are out of range or of the wrong count."""


class IllegalActionError(FiveDiceError):
    """An action that the rules do not allow in the current state."""


class NotationError(FiveDiceError):
    """A move-log entry that cannot be parsed."""


class SaveFormatError(FiveDiceError):
    """A saved game that is damaged, tampered with or of an unknown format."""


class SaveError(FiveDiceError, OSError):
    """A game that cannot be written: a missing folder, a folder given as the file, no permission.

    Also an :class:`OSError` carrying the system's ``errno`` and ``strerror``, for callers that
    catch those around file writes; ``str()`` is the one-sentence message."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""
