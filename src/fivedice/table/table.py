"""The :class:`Table`: one game at one table, the single controller every front end drives.

A table owns what sits around the rules: who plays each seat (a human here, a human elsewhere, a
computer of some level), the automations (the roll-off, each turn's first roll, computer turns
stepped one action at a time so a view can pace them), the dice tape (chance drawn once and
written down), the one undo policy, hints, and the events of the game as language-neutral
records. The plain mode, the terminal game and the web only show what the table says and pass on
what their player asks; none of them decides a rule, rolls dice or plays a computer turn itself.

**Undo takes back decisions, never chance.** Every roll takes its dice from the tape, so after any
sequence of undo and redo the same roll of the same turn shows the same dice. The policy:
in solitaire any decision can be taken back; with several players (and in a challenge) a player
may take back their own last score until the next roll is seen. Each undo is counted
(:attr:`Table.undos`), saved with the game and shown in the high scores.

>>> t = Table("yacht", ["Ann"], seed=7)
>>> t.run_automatic()              # the first roll is made for the player
[Roll(held=(), dice=(3, 2, 4, 6, 1))]
>>> t.roll(keep=(3,))              # keep the 6, reroll the rest
Roll(held=(3,), dice=(1, 5, 1, 6, 3))
>>> t.undo()
(Roll(held=(3,), dice=(1, 5, 1, 6, 3)),)
>>> t.roll(keep=(0, 3))            # the same roll again: the tape gives the same dice where rerolled
Roll(held=(0, 3), dice=(3, 5, 1, 6, 3))
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from fivedice.dice import DiceRoller, make_roller, parse_dice
from fivedice.engine import saves
from fivedice.engine.actions import Action, Roll, RollOff, Score
from fivedice.engine.game import Game
from fivedice.engine.state import GameState, Phase
from fivedice.errors import FiveDiceError, IllegalActionError
from fivedice.i18n import _
from fivedice.players import Strategy, check_level
from fivedice.players import get as get_strategy
from fivedice.rules import RuleSet, get
from fivedice.services import chancejobs
from fivedice.services.advice import Advice, advise
from fivedice.table.events import Event, EventKind, StoodIn, events_for, undo_event
from fivedice.table.seat import Seat, parse_seats
from fivedice.table.steps import Automatic, By, GameOver, HumanTurn, Move, Prepare, StaleStateError, Step, Think
from fivedice.table.tape import ChallengeDice, DiceTape, TapeKey
from fivedice.table.undo import UndoPolicy, UndoRefusedError, default_policy, undo_count, why_not_undo

__all__ = ["BY", "By", "StaleStateError", "Table", "UndoPolicy", "UndoRefusedError", "default_policy"]

BY = tuple(By)
"""Who made an action (:class:`~fivedice.table.steps.By`): the seat's player, the table by itself, a computer
seat, or a computer standing in for a player whose time ran out."""


class Table:
    """A game with its seats, dice tape, undo policy, hints and events (see the module's text).

    ``seats`` are :class:`~fivedice.table.seat.Seat` values or entries like ``"Ann"`` and ``"Max:optimal"``.
    ``seed``/``rng`` feed the dice tape (a ``random.Random``, numpy ``Generator`` or ``DiceRoller``);
    ``challenge`` derives the tape from a code instead (sealed by ``challenge_key``, a server's secret, when
    given: see :class:`~fivedice.table.tape.ChallengeDice`). ``auto_first_roll`` makes each human turn's
    first roll by itself (see :meth:`automatic`).
    """

    def __init__(
        self,
        rules: RuleSet | str,
        seats: Sequence[Seat | str] | str = ("Player",),
        *,
        seed: int | None = None,
        rng: object = None,
        challenge: str | None = None,
        challenge_key: bytes | None = None,
        starter: int | None = None,
        undo: UndoPolicy | str | None = None,
        auto_first_roll: bool = True,
        game: Game | None = None,
    ) -> None:
        self.rules = get(rules) if isinstance(rules, str) else rules
        self.seats = _seats(seats)
        for seat in self.seats:
            if seat.is_computer:
                check_level(seat.level or "greedy", self.rules)
        self.seed = seed
        self.roller: DiceRoller = make_roller(rng, seed)
        self.challenge = challenge
        self.challenge_key = challenge_key
        """The secret that seals a server-hosted challenge's dice (never saved; None: the public tape)."""
        dice = ChallengeDice(challenge, self.rules.spec, challenge_key) if challenge is not None else None
        self.tape = DiceTape(self.rules.dice, self.roller, dice)
        names = [s.name for s in self.seats]
        if game is not None and game.players != tuple(names):
            raise FiveDiceError(_("The seats' names differ from the game's players."))
        first = game.initial.starter if game is not None else 0 if len(names) == 1 else starter
        self.game = Game(self.rules, names, self.roller, starter=first)
        self.policy = UndoPolicy(undo) if undo is not None else default_policy(len(self.seats), challenge)
        self.auto_first_roll = auto_first_roll
        self.undos = 0
        self.hints: list[tuple[int, int]] = []
        self.kept: tuple[int, ...] = ()
        """Dice positions (0-based) the player to move has set aside for the next roll: a view's selection,
        not a move, kept in the save so a resumed game shows them set aside still."""
        self.goal: int | None = None
        """A score the solitaire player plays to beat (their best): hints then carry each option's chance of it."""
        self.chances = True
        """Whether hints carry chances (to win, to beat :attr:`goal`) and prepare them; off, they show points only."""
        self.events: list[Event] = []
        self._listeners: list[Callable[[Event], None]] = []
        self._by: list[By] = []
        self._redo_by: list[By] = []
        self._strategies: dict[int, Strategy] = {}
        self._stand_in: Strategy | None = None
        if game is not None:
            self.adopt(game.log, game.redo_stack)

    def adopt(
        self,
        log: Sequence[Action],
        redo: Sequence[Action] = (),
        by: Sequence[By | str] | None = None,
        redo_by: Sequence[By | str] | None = None,
    ) -> None:
        """Replay completed records (a saved or stored game line, and its redo stack, next to redo last)
        onto this fresh table, writing their dice on the tape; raises if any record is illegal or
        contradicts the tape. No events are emitted."""
        if self.game.log or self.game.can_redo():
            raise FiveDiceError(_("Only a fresh table can take a game's records."))
        by = list(by) if by is not None else [By.SEAT] * len(log)
        redo_by = list(redo_by) if redo_by is not None else [By.SEAT] * len(redo)
        if len(by) != len(log) or len(redo_by) != len(redo) or not set(by) | set(redo_by) <= set(BY):
            raise FiveDiceError(_("The actors of the records do not match the records."))
        actors, redo_actors = [By(b) for b in by], [By(b) for b in redo_by]
        for record in log:
            self._note_tape(record)
            self.game.push(record)
        probe = Game(self.rules, self.players, starter=self.game.initial.starter)
        for record in log:
            probe.push(record)
        for record in reversed(redo):
            self._note_tape(record, probe.state, probe.log)
            probe.push(record)
        self.game.restore_redo(redo)
        self._by, self._redo_by = actors, redo_actors

    # -- reading ------------------------------------------------------------------------
    @property
    def state(self) -> GameState:
        """The current, immutable state."""
        return self.game.state

    @property
    def players(self) -> tuple[str, ...]:
        """The players' names by seat."""
        return self.game.players

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.game.is_over

    @property
    def log(self) -> tuple[tuple[Action, By], ...]:
        """Every action of the game line, with who made it (one of :data:`BY`)."""
        return tuple(zip(self.game.log, self._by, strict=True))

    @property
    def solitaire(self) -> bool:
        """Whether one player plays alone."""
        return len(self.seats) == 1

    def seat(self, index: int | None = None) -> Seat:
        """The seat ``index`` (default: the one to act)."""
        return self.seats[self.state.current if index is None else index]

    @property
    def human_to_move(self) -> bool:
        """Whether a person (here or remote) is to decide the next action."""
        state = self.state
        return not state.is_over and self.automatic() is None and not self.seat().is_computer

    @property
    def computer_to_move(self) -> bool:
        """Whether the next action is a computer seat's (after any automatic action)."""
        state = self.state
        return not state.is_over and state.phase is Phase.PLAY and self.seat().is_computer

    # -- events -------------------------------------------------------------------------
    def listen(self, callback: Callable[[Event], None]) -> None:
        """Call ``callback`` with every new event (until :meth:`unlisten`)."""
        self._listeners.append(callback)

    def unlisten(self, callback: Callable[[Event], None]) -> None:
        """Stop calling ``callback`` (a view that goes away); nothing happens if it was not listening."""
        if callback in self._listeners:
            self._listeners.remove(callback)

    def _publish(self, events: Iterable[Event]) -> None:
        for event in events:
            self.events.append(event)
            for callback in self._listeners:
                callback(event)

    # -- the dice tape ------------------------------------------------------------------
    def tape_key(
        self, action: Roll | RollOff, state: GameState | None = None, log: Sequence[Action] | None = None
    ) -> TapeKey:
        """Where on the tape the dice of ``action`` are, made in ``state`` after ``log`` (default: now)."""
        state = state or self.state
        if isinstance(action, RollOff):
            done = sum(
                1 for r in (self.game.log if log is None else log) if isinstance(r, RollOff) and r.seat == action.seat
            )
            return TapeKey(action.seat, 0, done + 1)
        return TapeKey(state.current, state.round, state.rolls + 1)

    def _rerolled(self, action: Roll | RollOff) -> tuple[int, ...]:
        if isinstance(action, RollOff):
            return tuple(range(self.rules.starting_dice))
        return tuple(p for p in range(self.rules.dice) if p not in action.held)

    def dice_needed(self, keep: Iterable[int] = ()) -> int:
        """How many dice a roll keeping ``keep`` needs from outside (physical dice): those never seen."""
        intent = self._intent(keep)
        return len(self.tape.missing(self.tape_key(intent), self._rerolled(intent)))

    def _record(self, intent: Action, typed: Sequence[int] | None) -> Action:
        """The completed record of a verified intent: dice from the tape (typed ones written first)."""
        state = self.state
        if not isinstance(intent, Roll | RollOff):
            return state.complete(intent, None)
        key, rerolled = self.tape_key(intent), self._rerolled(intent)
        if intent.dice is not None:
            self._note_tape(intent)
            return intent
        if typed is not None:
            missing = self.tape.missing(key, rerolled)
            faces = parse_dice(list(typed), len(missing)).values
            self.tape.write(key, missing, faces)
        return state.complete(intent, self.tape.draw(key, rerolled))

    def _note_tape(self, record: Action, state: GameState | None = None, log: Sequence[Action] | None = None) -> None:
        """Write the dice of a completed record on the tape (raises if they contradict it)."""
        if isinstance(record, Roll | RollOff) and record.dice is not None:
            key, rerolled = self.tape_key(record, state, log), self._rerolled(record)
            self.tape.write(key, rerolled, [record.dice[p] for p in rerolled])

    # -- playing ------------------------------------------------------------------------
    def _intent(self, keep: Iterable[int]) -> Roll | RollOff:
        state = self.state
        held = tuple(sorted(keep))
        if state.phase is Phase.ROLLOFF:
            if held:
                raise IllegalActionError(_("Nothing can be kept in the roll-off; every die is rolled."))
            return RollOff(state.current)
        return Roll(held)

    def verify(self, action: Action) -> None:
        """Raise a one-sentence :class:`IllegalActionError` unless ``action`` is legal now."""
        self.state.verify(action)

    def can(self, action: Action) -> bool:
        """Whether ``action`` is legal now."""
        return self.state.can(action)

    def play(self, action: Action, by: By | str = By.SEAT, typed: Sequence[int] | None = None) -> Action:
        """Carry out an intent (or a completed record) for whoever is to act; returns the logged record.

        Dice come from the tape; ``typed`` gives the faces of physical dice for the positions the tape
        has never seen (:meth:`dice_needed`). Nothing changes if the action is illegal."""
        if by not in BY:
            raise FiveDiceError(_("Actor {by!r} is unknown; expected one of: {known}.", by=by, known=", ".join(BY)))
        by = By(by)
        before = self.state
        before.verify(action)
        record = self._record(action, typed)
        # the stand-in is announced once per turn: at its first action, not before each roll and score
        going_on = bool(self._by) and self._by[-1] is By.TIMER and isinstance(self.game.log[-1], Roll)
        self.game.play(record)
        self._by.append(by)
        self._redo_by.clear()
        events = events_for(before, record, self.state)
        if by is By.TIMER and not going_on:
            events.insert(0, StoodIn(seat=before.current, player=before.players[before.current]))
        self._publish(events)
        return record

    def verify_roll(self, keep: Iterable[int] = ()) -> None:
        """Raise unless rolling now, keeping the dice at positions ``keep`` (0-based), is legal."""
        self.verify(self._intent(keep))

    def can_roll(self, keep: Iterable[int] = ()) -> bool:
        """Whether :meth:`roll` with ``keep`` is legal now."""
        try:
            self.verify_roll(keep)
        except IllegalActionError:
            return False
        return True

    def roll(
        self, keep: Iterable[int] = (), typed: Sequence[int] | None = None, by: By | str = By.SEAT
    ) -> Roll | RollOff:
        """Keep the dice at positions ``keep`` (0-based) and roll the others (or roll off)."""
        record = self.play(self._intent(keep), by, typed)
        assert isinstance(record, Roll | RollOff)
        return record

    def verify_score(self, box: str, card: int = 0) -> None:
        """Raise unless filling ``box`` on ``card`` now is legal."""
        self.verify(Score(box, card))

    def can_score(self, box: str, card: int = 0) -> bool:
        """Whether :meth:`score` is legal now."""
        return self.can(Score(box, card))

    def score(self, box: str, card: int = 0, by: By | str = By.SEAT) -> Score:
        """Fill ``box`` on ``card`` with the dice showing."""
        record = self.play(Score(box, card), by)
        assert isinstance(record, Score)
        return record

    # -- automations --------------------------------------------------------------------
    def automatic(self) -> Action | None:
        """The action the table makes by itself next, if any: a roll-off roll, or a human turn's first
        roll (with ``auto_first_roll``, and not while the previous player may still take back a score)."""
        state = self.state
        if state.is_over:
            return None
        if state.phase is Phase.ROLLOFF:
            return RollOff(state.current)
        if state.dice is None and self.auto_first_roll and not self.seat().is_computer and not self._score_open():
            return Roll()
        return None

    def run_automatic(self) -> list[Action]:
        """Make every automatic action due now; returns their records."""
        done = []
        while (action := self.automatic()) is not None:
            done.append(self.play(action, By.AUTO))
        return done

    def strategy(self, seat: int) -> Strategy:
        """The computer player of ``seat``, made on first use (it may load the solver: call it in a worker)."""
        if seat not in self._strategies:
            level = self.seats[seat].level or "greedy"
            base = self.seed if self.seed is not None else _stable_seed(self.challenge)
            seed = None if base is None else base * 31 + seat
            self._strategies[seat] = get_strategy(level, self.rules, seed=seed)
        return self._strategies[seat]

    def computer_intent(self, state: GameState | None = None) -> Action:
        """What the computer to move would do in ``state`` (default now); may be slow, changes nothing."""
        state = state or self.state
        if state.is_over or not self.seats[state.current].is_computer:
            raise IllegalActionError(_("It is not a computer's turn."))
        return self.strategy(state.current).choose(state)

    def computer_preparation(self, state: GameState | None = None) -> chancejobs.Job | None:
        """The background preparation (:class:`fivedice.services.chancejobs.Job`) that the computer to move needs
        before it can choose (its level plays for chances: ``win``, ``target:T``), started now; None when
        it needs none or it is done. A view shows :func:`fivedice.services.chancejobs.describe` of it while waiting."""
        state = state or self.state
        seat = self.seats[state.current]
        wanted = chancejobs.for_level(seat.level or "", state) if seat.is_computer else None
        if wanted is None or chancejobs.ready(wanted):
            return None
        return chancejobs.start(wanted)

    STAND_IN = "greedy"
    """The level that plays a human's turn when their time runs out (where a front end has a timer)."""

    def stand_in_intent(self, state: GameState | None = None) -> Action:
        """What a stand-in computer (:attr:`STAND_IN`) would do for the human to move; play it with
        ``play(intent, by="timer")``."""
        state = state or self.state
        if state.is_over:
            raise IllegalActionError(_("The game is over; no more actions can be taken."))
        if self._stand_in is None:
            self._stand_in = get_strategy(self.STAND_IN, self.rules, seed=self.seed)
        return self._stand_in.choose(state)

    def play_computer(self, intent: Action | None = None, state: GameState | None = None) -> Action:
        """Play one action of the computer to move (``intent`` as chosen for ``state`` in a worker)."""
        if not self.computer_to_move:
            raise IllegalActionError(_("It is not a computer's turn."))
        state = state if state is not None else self.state
        return self.commit(Move(state, intent if intent is not None else self.computer_intent(), By.COMPUTER))

    # -- the step API (see fivedice.table.steps) ----------------------------------------
    def next_step(self, stand_in: bool = False) -> Step:
        """What happens next: a human to act, an automatic action, a preparation to wait for, a computer (or,
        with ``stand_in``, the stand-in for the person to act, whose time ran out) to think, or the end."""
        state = self.state
        if state.is_over:
            return GameOver(state)
        automatic = self.automatic()
        if automatic is not None:
            return Automatic(state, automatic)
        seat = state.current
        if self.computer_to_move:
            job = self.computer_preparation(state)
            return Prepare(state, seat, job) if job is not None else Think(state, seat, By.COMPUTER)
        if stand_in and not self.seats[seat].is_computer:
            return Think(state, seat, By.TIMER)
        return HumanTurn(state, seat)

    def think(self, step: Think) -> Action:
        """What the computer (or the stand-in) of ``step`` chooses in its state: pure (the table does not
        change) and maybe slow, so a front end calls it in a worker and then :meth:`commit` s it."""
        if step.by is By.TIMER:
            return self.stand_in_intent(step.state)
        return self.computer_intent(step.state)

    def commit(self, move: Move) -> Action:
        """Carry out ``move`` (chosen for ``move.state``); raises :class:`StaleStateError` if the game has
        moved on since (an undo, another player's action, a reload), changing nothing."""
        if move.state is not self.state:
            raise StaleStateError(_("The game moved on while the computer was thinking."))
        if move.by is By.COMPUTER and not self.computer_to_move:
            raise IllegalActionError(_("It is not a computer's turn."))
        return self.play(move.action, move.by)

    def advance(self) -> list[Action]:
        """Make every automatic action and play every computer action until a human is to act (or the end):
        the step API driven in place, without pacing or workers."""
        done = []
        while isinstance(step := self.next_step(), Automatic | Prepare | Think):
            if isinstance(step, Prepare):
                step.job.done.wait()
                continue
            action = step.action if isinstance(step, Automatic) else self.think(step)
            done.append(self.commit(Move(step.state, action, By.AUTO if isinstance(step, Automatic) else step.by)))
        return done

    # -- hints --------------------------------------------------------------------------
    def advice(self, state: GameState | None = None) -> Advice:
        """The advisor's ranked options for ``state`` (default now), with their chances to win or to beat
        :attr:`goal` once prepared (:meth:`chances_note`); may be slow, changes nothing."""
        return advise(state or self.state, self.goal if self.solitaire else None, chances=self.chances)

    def chances_note(self) -> str | None:
        """What to say beside the hints while their chances (to win, or to beat :attr:`goal`) are being
        prepared in the background (starting that), or None when there is nothing to wait for."""
        if not self.chances:
            return None
        return chancejobs.note(self.state, self.goal if self.solitaire else None)

    def hint(self, advice: Advice | None = None) -> Advice:
        """The advisor's options for the player to act, noted as a hint used by that seat; ``advice`` is
        :meth:`advice` already computed for the current state (in a view's worker)."""
        advice = advice if advice is not None else self.advice()
        self.hints.append((self.state.current, len(self.game.log)))
        return advice

    @property
    def hint_counts(self) -> dict[int, int]:
        """Hints used per seat, over the moves still in the game line."""
        moves = len(self.game.log)
        counts: dict[int, int] = {}
        for seat, move in self.hints:
            if move <= moves:
                counts[seat] = counts.get(seat, 0) + 1
        return counts

    # -- undo and redo ------------------------------------------------------------------
    def _score_open(self) -> bool:
        """Whether the last action is a human's score that may still be taken back (LAST_SCORE)."""
        return self.policy is UndoPolicy.LAST_SCORE and self._undo_count() > 0

    def _undo_count(self) -> int:
        """How many actions one undo pops (0 if nothing may be taken back)."""
        return undo_count(self.policy, self.game.log, self._by)

    def why_not_undo(self, seat: int | None = None) -> str | None:
        """Why :meth:`undo` (by ``seat``, if given) is not allowed now (a sentence), or None."""
        return why_not_undo(self.policy, self.game, self._by, seat)

    def can_undo(self, seat: int | None = None) -> bool:
        """Whether :meth:`undo` is allowed now."""
        return self.why_not_undo(seat) is None

    def undo(self, seat: int | None = None) -> tuple[Action, ...]:
        """Take back the last decision (and the automatic and computer actions after it); returns the
        records taken back, newest first. The dice stay on the tape: rolling again shows them again."""
        reason = self.why_not_undo(seat)
        if reason is not None:
            raise UndoRefusedError(reason)
        n = self._undo_count()
        states, bys = self.game.states[-n - 1 : -1], self._by[-n:]
        self.game.undo(n)
        undone = tuple(self.game.redo_stack[-n:])
        for _i in range(n):
            self._redo_by.append(self._by.pop())
        self.undos += 1
        for record, before, by in zip(reversed(undone), states, bys, strict=True):
            if by is By.SEAT:
                self._publish([undo_event(EventKind.UNDONE, before, record)])
        return undone

    def can_redo(self) -> bool:
        """Whether :meth:`redo` is allowed now."""
        return self.why_not_redo() is None

    def why_not_redo(self) -> str | None:
        """Why :meth:`redo` is not allowed now, or None."""
        if not self._redo_by:
            return _("There is nothing to redo.")
        return None

    def redo(self) -> tuple[Action, ...]:
        """Replay the next undone decision (and the automatic and computer actions after it) with the
        dice it had; returns the records replayed, oldest first."""
        reason = self.why_not_redo()
        if reason is not None:
            raise UndoRefusedError(reason)
        done = []
        while self._redo_by:
            before = self.state
            self.game.redo()
            by = self._redo_by.pop()
            self._by.append(by)
            record = self.game.log[-1]
            done.append(record)
            if by is By.SEAT:
                self._publish([undo_event(EventKind.REDONE, before, record)])
            if not self._redo_by or self._redo_by[-1] is By.SEAT:
                break
        return tuple(done)

    # -- saving -------------------------------------------------------------------------
    def to_data(self) -> dict[str, Any]:
        """The game as a standard save (every tool loads it) with the table's part under ``"table"``."""
        table = {
            "seats": [s.to_data() for s in self.seats],
            "by": list(self._by),
            "redo_by": list(self._redo_by),
            "tape": self.tape.to_data(),
            "undos": self.undos,
            "policy": self.policy.value,
            "challenge": self.challenge,
            "hints": [list(h) for h in self.hints],
            "sealed": self.challenge_key is not None,  # the key stays with the server: the tape holds every die seen
        }
        if self.kept:
            table["kept"] = list(self.kept)
        return saves.to_data(self.game, table=table)

    def save(self, path: Any) -> None:
        """Write :meth:`to_data` to ``path`` (atomically)."""
        saves.write(self.to_data(), path)

    @classmethod
    def from_data(cls, data: object, rng: object = None, auto_first_roll: bool = True) -> Table:
        """A table from :meth:`to_data` (or a plain game save, every seat human); everything is checked."""
        game = saves.from_data(data, rng)
        extra = data.get("table") if isinstance(data, dict) else None
        if extra is None:
            return cls(game.rules, list(game.players), rng=rng, game=game, auto_first_roll=auto_first_roll)
        from fivedice.table.loading import load_table  # the table's part of a save, checked

        return load_table(cls, game, extra, rng, auto_first_roll)

    @classmethod
    def load(cls, path: Any, rng: object = None, auto_first_roll: bool = True) -> Table:
        """Read a table saved by :meth:`save` (or any game save)."""
        return cls.from_data(saves.read(path), rng, auto_first_roll)


def _stable_seed(challenge: str | None) -> int | None:
    """A challenge's computers play the same way every time (their own randomness seeded by the code)."""
    if challenge is None:
        return None
    return int.from_bytes(hashlib.sha256(challenge.encode()).digest()[:6], "big")


def _seats(seats: Sequence[Seat | str] | str) -> tuple[Seat, ...]:
    if isinstance(seats, str):
        return parse_seats(seats)
    out: list[Seat] = []
    for s in seats:
        out.extend(parse_seats([s]) if isinstance(s, str) else [s])
    return tuple(out)
