"""What the rooms of one server process tell beyond the game itself: hints, the end-of-game analysis,
a challenge's result next to the benchmark player on the same dice, its leaderboard, and the high scores
every finished game is recorded in (with its computer levels, hints, undo use and challenge code)."""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from fivedice import i18n
from fivedice.engine.actions import Roll, Score
from fivedice.engine.game import Game
from fivedice.engine.state import GameState, Phase
from fivedice.errors import FiveDiceError
from fivedice.i18n import _
from fivedice.rules import parse_spec
from fivedice.services import chancejobs
from fivedice.services.advice import BEAT, WIN, Advice, advise
from fivedice.storage import Store
from fivedice.storage.finished import record_finished
from fivedice.table import Table
from fivedice.table.challenge import aim_for, report, report_lines
from fivedice.web.db import RoomStatus, RoomStore
from fivedice.web.errors import RoomError
from fivedice.web.lobby import RoomExtras
from fivedice.web.rooms import Room
from fivedice.web.timeouts import final_places

__all__ = ["HOLD_RECORDING", "Results", "hint_data", "origin"]

log = logging.getLogger("fivedice.web")
SOURCE = "web"
"""Where the games recorded here were played, as the high scores and history keep it."""
HOLD_RECORDING = "FIVEDICE_TEST_HOLD_RECORDING"
"""For the tests only: the environment variable naming a file to which a recording appends ``<code> <game_no>``
when it reaches the point between its two writes, where it then waits until the process is killed."""


async def _hold(code: str, game_no: int) -> None:
    """Stop the recording of ``code``'s game ``game_no`` between its two writes (the scores, the room's mark)
    where :data:`HOLD_RECORDING` asks it to (a test then kills the process there)."""
    path = os.environ.get(HOLD_RECORDING)
    if not path:
        return
    with open(path, "a", encoding="utf-8") as told:
        told.write(f"{code} {game_no}\n")
    await asyncio.Event().wait()


class Results:
    """Hints, analyses, challenge results, leaderboards and the high-score record of one process's rooms.

    ``db`` runs a database call in the service's worker threads; ``scores`` turns the high scores (and so the
    leaderboards) on, in the store at ``scores_url``."""

    def __init__(
        self,
        store: RoomStore,
        extras: RoomExtras,
        db: Callable[..., Awaitable[Any]],
        scores: bool,
        scores_url: str | None,
        chances: bool = True,
    ) -> None:
        self.store = store
        self.extras = extras
        self.db = db
        self.scores = scores
        self.scores_url = scores_url
        self.chances = chances
        """Whether hints carry chances (to win, to beat one's best), prepared in this process when first asked."""
        self._score_store: Store | None = None
        self._opening = threading.Lock()

    async def record(self, room: Room) -> bool:
        """Put a finished game into the high scores and history, with its computer levels, hints, undo count
        and challenge code; False if it could not be recorded.

        Exactly once, whoever records it and whenever a process is killed: the game is written first, under
        its origin (:func:`origin`: the score store keeps one game per origin), then the room marked as
        recorded. A game written but not marked (its process killed between the two) is found unmarked
        after a restart (:func:`fivedice.web.upkeep.record_missed`) and recorded again, which stores nothing."""
        table = room.table
        if table is None or not table.is_over:
            room.flags.recording = False
            return False
        row = room.row
        game_no = row.game_no
        try:
            if await self.db(self.store.is_recorded, room.code, game_no):
                return True  # another process (or an earlier call) wrote it
            table.hints = await self.db(self.extras.hints, room.code, game_no)  # asked through any process
            places = final_places(room.policy, table)  # a seat that forfeited ranks after the others
            await asyncio.to_thread(self._record_sync, table, places, origin(room.code, row.created, game_no))
            await _hold(room.code, game_no)
            await self.db(self.store.mark_recorded, room.code, game_no)
            return True
        except Exception as exc:
            log.warning("could not record room %s game %d in the high scores: %s", room.code, game_no, exc)
            return False
        finally:
            room.flags.recording = False

    def score_store(self) -> Store:
        """The high-score store (opened on first use: call it in a worker thread)."""
        with self._opening:
            if self._score_store is None:
                self._score_store = Store(self.scores_url)
            return self._score_store

    async def goal(self, room: Room, table: Table) -> bool:
        """Work out a solo challenge's goal (:func:`fivedice.table.challenge.aim_for`): what the benchmark player
        made of the same dice tape (the hints' chances are then of beating it). True if it was found."""
        try:
            aim = await asyncio.to_thread(aim_for, table)
        except FiveDiceError as exc:
            log.warning("no goal for challenge %r in room %s: %s", table.challenge, room.code, exc)
            return False
        if aim is None:
            return False
        async with room.lock:
            room.found.goal = {"total": aim.total, "level": aim.level}
            room.aim_at(aim.total)
        return True

    async def best(self, room: Room) -> bool:
        """Look up the best total of a solo room's player under its rules in the high scores: the page shows
        it ("Beat your best") and the hints play to beat it. True if there was one."""
        await room.flags.until_recorded()  # the game before a rematch may be the new best
        name, rules = room.row.seats[0].name or "", room.rules
        try:
            best = await asyncio.to_thread(lambda: self.score_store().best(name, rules))
        except Exception as exc:  # the game goes on without it
            log.warning("could not look up the best score in room %s: %s", room.code, exc)
            return False
        if best is None:
            return False
        room.found.best = best
        room.aim_at(best)
        return True

    def _record_sync(self, table: Table, places: dict[int, int], where: str) -> None:
        record_finished(self.score_store(), table, SOURCE, places, where)

    async def hint(self, room: Room, seat: int, again: bool = False) -> dict[str, Any]:
        """The table's advice for the player to act (noted as a hint that seat used, unless ``again``: the
        same hint asked again while its chances are prepared), with a note while they are."""
        if not room.settings.get("hints"):
            raise RoomError(_("Hints are turned off in this room."))
        async with room.lock:
            current = room.current_seat()
            if current is None or current.seat != seat or room.table is None:
                raise RoomError(_("Hints are for the player whose turn it is."))
            table, state = room.table, room.table.state
            if state.phase is not Phase.PLAY or state.dice is None:
                raise RoomError(_("A hint needs dice on the table; roll first."))
            game_no, moves = room.row.game_no, len(table.game.log)
        note, advice = await asyncio.to_thread(self._advise, table, state)
        async with room.lock:
            repeated = again and (seat, moves) in table.hints
            if room.table is table and table.state is state and not repeated:
                table.hint(advice)
        if not repeated:
            try:  # kept with the room, so the high scores count it whichever process records the game
                await self.db(self.extras.add_hint, room.code, game_no, seat, moves)
            except FiveDiceError as exc:
                log.warning("could not note a hint in room %s: %s", room.code, exc)
        return hint_data(advice, note, chances=self.chances)

    def _advise(self, table: Table, state: GameState) -> tuple[str | None, Advice]:
        """In a worker: the note on the chances (starting their preparation, in a daemon thread) and the advice.
        A solver that is neither loaded nor shipped nor cached is never built here: the hint ranks the boxes
        by their points and says that the solver is being prepared (within the process's budget)."""
        solver = chancejobs.solver_need(table.rules)
        if solver is not None:
            return chancejobs.describe(chancejobs.start(solver)), advise(state, chances=False, exact=False)
        note = table.chances_note() if self.chances else None
        advice = table.advice(state)
        return (None if advice.chances is not None else note), advice

    async def analysis(self, room: Room) -> dict[str, Any] | None:
        """The per-decision analysis of a finished game, in the reader's language (None without the solver)."""
        async with room.lock:
            if room.table is None or room.status != RoomStatus.OVER:
                raise RoomError(_("The analysis is ready when the game is over."))
            game, key = room.table.game, (room.row.game_no, i18n.current_language())  # its texts are in one language
            if room.found.analysis is not None and room.found.analysis[0] == key:
                return room.found.analysis[1]
        solver = chancejobs.solver_need(game.rules)
        if solver is not None:  # never built on a request's path: prepared meanwhile, ask again later
            chancejobs.start(solver)
            return None
        result = await asyncio.to_thread(_analyze, game)
        room.found.analysis = (key, result)
        return result

    async def challenge(self, room: Room) -> dict[str, Any]:
        """A finished challenge game: each player's total next to what the benchmark player (``optimal`` where
        the solver plays the rules) made of the same dice tape, what their decisions cost, in sentences of
        the reader's language, and the challenge's leaderboard."""
        async with room.lock:
            table = room.table
            if table is None or room.status != RoomStatus.OVER or table.challenge is None:
                raise RoomError(_("The challenge's result is ready when a challenge game is over."))
            key = room.row.game_no
        cached = room.found.challenge if room.found.challenge is not None and room.found.challenge[0] == key else None
        rep = cached[1] if cached is not None else await asyncio.to_thread(report, table)
        room.found.challenge = (key, rep)
        await room.flags.until_recorded()  # the leaderboard shows the game once it is recorded
        board = await self.leaderboard(table.challenge, table.rules.spec)
        assisted = any(s.is_computer for s in table.seats)
        hinted = {seat for seat, _move in await self.db(self.extras.hints, room.code, key)}  # through any process
        players, lines = [], report_lines(rep)
        for p in rep.players:
            ranked = await self._ranked(p.name, table, not assisted and p.seat not in hinted)
            players.append(
                {"seat": p.seat, "name": p.name, "total": p.total, "loss": p.loss, "grade": p.grade, "ranked": ranked}
            )
        if self.scores and not all(p["ranked"] for p in players):
            lines.append(
                _(
                    "Only a player's first attempt at a challenge, without hints or computer players, is ranked;"
                    " {players}: practice.",
                    players=", ".join(str(p["name"]) for p in players if not p["ranked"]),
                )
            )
        return {
            "code": rep.code,
            "level": rep.level,
            "benchmark": rep.benchmark,
            "players": players,
            "lines": lines,
            "leaderboard": board,
        }

    async def _ranked(self, name: str, table: Table, unassisted: bool) -> bool:
        """Whether this game is ``name``'s ranked attempt at the table's challenge: unassisted, and their first."""
        if not self.scores or not unassisted or table.challenge is None:
            return False
        code = table.challenge
        try:
            return await asyncio.to_thread(lambda: self.score_store().attempts(name, table.rules, code) <= 1)
        except Exception as exc:  # the report goes on without it
            log.warning("could not count the attempts of challenge %r: %s", code, exc)
            return False

    async def leaderboard(self, code: str, spec: str, limit: int = 10) -> list[dict[str, Any]]:
        """Challenge ``code``'s fair leaderboard under rule set ``spec`` (empty where scores are not kept): each
        player's first, unassisted attempt (:meth:`~fivedice.storage.Store.challenge_board`); ``account`` says
        whether the name is an account's (else a guest's). Equal totals share a rank, the earlier game first."""
        if not self.scores:
            return []
        exact = parse_spec(spec)  # that exact variant: a challenge's dice belong to one rule set and its options
        rows = await asyncio.to_thread(lambda: self.score_store().challenge_board(exact, code, limit))
        accounts = await self.db(_account_names, self.store, [r.name for r in rows])
        return [
            {
                "rank": r.rank,
                "name": r.name,
                "total": r.total,
                "players": r.players,
                "kind": r.kind,
                "level": r.level,
                "undos": r.undos,
                "played_at": r.played_at.isoformat(),
                "account": r.name in accounts,
            }
            for r in rows
        ]


def origin(code: str, created: float, game_no: int) -> str:
    """Where a web game was played, as the score store keeps it (once): its room's invite code and creation
    (a code may be dealt again once its room expired) and the game's number in the room."""
    return f"{SOURCE}:{code}:{round(created * 1000)}:{game_no}"


def _account_names(store: RoomStore, names: list[str]) -> set[str]:
    """Which of ``names`` are accounts' names (guests cannot take them: see :mod:`fivedice.web.seating`)."""
    from fivedice.web.accounts_db import AccountStore

    accounts = AccountStore(store)
    return {n for n in set(names) if (found := accounts.by_name(n)) is not None and found.name == n}


def hint_data(advice: Advice, note: str | None = None, *, chances: bool = True) -> dict[str, Any]:
    """The advisor's options as the page shows them: ``keep`` (the faces kept, and ``held``: the positions of
    the dice that show them) or ``score`` (box, points),
    with the expected final points and the loss against the best where the solver rated them, and each
    one's chance ``win`` (with rivals) or ``beat`` (finishing above ``goal``, alone) once prepared; ``chances``
    says which, ``note`` what is being prepared meanwhile (in the reader's language). Without ``chances``
    (the server's ``--no-chances``) there are none."""
    solver = advice.source == "solver"
    kind = advice.chances if chances else None
    options = []
    for o in advice.options[:6]:
        action = o.action
        option: dict[str, Any] = {
            "action": "keep" if isinstance(action, Roll) else "score",
            "dice": list(o.kept) if isinstance(action, Roll) else [],
            "held": list(action.held) if isinstance(action, Roll) else [],
            "box": action.box if isinstance(action, Score) else None,
            "card": action.card if isinstance(action, Score) else 0,
            "points": o.points,
        }
        if solver:
            option["value"], option["loss"] = round(o.value, 3), round(o.loss, 3)
        if kind == WIN and o.win is not None:
            option["win"] = round(o.win, 4)
        elif kind == BEAT and o.beat is not None:
            option["beat"] = round(o.beat, 4)
        options.append(option)
    goal = advice.goal if kind == BEAT else None
    note = note if chances else None
    return {"source": advice.source, "options": options, "chances": kind, "goal": goal, "note": note}


def _analyze(game: Game) -> dict[str, Any] | None:
    """The per-decision analysis of a finished game (None where the solver cannot rate these rules)."""
    if game.rules.solver_refusal() is not None:
        return None
    from fivedice.services.analysis import analyze  # the solver: loaded only when someone asks

    try:
        return analyze(game).to_json()
    except FiveDiceError:
        return None
