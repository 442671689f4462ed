"""What happens when a seat's turn time runs out: the room's policy, chosen at creation and stored with its
settings, and the one small decision the turn timers act on.

A room's ``away`` setting is one of :class:`Away`: ``wait`` (the room waits and is told once), ``computer``
(a stand-in computer plays the late turn), or ``forfeit`` (the stand-in plays the late turn, and a seat
that has missed ``forfeit_after`` turns of the game forfeits: the stand-in plays its remaining turns at
once, and it ranks after every player who did not forfeit). The missed turns are counted from the game's
own log (the scores its stand-in made), so they survive a restart and agree between server processes. A
finished game's places (:func:`final_places`) rank such a seat after the others wherever the game is recorded.

>>> policy = TurnPolicy.of({"timer": 86400, "away": "forfeit", "forfeit_after": 2})
>>> [on_timeout(policy, missed) for missed in (0, 1, 2)]
[<Timeout.PLAY: 'play'>, <Timeout.FORFEIT: 'forfeit'>, <Timeout.PLAY: 'play'>]
>>> on_timeout(TurnPolicy.of({"timer": 60}), 5)
<Timeout.WAIT: 'wait'>
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from fivedice.engine.actions import Score
from fivedice.i18n import N_
from fivedice.table import Table

__all__ = [
    "FORFEIT_AFTER",
    "NOTICES",
    "TIMER_MAX",
    "TIMER_MIN",
    "Away",
    "Timeout",
    "TurnPolicy",
    "final_places",
    "forfeited",
    "missed_turns",
    "on_timeout",
]

TIMER_MIN = 5
"""The shortest turn a room may give, in seconds."""
TIMER_MAX = 7 * 86400
"""The longest turn a room may give, in seconds (seven days: a game played over a week of evenings)."""
FORFEIT_AFTER = (1, 20)
"""The range of missed turns after which a seat forfeits under the ``forfeit`` policy."""


class Away(StrEnum):
    """A room's policy for a turn whose time ran out."""

    WAIT = "wait"
    COMPUTER = "computer"
    FORFEIT = "forfeit"


class Timeout(StrEnum):
    """What the timers do with a seat whose time ran out."""

    WAIT = "wait"
    """Leave the turn to its player (the room is told once)."""
    PLAY = "play"
    """A stand-in computer plays the turn."""
    FORFEIT = "forfeit"
    """A stand-in plays the turn, and with it the seat has missed enough turns to forfeit (tell the room)."""


@dataclass(frozen=True, slots=True)
class TurnPolicy:
    """A room's turn timer (seconds, None for none) and its policy when the time runs out."""

    timer: int | None = None
    away: Away = Away.WAIT
    forfeit_after: int = 3

    @classmethod
    def of(cls, settings: Mapping[str, Any]) -> TurnPolicy:
        """The policy stored in a room's settings (rooms made before the policy existed: ``wait`` or ``computer``)."""
        away = str(settings.get("away"))
        return cls(
            timer=settings.get("timer") or None,
            away=Away(away) if away in tuple(Away) else Away.WAIT,
            forfeit_after=int(settings.get("forfeit_after") or 3),
        )


NOTICES = {
    Timeout.WAIT: N_("Time is up for {who}; the room waits for them."),
    Timeout.FORFEIT: N_("{who} missed too many turns and forfeits; the computer plays their remaining turns."),
}
"""What the room is told when a seat's time runs out (waited for: once per turn; forfeiting: once)."""


def on_timeout(policy: TurnPolicy, missed: int) -> Timeout:
    """What happens when a seat that has already missed ``missed`` turns of this game runs out of time."""
    if policy.away is Away.WAIT:
        return Timeout.WAIT
    if policy.away is Away.FORFEIT and missed + 1 == policy.forfeit_after:
        return Timeout.FORFEIT
    return Timeout.PLAY


def missed_turns(table: Table, seat: int) -> int:
    """How many turns of the game on ``table`` the stand-in scored for ``seat`` (its time had run out)."""
    states = table.game.states
    return sum(
        1
        for i, (action, by) in enumerate(table.log)
        if by == "timer" and isinstance(action, Score) and states[i].current == seat
    )


def forfeited(policy: TurnPolicy, table: Table | None, seat: int) -> bool:
    """Whether ``seat`` has forfeited the game on ``table`` under ``policy``."""
    return table is not None and policy.away is Away.FORFEIT and missed_turns(table, seat) >= policy.forfeit_after


def final_places(policy: TurnPolicy, table: Table) -> dict[int, int]:
    """Each seat's place in the finished game on ``table``, as the room ranks it and the high scores and
    profiles record it: the engine's, with the seats that forfeited under ``policy`` after every other player
    (the engine's order and ties kept within each group). A forfeit keeps its total, never a win."""
    standings = table.state.standings()
    out = {s.seat for s in standings if forfeited(policy, table, s.seat)}
    places: dict[int, int] = {}
    prev = None
    for n, s in enumerate(sorted(standings, key=lambda s: s.seat in out)):  # stable
        tied = prev is not None and (prev.seat in out) == (s.seat in out) and prev.place == s.place
        places[s.seat] = places[prev.seat] if tied and prev is not None else n + 1
        prev = s
    return places
