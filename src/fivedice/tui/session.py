"""The terminal game's logic without any widget: seats, computer moves, hints, saves, the store.

A :class:`Session` wraps a :class:`~fivedice.game.Game` (which holds every bit of game state)
with what the terminal adds: which seats a computer plays and at what level, the hints asked
for, and where the game is saved. The solver, the computer players and the game analysis come
from their own packages when those are installed; until then a simple greedy player stands in
and hints say that they need the solver.
"""

from __future__ import annotations

import importlib
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from fivedice import saves
from fivedice.actions import Action, Roll, RollOff, Score
from fivedice.errors import FiveDiceError, SaveFormatError
from fivedice.game import Game
from fivedice.i18n import N_, _, box_label
from fivedice.rules import RuleSet
from fivedice.saves import saves_dir
from fivedice.seat import Seat
from fivedice.state import GameState, Phase

__all__ = [
    "FALLBACK_LEVELS",
    "Hint",
    "HintLine",
    "Seat",
    "Session",
    "Strategy",
    "computer_levels",
    "describe_action",
    "optional",
    "saves_dir",
]

SAVE_FORMAT = "fivedice-seats"
SAVE_VERSION = 1

FALLBACK_LEVELS = {
    "greedy": N_("takes the most points now, keeps the commonest face"),
    "random": N_("any legal move"),
}
"""Computer levels offered while ``fivedice.players`` is not installed."""


def optional(module: str, attr: str) -> Any:
    """``module.attr`` if that module is installed and has it, else None."""
    try:
        return getattr(importlib.import_module(module), attr, None)
    except ImportError:
        return None


class Strategy(Protocol):
    """A computer player: picks an intent for the current state."""

    def choose(self, state: GameState) -> Action:
        """The action to take now (an intent)."""
        ...


def computer_levels() -> dict[str, str]:
    """Computer levels by name with a one-line description (from ``fivedice.players`` if present)."""
    levels = optional("fivedice.players", "LEVELS")
    if isinstance(levels, dict) and levels:
        return {str(k): str(v) for k, v in levels.items()}
    return dict(FALLBACK_LEVELS)


class GreedyFallback:
    """Stand-in computer: scores the most points now, else keeps its commonest face and rolls."""

    def __init__(self, rules: RuleSet, seed: int | None = None, *, random_moves: bool = False) -> None:
        self.rules = rules
        self.rng = random.Random(seed)
        self.random_moves = random_moves

    def choose(self, state: GameState) -> Action:
        """The move this player makes in ``state``."""
        if state.phase is Phase.ROLLOFF:
            return RollOff(state.current)
        if state.dice is None:
            return Roll()
        if self.random_moves:
            return self.rng.choice(state.legal_actions())
        options = state.options()
        (card, box), points = max(options.items(), key=lambda kv: (kv[1], -self.rules.box_index(kv[0][1])))
        good = points >= 25 or (
            state.rules.box(box).section == "upper" and points >= 3 * (state.rules.box(box).face or 0)
        )
        if state.rolls_left > 0 and not good:
            counts = state.counts
            face = max(range(6, 0, -1), key=lambda f: counts[f - 1])
            held = tuple(p for p, v in enumerate(state.dice) if v == face)
            if len(held) < len(state.dice):
                return Roll(held)
        return Score(box, card)


def check_level(level: str, rules: RuleSet) -> None:
    """Raise unless ``level`` is a computer level that can play ``rules`` (cheap: builds nothing)."""
    levels = computer_levels()
    if level not in levels:
        raise FiveDiceError(
            _("Computer level {level!r} is unknown; expected one of: {levels}.", level=level, levels=", ".join(levels))
        )
    solver_levels = optional("fivedice.players", "SOLVER_LEVELS") or ()
    if level in solver_levels and len(rules.cards) > 1:
        raise FiveDiceError(
            _(
                "Computer level {level!r} needs the solver, which handles one-card rule sets; "
                "choose greedy, tali or random.",
                level=level,
            )
        )


def make_strategy(level: str, rules: RuleSet, seed: int | None = None) -> Strategy:
    """The computer player of ``level``: from ``fivedice.players`` when installed, else the fallback."""
    get = optional("fivedice.players", "get")
    if get is not None:
        try:
            strategy: Strategy = get(level, rules, seed=seed)
            return strategy
        except FiveDiceError:
            if level not in FALLBACK_LEVELS:
                raise
    if level not in FALLBACK_LEVELS:
        raise FiveDiceError(
            _(
                "Computer level {level!r} is unknown; expected one of: {levels}.",
                level=level,
                levels=", ".join(FALLBACK_LEVELS),
            )
        )
    return GreedyFallback(rules, seed, random_moves=level == "random")


@dataclass(frozen=True, slots=True)
class HintLine:
    """One ranked option of a hint: what to do, its expected value and loss against the best."""

    text: str
    value: float
    loss: float


@dataclass(frozen=True, slots=True)
class Hint:
    """A hint asked for by ``seat`` before move ``move`` (the log length), with its options."""

    seat: int
    move: int
    lines: tuple[HintLine, ...]

    def to_data(self) -> dict[str, Any]:
        """JSON form."""
        return {"seat": self.seat, "move": self.move, "lines": [[x.text, x.value, x.loss] for x in self.lines]}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Hint:
        """From :meth:`to_data`."""
        return cls(int(data["seat"]), int(data["move"]), tuple(HintLine(str(t), v, x) for t, v, x in data["lines"]))


def describe_action(rules: RuleSet, action: Action, dice: Sequence[int] | None = None) -> str:
    """A few words for an action: ``roll all``, ``keep 3 3 5``, ``score Chance``."""
    if isinstance(action, RollOff):
        return _("roll off")
    if isinstance(action, Roll):
        if not action.held or dice is None:
            return _("roll all")
        return _("keep {dice}", dice=" ".join(str(dice[p]) for p in action.held))
    box = box_label(rules.box(action.box))
    if len(rules.cards) > 1:
        return _("score {box} (card {card})", box=box, card=action.card + 1)
    return _("score {box}", box=box)


Advisor = Callable[[GameState], list[HintLine]]


_SOLVERS: dict[RuleSet, Any] = {}


def _solver(rules: RuleSet) -> Any:
    """The solver of ``rules``, loaded once per process (raises if there is none)."""
    if rules not in _SOLVERS:
        solve = optional("fivedice.solver", "solve")
        if solve is None:
            raise FiveDiceError(_("Hints need the solver (fivedice.solver), which is not installed."))
        if len(rules.cards) > 1:
            raise FiveDiceError(_("Hints are for single-card rule sets; this game has several cards."))
        _SOLVERS[rules] = solve(rules)
    return _SOLVERS[rules]


def solver_advisor(state: GameState) -> list[HintLine]:
    """The solver's ranked options for the current player: what to do, expected final score, loss."""
    if state.dice is None or state.phase is not Phase.PLAY:
        raise FiveDiceError(_("Roll first: hints are for the dice showing."))
    card = state.cards[state.current][0]
    options = _solver(state.rules).advise(card, state.dice, state.rolls_left)
    out = []
    for o in options:
        if o.action == "keep":
            text = _("keep {dice}", dice=" ".join(map(str, o.dice))) if o.dice else _("reroll all")
        else:
            text = _("score {box} ({points})", box=box_label(state.rules.box(o.box)), points=o.points)
        out.append(HintLine(text, float(o.value), float(o.loss)))
    return out


def greedy_reasoning(state: GameState) -> list[HintLine]:
    """Without a solver: the boxes open now and their points, best first."""
    if state.dice is None:
        return []
    options = sorted(state.options().items(), key=lambda kv: -kv[1])
    best = options[0][1] if options else 0
    return [
        HintLine(_("score {box}", box=box_label(state.rules.box(box))), float(p), float(best - p))
        for (_card, box), p in options
    ]


@dataclass
class Session:
    """A game in the terminal: the :class:`Game`, who plays each seat, hints and the save file."""

    game: Game
    seats: tuple[Seat, ...]
    hints: list[Hint] = field(default_factory=list)
    save_path: Path | None = None
    seed: int | None = None
    strategy_factory: Callable[[str, RuleSet, int | None], Strategy] = make_strategy
    advisor: Advisor = solver_advisor
    _strategies: dict[int, Strategy] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if len(self.seats) != len(self.game.players):
            raise FiveDiceError(
                _(
                    "{seats} seats were given for {players} players.",
                    seats=len(self.seats),
                    players=len(self.game.players),
                )
            )

    @classmethod
    def new(
        cls,
        rules: RuleSet,
        seats: Sequence[Seat],
        *,
        seed: int | None = None,
        rng: object = None,
        starter: int | None = None,
        **kwargs: Any,
    ) -> Session:
        """A fresh game for these seats (checked now: names, levels); no ``starter`` means a roll-off."""
        game = Game(rules, [s.name for s in seats], rng, seed=seed, starter=starter)
        for who in seats:
            if who.is_computer:
                check_level(who.level or "greedy", rules)
        return cls(game, tuple(seats), seed=seed, **kwargs)

    # -- seats and computers -----------------------------------------------------------------
    @property
    def state(self) -> GameState:
        """The game's current state."""
        return self.game.state

    def is_computer(self, seat: int) -> bool:
        """Whether a computer plays ``seat``."""
        return self.seats[seat].is_computer

    @property
    def computer_to_move(self) -> bool:
        """Whether the next action is a computer's (or an automatic roll-off)."""
        state = self.state
        return not state.is_over and (state.phase is Phase.ROLLOFF or self.is_computer(state.current))

    def strategy(self, seat: int) -> Strategy:
        """The computer player of ``seat``, made on first use (it may load the solver: call it in a worker)."""
        if seat not in self._strategies:
            level = self.seats[seat].level or "greedy"
            seed = None if self.seed is None else self.seed * 31 + seat
            self._strategies[seat] = self.strategy_factory(level, self.game.rules, seed)
        return self._strategies[seat]

    def computer_action(self) -> Action:
        """The computer's intent for the current state (a roll-off roll for anyone)."""
        state = self.state
        if state.phase is Phase.ROLLOFF:
            return RollOff(state.current)
        return self.strategy(state.current).choose(state)

    @property
    def computer(self) -> dict[int, str]:
        """Computer seats and their levels."""
        return {i: s.level or "greedy" for i, s in enumerate(self.seats) if s.is_computer}

    # -- undo and redo that skip over computer moves --------------------------------------------
    def _undoable(self) -> bool:
        log = self.game.log
        return bool(log) and not isinstance(log[-1], RollOff)

    def undo(self) -> int:
        """Take back the last human action and any computer actions after it; returns how many."""
        if not self._undoable():
            raise FiveDiceError(_("There is nothing to undo."))
        if all(s.is_computer for s in self.seats):
            self.game.undo()
            return 1
        n = 0
        while self._undoable():
            self.game.undo()
            n += 1
            if not self.is_computer(self.state.current):
                break
        return n

    def redo(self) -> int:
        """Replay the next undone action and any computer actions after it; returns how many."""
        if not self.game.can_redo:
            raise FiveDiceError(_("There is nothing to redo."))
        self.game.redo()
        n = 1
        while self.game.can_redo and not self.state.is_over and self.is_computer(self.state.current):
            self.game.redo()
            n += 1
        return n

    # -- hints ---------------------------------------------------------------------------------
    def hint_lines(self, state: GameState) -> list[HintLine]:
        """The advisor's ranked options for ``state`` (may be slow: call it in a worker)."""
        return self.advisor(state)

    def record_hint(self, move: int, seat: int, lines: Sequence[HintLine]) -> Hint:
        """Note that ``seat`` saw a hint before move ``move``."""
        hint = Hint(seat, move, tuple(lines[:5]))
        self.hints.append(hint)
        return hint

    @property
    def hint_counts(self) -> dict[int, int]:
        """Hints asked for per seat, over the moves still in the log."""
        counts: dict[int, int] = {}
        moves = len(self.game.log)
        for h in self.hints:
            if h.move <= moves:
                counts[h.seat] = counts.get(h.seat, 0) + 1
        return counts

    # -- saving --------------------------------------------------------------------------------
    def seats_data(self) -> dict[str, Any]:
        """What the terminal adds to a game save: who plays each seat, and the hints asked for."""
        return {
            "format": SAVE_FORMAT,
            "version": SAVE_VERSION,
            "players": list(self.game.players),
            "seats": [s.to_data() for s in self.seats],
            "hints": [h.to_data() for h in self.hints],
        }

    def save(self, path: str | Path | None = None) -> Path:
        """Write the game to ``path`` (else its save path, else a new file) as a standard engine
        save, which every tool loads (``fivedice play --plain --load``), and the seats and hints
        beside it in ``<name>.seats.json``; both atomically."""
        target = Path(path) if path is not None else self.save_path
        if target is None:
            target = saves.new_save_path()
        target.parent.mkdir(parents=True, exist_ok=True)
        saves.save(self.game, target)
        side = sidecar(target)
        tmp = side.with_name(side.name + ".tmp")
        tmp.write_text(json.dumps(self.seats_data(), indent=1), encoding="utf-8")
        tmp.replace(side)
        self.save_path = target
        return target

    @classmethod
    def load(cls, path: str | Path, **kwargs: Any) -> Session:
        """A saved game; its seats and hints come from the file beside it (without one, every seat is human)."""
        path = Path(path)
        game = saves.load(path)
        seats = tuple(Seat(n) for n in game.players)
        hints: list[Hint] = []
        side = sidecar(path)
        if side.exists():
            try:
                data = json.loads(side.read_text(encoding="utf-8"))
                if data.get("format") != SAVE_FORMAT or data.get("version") != SAVE_VERSION:
                    raise ValueError(SAVE_FORMAT)
                seats = tuple(Seat(str(s["name"]), str(s["kind"]), s.get("level")) for s in data["seats"])
                hints = [Hint.from_data(h) for h in data.get("hints", [])]
            except (OSError, UnicodeDecodeError, KeyError, TypeError, ValueError, AttributeError):
                raise SaveFormatError(
                    _("Seats file {path!r} is damaged; move it aside to load the game.", path=str(side))
                ) from None
            if tuple(s.name for s in seats) != game.players:
                raise SaveFormatError(
                    _("Seats file {path!r} names players that differ from the saved game's.", path=str(side))
                )
        return cls(game, seats, hints=hints, save_path=path, **kwargs)

    def remove_save(self) -> None:
        """Delete the save file and its seats file (when a saved game is finished)."""
        if self.save_path is not None:
            for p in (self.save_path, sidecar(self.save_path)):
                p.unlink(missing_ok=True)

    def describe(self) -> str:
        """One line: rule set, players and progress."""
        state = self.state
        who = ", ".join(s.name + (f" ({s.level})" if s.is_computer else "") for s in self.seats)
        if state.is_over:
            return _("{rules}: {players}; over", rules=self.game.rules.title, players=who)
        return _(
            "{rules}: {players}; round {round} of {rounds}",
            rules=self.game.rules.title,
            players=who,
            round=state.round,
            rounds=state.rules.rounds,
        )


def sidecar(path: Path) -> Path:
    """The seats file beside a save: ``game.json`` -> ``game.seats.json``."""
    return path.with_name(path.stem + ".seats.json")


def saved_games(folder: Path | None = None) -> list[tuple[Path, str]]:
    """Unfinished saved games in ``folder`` (newest first) with a one-line description; unreadable
    files are skipped."""
    folder = folder or saves_dir()
    found = []
    paths = [p for p in folder.glob("*.json") if not p.name.endswith(".seats.json")]
    for path in sorted(paths, key=lambda p: p.stat().st_mtime, reverse=True):
        try:
            session = Session.load(path)
        except FiveDiceError:
            continue
        if not session.state.is_over:
            found.append((path, session.describe()))
    return found
