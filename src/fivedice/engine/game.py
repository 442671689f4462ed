"""The mutable :class:`Game`: a thin holder of history over immutable states.

Each action is a trio, as in pokerkit: ``verify_x`` raises a one-sentence error,
``can_x`` answers yes or no, and ``x()`` does it and returns the frozen record it logged.

>>> import random
>>> from fivedice import Game
>>> game = Game("yacht", ["Ann"], rng=random.Random(7))
>>> game.roll()
Roll(held=(), dice=(3, 2, 4, 6, 1))
>>> game.score("ones")
Score(box='ones', card=0, points=1)
>>> game.undo()
Score(box='ones', card=0, points=1)
>>> game.state.dice
(3, 2, 4, 6, 1)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from fivedice.dice import DiceRoller, make_roller
from fivedice.engine.actions import Action, Roll, RollOff, Score
from fivedice.engine.state import GameState, Phase
from fivedice.errors import IllegalActionError
from fivedice.i18n import _, ngettext
from fivedice.rules import RuleSet, get

__all__ = ["Game"]


class Game:
    """A game in progress: the current state, the log of actions and a redo stack.

    ``rng`` may be a ``random.Random``, a numpy ``Generator`` or any object with
    ``roll(n)``; ``seed`` makes a fresh ``random.Random``. Dice given explicitly to
    :meth:`roll` (physical dice typed in at a real table) bypass the generator.
    """

    def __init__(
        self,
        rules: RuleSet | str,
        players: Sequence[str] = ("Player",),
        rng: object = None,
        *,
        seed: int | None = None,
        starter: int | None = None,
    ) -> None:
        self.rules = get(rules) if isinstance(rules, str) else rules
        self.roller: DiceRoller = make_roller(rng, seed)
        self._states: list[GameState] = [GameState.new(self.rules, tuple(players), starter)]
        self._log: list[Action] = []
        self._redo: list[Action] = []

    # -- reading ------------------------------------------------------------------------
    @property
    def state(self) -> GameState:
        """The current, immutable state."""
        return self._states[-1]

    @property
    def initial(self) -> GameState:
        """The state before the first action."""
        return self._states[0]

    @property
    def states(self) -> tuple[GameState, ...]:
        """Every state of the game line, the first before any action and the last the current one."""
        return tuple(self._states)

    @property
    def log(self) -> tuple[Action, ...]:
        """Every action taken, as completed records, oldest first."""
        return tuple(self._log)

    @property
    def players(self) -> tuple[str, ...]:
        """The players' names by seat."""
        return self.state.players

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.state.is_over

    # -- the action trios ---------------------------------------------------------------
    def _roll_intent(self, keep: Iterable[int], dice: Sequence[int] | None) -> Action:
        state = self.state
        full = None if dice is None else tuple(dice)
        if state.phase is Phase.ROLLOFF:
            held = tuple(keep)
            if held:
                raise IllegalActionError(_("Nothing can be kept in the roll-off; every die is rolled."))
            return RollOff(state.current, full)
        return Roll(tuple(sorted(keep)), full)

    def verify_roll(self, keep: Iterable[int] = (), dice: Sequence[int] | None = None) -> None:
        """Raise unless rolling now, keeping the dice at positions ``keep`` (0-based), is legal.

        ``dice`` optionally gives every die's face after the roll (physical dice)."""
        self.state.verify(self._roll_intent(keep, dice))

    def can_roll(self, keep: Iterable[int] = (), dice: Sequence[int] | None = None) -> bool:
        """Whether :meth:`roll` with these arguments is legal."""
        try:
            self.verify_roll(keep, dice)
        except IllegalActionError:
            return False
        return True

    def roll(self, keep: Iterable[int] = (), dice: Sequence[int] | None = None) -> Action:
        """Keep the dice at positions ``keep`` and roll the rest (or roll off, before the
        first turn); returns the logged record with the outcome."""
        return self.play(self._roll_intent(keep, dice))

    def verify_score(self, box: str, card: int = 0) -> None:
        """Raise unless filling ``box`` on ``card`` with the current dice is legal."""
        self.state.verify(Score(box, card))

    def can_score(self, box: str, card: int = 0) -> bool:
        """Whether :meth:`score` with these arguments is legal."""
        return self.state.can(Score(box, card))

    def score(self, box: str, card: int = 0) -> Action:
        """Fill ``box`` on ``card`` with the current dice; returns the logged record."""
        return self.play(Score(box, card))

    def keep_values(self, values: Sequence[int]) -> tuple[int, ...]:
        """Positions of the showing dice with these faces, for :meth:`roll`'s ``keep``."""
        return self.state.positions_of(list(values))

    # -- any action ---------------------------------------------------------------------
    def play(self, action: Action) -> Action:
        """Verify an intent or record, complete it (rolling dice as needed) and apply it.

        Nothing changes if it is illegal. Returns the logged record."""
        state, record = self.state.step(action, self.roller)
        self._states.append(state)
        self._log.append(record)
        self._redo.clear()
        return record

    def push(self, record: Action) -> None:
        """Apply a completed record (from a log) without touching the redo stack."""
        state = self.state
        self._states.append(state.apply(state.complete(record, None)))
        self._log.append(record)

    # -- history ------------------------------------------------------------------------
    @property
    def undoable(self) -> int:
        """How many actions can be undone."""
        return len(self._log)

    @property
    def redoable(self) -> int:
        """How many undone actions can be redone."""
        return len(self._redo)

    def can_undo(self) -> bool:
        """Whether :meth:`undo` can take anything back (a method returning a bool, as
        :meth:`Table.can_undo <fivedice.table.Table.can_undo>`)."""
        return bool(self._log)

    def can_redo(self) -> bool:
        """Whether :meth:`redo` has anything to replay."""
        return bool(self._redo)

    def undo(self, n: int = 1) -> Action:
        """Take back the last ``n`` actions; returns the last one taken back."""
        if not 1 <= n <= len(self._log):
            raise IllegalActionError(
                ngettext(
                    "Cannot undo {n} action; {count} can be undone.",
                    "Cannot undo {n} actions; {count} can be undone.",
                    n,
                    n=n,
                    count=len(self._log),
                )
            )
        for _i in range(n):
            self._states.pop()
            self._redo.append(self._log.pop())
        return self._redo[-1]

    def redo(self, n: int = 1) -> Action:
        """Replay the last ``n`` undone actions with their original outcomes."""
        if not 1 <= n <= len(self._redo):
            raise IllegalActionError(
                ngettext(
                    "Cannot redo {n} action; {count} can be redone.",
                    "Cannot redo {n} actions; {count} can be redone.",
                    n,
                    n=n,
                    count=len(self._redo),
                )
            )
        for _i in range(n):
            self.push(self._redo.pop())
        return self._log[-1]

    @property
    def redo_stack(self) -> tuple[Action, ...]:
        """Undone actions, the next to redo last."""
        return tuple(self._redo)

    def restore_redo(self, records: Sequence[Action]) -> None:
        """Set the redo stack (next to redo last), checking that every record replays."""
        pushed = 0
        try:
            for record in reversed(records):
                self.push(record)
                pushed += 1
        finally:
            for _i in range(pushed):
                self._states.pop()
                self._log.pop()
        self._redo = list(records)

    @classmethod
    def replay(
        cls,
        rules: RuleSet | str,
        players: Sequence[str],
        log: Iterable[Action],
        *,
        starter: int | None = None,
        rng: object = None,
    ) -> Game:
        """A game rebuilt by applying every record of ``log`` (each is verified)."""
        game = cls(rules, players, rng, starter=starter)
        for record in log:
            game.push(record)
        return game
