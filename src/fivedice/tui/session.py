"""What the terminal adds to a :class:`~fivedice.table.Table`: where its games are saved and the Resume list.

The table owns the game (seats, computer players, dice tape, undo policy, hints, events, its save
format). A :class:`Session` is a table and the file it is saved to. Saved games live in
:func:`saves_dir`; each is the table's own save (one file that every tool loads as a game).
Saves written before the table existed kept the seats beside the game in ``NAME.seats.json``;
they still load (and are written back as one file when saved again).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from fivedice.engine import saves
from fivedice.engine.game import Game
from fivedice.engine.saves import saves_dir
from fivedice.engine.state import GameState
from fivedice.errors import FiveDiceError, SaveError, SaveFormatError
from fivedice.i18n import _
from fivedice.rules import RuleSet
from fivedice.table import Table
from fivedice.table.seat import Seat

__all__ = ["Session", "delete_save", "new_table", "rules_title", "saved_games", "saves_dir", "sidecar"]

SIDECAR_FORMAT = "fivedice-seats"
"""The format of the seats file older versions wrote beside a save."""


def new_table(
    rules: RuleSet,
    seats: Sequence[Seat],
    *,
    seed: int | None = None,
    rng: object = None,
    challenge: str | None = None,
    starter: int | None = None,
) -> Table:
    """A fresh table as the terminal plays it: every roll of a human turn, the first too, waits for the
    player's Space (so nobody's dice appear before they look), while the roll-off and the computers'
    turns play by themselves at the chosen pace."""
    return Table(rules, seats, seed=seed, rng=rng, challenge=challenge, starter=starter, auto_first_roll=False)


def rules_title(rules: RuleSet) -> str:
    """The game's name as players know it: the rule set's title, or the name of a variant that plays
    several cards (``cards=jetsi`` is Jetsi).

    >>> from fivedice import rules
    >>> rules_title(rules.get("yahtzee", cards="jetsi")), rules_title(rules.get("yacht"))
    ('Jetsi', 'Yacht')
    """
    cards = dict(rules.options).get("cards")
    if len(rules.cards) > 1 and cards is not None and not cards.isdigit():
        return cards.title()
    return _(rules.title)


def sidecar(path: Path) -> Path:
    """The seats file older versions wrote beside a save: ``game.json`` -> ``game.seats.json``."""
    return path.with_name(path.stem + ".seats.json")


def _old_seats(side: Path, game: Game) -> tuple[list[Seat], list[tuple[int, int]]]:
    """The seats and hints of an older save's seats file."""
    try:
        data = json.loads(side.read_text(encoding="utf-8"))
        if data.get("format") != SIDECAR_FORMAT or data.get("version") != 1:
            raise ValueError(SIDECAR_FORMAT)
        seats = [Seat.from_data(s) for s in data["seats"]]
        hints = [(int(h["seat"]), int(h["move"])) for h in data.get("hints", [])]
    except (OSError, UnicodeDecodeError, KeyError, TypeError, ValueError, AttributeError):
        raise SaveFormatError(
            _("Seats file {path!r} is damaged; move it aside to load the game.", path=str(side))
        ) from None
    if tuple(s.name for s in seats) != game.players:
        raise SaveFormatError(_("Seats file {path!r} names players that differ from the saved game's.", path=str(side)))
    return seats, hints


@dataclass
class Session:
    """A game in the terminal: its :class:`Table` and the file it is saved to (None until saved)."""

    table: Table
    save_path: Path | None = None

    @property
    def kept(self) -> set[int]:
        """The dice the player to move has set aside (0-based positions), kept in the save."""
        return set(self.table.kept)

    @kept.setter
    def kept(self, positions: set[int]) -> None:
        self.table.kept = tuple(sorted(positions))

    @property
    def state(self) -> GameState:
        """The current state."""
        return self.table.state

    @property
    def game(self) -> Game:
        """The game (its log and history)."""
        return self.table.game

    @property
    def seats(self) -> tuple[Seat, ...]:
        """Who plays each seat."""
        return self.table.seats

    @classmethod
    def load(cls, path: str | Path) -> Session:
        """A saved game: a table save, an older save with its seats file beside it, or any game save (then
        every seat is human). Raises a one-sentence :class:`SaveFormatError` if it cannot be played."""
        path = Path(path)
        data = saves.read(path)
        side = sidecar(path)
        if isinstance(data, dict) and "table" not in data and side.exists():
            game = saves.from_data(data)
            seats, hints = _old_seats(side, game)
            table = Table(game.rules, seats, game=game, auto_first_roll=False)
            table.hints = hints
        else:
            table = Table.from_data(data, auto_first_roll=False)
        return cls(table, path)

    def save(self, path: str | Path | None = None, folder: Path | None = None) -> Path:
        """Write the table's save to ``path`` (else its file, else a new file in ``folder``, else in
        :func:`~fivedice.engine.saves.saves_dir`), whole or not at all; an older save's seats file goes, its
        contents being in the save now. Raises :class:`~fivedice.errors.SaveError` (one sentence) if it
        cannot be written; the game goes on."""
        target = Path(path) if path is not None else self.save_path or saves.new_save_path(folder)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SaveError(
                _("The game cannot be saved to {path!r}: {reason}.", path=str(target), reason=exc.strerror)
            ) from None
        self.table.save(target)
        with contextlib.suppress(OSError):
            sidecar(target).unlink(missing_ok=True)
        self.save_path = target
        return target

    def remove_save(self) -> None:
        """Delete the save file (when a saved game is finished: it is in the store then)."""
        if self.save_path is not None:
            delete_save(self.save_path)

    def describe(self) -> str:
        """One line: game, challenge, players and progress (the Resume list)."""
        state = self.state
        table = self.table
        who = ", ".join(s.name + (f" ({s.level})" if s.is_computer else "") for s in table.seats)
        title = rules_title(table.rules)
        if table.challenge is not None:
            title = _("{game}, challenge {code}", game=title, code=table.challenge)
        if state.is_over:
            return _("{rules}: {players}; over", rules=title, players=who)
        return _(
            "{rules}: {players}; round {round} of {rounds}",
            rules=title,
            players=who,
            round=state.round,
            rounds=state.rules.rounds,
        )


def delete_save(path: Path) -> None:
    """Delete a saved game (and an older save's seats file)."""
    for p in (path, sidecar(path)):
        p.unlink(missing_ok=True)


def saved_games(folder: Path | None = None) -> list[tuple[Path, str]]:
    """Unfinished saved games in ``folder`` (newest first) with a one-line description; files that do
    not load are left out."""
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
