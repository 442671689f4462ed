"""The room service: every change to a room is committed to the database, then broadcast.

One :class:`RoomService` runs in each server process. A change (a player's intent, a
computer's move, start, join, rematch, undo) runs in a worker thread inside one database
transaction that holds the room's row lock: the room is first brought up to date from the
database, then the room's :class:`~fivedice.table.Table` decides (``roll``/``score``/``undo``/``redo``,
its automatic actions, a computer's or a stand-in's step), the move is appended and the room's
version advanced. Only after the commit is the new state sent to
this process's clients and the other processes told (through the pub/sub hub) to re-read it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import random
import re
import secrets
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, TypeVar

from sqlalchemy.exc import DBAPIError

from fivedice.dice import DiceRoller, RandomRoller
from fivedice.errors import FiveDiceError
from fivedice.i18n import N_, _
from fivedice.services import chancejobs
from fivedice.services.chancejobs import Job
from fivedice.table.challenge import AimKind, aim_kind
from fivedice.table.seat import SeatKind
from fivedice.table.steps import GameOver, HumanTurn
from fivedice.web import decisions
from fivedice.web.db import DEADLINE, MoveRow, RoomRow, RoomStatus, RoomStore, store_error
from fivedice.web.decisions import Change, Decide
from fivedice.web.driving import RoomDriver, stand_in_due
from fivedice.web.errors import (
    ConflictError,
    RoomError,
    RoomNotFoundError,
    StaleIntentError,
    StoreBusyError,
)
from fivedice.web.fanout import Outbox
from fivedice.web.limits import DEFAULT_LIMITS, KeyedBuckets, Limits
from fivedice.web.lobby import RoomExtras
from fivedice.web.models import INTENTS, Chat, Hello, RollIntent, ScoreIntent, Simple
from fivedice.web.operations import RoomOperations
from fivedice.web.presence import Connections, hash_token, notice
from fivedice.web.pubsub import Hub, NullHub
from fivedice.web.results import Results
from fivedice.web.rooms import STARTED, Client, Room, SecretsRoller, ack_members
from fivedice.web.timeouts import NOTICES, Away, Timeout, on_timeout
from fivedice.web.worker import Workers
from fivedice.web.writes import Writes

__all__ = ["RoomService", "challenge_key", "hash_token"]

log = logging.getLogger("fivedice.web")
CLOSE_WAIT = 5.0
"""Seconds a shutdown waits for the games being recorded to be written, then for the background tasks it cancelled."""
T = TypeVar("T")
_CODE = re.compile(r"^[A-Za-z2-9]{8}$")
DEGRADED_POLL = 2.0
"""Seconds between looks in the database for the rooms of this process while the fan-out is degraded."""
REFUSED_WAIT = 5.0
"""Seconds a computer waits before asking again for a preparation the process's budget refused."""
IDLE = 900.0
"""Seconds after which a room nobody is connected to is dropped from memory (it stays in the database)."""


def check_code(code: str) -> str:
    """The invite code in upper case; raises :class:`RoomNotFoundError` for a malformed one."""
    if not _CODE.match(code):
        raise RoomNotFoundError(
            _("Room {code!r} does not exist; an invite code is 8 letters and digits.", code=code[:20])
        )
    return code.upper()


CHALLENGE_SECRET = "challenges"
"""The name of the server's secret that seals its challenges' dice in the ``{prefix}secrets`` table."""


def challenge_key(store: RoomStore) -> bytes:
    """The server's challenge secret: made (256 random bits) by the first process to start on a database and
    kept with it, so every process of the database (and every restart) deals the same sealed dice."""
    from fivedice.web.accounts_db import AccountStore

    return bytes.fromhex(AccountStore(store).secret(CHALLENGE_SECRET, lambda: secrets.token_hex(32)))


class RoomService(Connections, RoomOperations):
    """Rooms of one server process, kept in step with the database and the other processes."""

    def __init__(
        self,
        store: RoomStore,
        hub: Hub | None = None,
        *,
        seed: int | None = None,
        computer_delay: float = 0.6,
        scores: bool = True,
        scores_url: str | None = None,
        limits: Limits = DEFAULT_LIMITS,
        pubsub: str = "none",
        chances: bool = True,
        challenge_key: bytes | None = None,
    ) -> None:
        self.store = store
        self.challenge_key = challenge_key
        """The server's secret that seals the dice of the challenges it hosts (kept with the database, the same
        for every process: see :func:`fivedice.web.rooms.challenge_key`); None: the public tape."""
        self.extras = RoomExtras(store)
        """The chat and the lobby's public rooms (tables beside the room tables)."""
        self.hub: Hub = hub or NullHub()
        self.outbox = Outbox(self.hub)
        """The events for the other processes, published off the request path (see :mod:`fivedice.web.fanout`)."""
        self.roller: DiceRoller = RandomRoller(random.Random(seed)) if seed is not None else SecretsRoller()
        self.computer_delay = computer_delay
        self.scores = scores
        self.scores_url = scores_url
        self.limits = limits
        self.pubsub = pubsub
        """The fan-out channel claimed in the database (see :meth:`RoomStore.claim_pubsub`)."""
        self.http = {
            "create": KeyedBuckets(limits.create_rate, limits.create_burst),
            "join": KeyedBuckets(limits.join_rate, limits.join_burst),
        }
        self.sockets: Counter[str] = Counter()
        """Open WebSockets by client address (at most ``limits.address_sockets`` each)."""
        self.peers: dict[str, float] = {}
        """Other processes and when they were last heard of (their presence lapses after ``presence_ttl``)."""
        self.proc = secrets.token_hex(6)
        self.clock: Callable[[], float] = time.time
        """The wall clock of moves and turn timers (tests move it forward)."""
        self.rooms: dict[str, Room] = {}
        self._loading = asyncio.Lock()
        self._tasks: dict[asyncio.Task[Any], bool] = {}
        """The background tasks, each with whether a shutdown lets it finish before it cancels the others (a
        finished game being recorded)."""
        self.results = Results(store, self.extras, self.db, scores, scores_url, chances)
        """Hints, analyses, challenge results, leaderboards and the high scores."""
        # Database calls run in worker threads, so a locked or slow database never stalls the event loop
        # (SQLite: one thread, since it has one writer at a time anyway).
        self.writes = Writes(store)
        """The write transaction of every change (on the driver's connection: see :mod:`fivedice.web.writes`)."""
        self.executor = Workers(1 if store.is_sqlite else 8, "fivedice-db", self.writes.group)
        """The database's worker threads; on SQLite the writes queued together are one transaction."""
        self.warned: set[str] = set()
        self.refused: dict[str, str] = {}
        """Rooms told that a preparation their computer needs was refused (over the budget), and the sentence."""
        self.listeners: list[Callable[[Room], None]] = []
        """Called after every change of a room this process sees (its own or another process's), with the
        room up to date: the turn notifications of :mod:`fivedice.web.push` listen here."""

    # -- life cycle ---------------------------------------------------------------------
    async def start(self) -> None:
        """Subscribe to the other processes' news and start the turn timers, heartbeats and room expiry."""
        from fivedice.web import upkeep

        await self.hub.start(self._on_event)
        self._spawn(self.outbox.run())
        self._spawn(self._timer_loop())
        self._spawn(self._resume_rooms())
        self._spawn(upkeep.heartbeats(self))
        self._spawn(upkeep.sweeps(self))

    async def close(self) -> None:
        """Stop background work and release connections (the last events published, within a second)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.outbox.idle(), 1)
        loop = asyncio.get_running_loop()
        end = loop.time() + CLOSE_WAIT  # else a finished game waits for the next process's look for unrecorded games
        while (finishing := [t for t, finish in self._tasks.items() if finish]) and loop.time() < end:
            await asyncio.wait(finishing, timeout=end - loop.time())  # then those begun meanwhile (a game just over)
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:  # a shutdown never hangs on a task that does not stop when cancelled
            _done, stuck = await asyncio.wait(tasks, timeout=CLOSE_WAIT)
            if stuck:
                log.warning("%d background tasks did not stop within %s s of shutdown", len(stuck), CLOSE_WAIT)
        await self.hub.close()
        self.executor.shutdown(wait=True)
        self.store.dispose()

    def _spawn(self, coro: Any, finish: bool = False) -> asyncio.Task[Any]:
        """Run ``coro`` in the background until it ends, or a shutdown cancels it (after it ended, within
        ``CLOSE_WAIT`` seconds, where ``finish``)."""
        task = asyncio.create_task(coro)
        self._tasks[task] = finish
        task.add_done_callback(self._forget)
        return task

    def _forget(self, task: asyncio.Task[Any]) -> None:
        self._tasks.pop(task, None)

    async def db(self, fn: Callable[..., T], *args: Any, write: bool = False) -> T:
        """Run a database call in a worker thread; a database error becomes a one-sentence
        :class:`~fivedice.web.errors.StoreError` (logged), and a call that waited for the worker longer
        than the database time bound fails at once without touching the database. ``write``: a :meth:`_write`,
        which may share one transaction with the others queued (see :class:`~fivedice.web.worker.Workers`)."""
        queued = time.monotonic()
        timeout = self.limits.db_timeout

        def run() -> T:
            DEADLINE.set(queued + timeout)  # in this call's own context: its lock waits end then
            if time.monotonic() - queued > timeout:
                raise StoreBusyError(
                    _(
                        "The database stayed locked for more than {seconds} s; nothing was changed, "
                        "try again in a moment.",
                        seconds=format(timeout, "g"),
                    )
                )
            return fn(*args)

        try:
            # in the caller's context: its language, for the one-sentence errors raised in there
            return await self.executor.run(run, grouped=write)
        except DBAPIError as exc:
            error = store_error(exc, timeout)
            log.warning("database call %s failed: %s (%s)", getattr(fn, "__name__", fn), error, exc.orig)
            raise error from None
        except StoreBusyError as exc:
            log.warning("database call %s skipped: %s", getattr(fn, "__name__", fn), exc)
            raise

    # -- rooms in memory ----------------------------------------------------------------
    async def room(self, code: str) -> Room:
        """The room with this invite code, loaded from the database on first use."""
        code = check_code(code)
        room = self.rooms.get(code)
        if room is not None:
            return room
        async with self._loading:
            room = self.rooms.get(code)
            if room is None:
                # rebuilt from its moves in the worker: replaying a long game is CPU work kept off the event loop
                room = self.rooms[code] = await self.db(self._load, code)
        self._after_change(room)
        return room

    def _load(self, code: str) -> Room:
        return Room(*self._read(code), self.roller, self.challenge_key)

    def _read(self, code: str) -> tuple[RoomRow, list[MoveRow]]:
        with self.store.engine.begin() as conn:
            row = self.store.room(code, conn, lock="share")
            return row, self.store.moves(code, row.game_no, 0, conn)

    def _refresh(self, room: Room) -> bool:
        """Bring ``room`` up to date with the database; True if anything changed. On SQLite in one read-only
        transaction on the driver's connection (a consistent snapshot), elsewhere with the room's row locked
        (shared), so the moves read agree with the version read."""
        if self.store.is_sqlite:
            with self.writes.read(room.code) as tx:
                return self._bring(room, tx.room(), tx.moves)
        with self.store.engine.begin() as conn:
            row = self.store.room(room.code, conn, lock="share")
            return self._bring(room, row, partial(self.store.moves, room.code, conn=conn))

    @staticmethod
    def _bring(room: Room, row: RoomRow, moves: Callable[[int, int], list[MoveRow]]) -> bool:
        """Bring ``room`` to the stored ``row``, reading the ``moves(game_no, after)`` it lacks."""
        if row.version == room.version and not room.stale:
            return False
        if room.needs_reload(row):
            room.load(row, moves(row.game_no, 0))
        else:
            room.apply(row, moves(row.game_no, room.seq))
        return True

    def _write(self, room: Room, seat: int, by: str, decide: Decide, expected: int | None = None) -> Change:
        """One transaction (:mod:`fivedice.web.writes`): lock and advance the version this process holds (else
        first refresh the room from the database), check the sender's ``expected`` version, decide, append the
        move; then update the room in memory."""
        now, start = self.clock(), room.row
        try:
            with self.writes.begin(room.code) as tx:
                row = room.row
                if room.stale or not tx.claim(row.version, now):  # another process changed the room (or a failed
                    if not room.stale and isinstance(self.hub, NullHub):  # write left the table to rebuild)
                        self._warn_unshared()
                    tx.version()  # the row lock, then the room as stored
                    stored = tx.room()
                    if room.needs_reload(stored):
                        room.load(stored, tx.moves(stored.game_no))
                    else:
                        room.apply(stored, tx.moves(stored.game_no, room.seq))
                    row = room.row
                    if not tx.claim(row.version, now):  # pragma: no cover - the lock is held
                        raise ConflictError(
                            _("Room {code!r} changed at the same moment; the request was not applied.", code=room.code)
                        )
                if expected is not None and expected != row.version:
                    raise StaleIntentError(
                        _(
                            "That request was made for version {sent} of the room, which is now at version"
                            " {now}; nothing was changed.",
                            sent=expected,
                            now=row.version,
                        )
                    )
                change = decide(room)
                if change.values.get("status") == RoomStatus.PLAYING and (
                    row.status != RoomStatus.PLAYING or change.values.get("game_no", row.game_no) != row.game_no
                ):
                    change.values.setdefault("started", now)  # the clock of the first turn starts now
                if change.seats is not None:
                    tx.set_seats(row.seats, change.seats)
                move = None
                if change.entry is not None:
                    move = MoveRow(room.seq + 1, seat, by, change.entry, now)
                    tx.add_move(row.game_no, move)
                    if room.game is not None and room.game.is_over:
                        change.values["status"] = RoomStatus.OVER
                tx.set(change.values)
        except BaseException:
            room.invalidate()  # the game may hold an action that was not committed
            raise
        seats: dict[str, Any] = {} if change.seats is None else {"seats": change.seats}  # one copy of the row
        new = dataclasses.replace(row, version=row.version + 1, updated=now, **change.values, **seats)
        self.writes.on_lost(partial(room.lose, start))  # if a group's commit fails after all
        if new.game_no != row.game_no:
            room.load(new, [])
        else:
            room.apply(new, [])
        if move is not None:
            room.note(move)
        return change

    def _warn_unshared(self) -> None:
        if "unshared" not in self.warned:
            self.warned.add("unshared")
            log.error(
                "another process changes rooms in this database but this one has no pub/sub channel: players "
                "on different processes do not hear each other; start every process with the same --pubsub"
            )

    async def _change(
        self,
        room: Room,
        seat: int,
        by: str,
        decide: Decide,
        expected: int | None = None,
        ack: tuple[Client, int | None] | None = None,
    ) -> Any:
        async with room.lock:
            before, done = room.version, None
            try:
                change = await self.db(self._write, room, seat, by, decide, expected, write=True)
                record = self._mark_recording(room)  # before anyone hears the game is over
                done = ack
            finally:  # even a refused request may have brought news from another process
                if room.version != before:
                    self._broadcast(room, done)
        try:
            await self._publish(room, "changed", version=room.version)
        finally:
            self._after_change(room, record=record)
        return change.result

    # -- telling clients and processes --------------------------------------------------
    def _broadcast(self, room: Room, ack: tuple[Client, int | None] | None = None) -> None:
        """Send the room's new state to this process's clients; ``ack``: the sender of the intent that made it
        and the intent's id, acknowledged in the same message when it takes deltas (else by an ``ack`` after it)."""
        sender = ack[0] if ack is not None else None
        done = room.ack(ack[1]) if ack is not None else None
        members = ack_members(done) if done is not None and sender is not None and sender.deltas else ""
        for client in list(room.presence.clients):
            if not client.send(room.message_for(client, members if client is sender else "")):
                self._drop(room, client)
        if sender is not None and done is not None and not members:  # a page without deltas: after the state
            sender.send(json.dumps({"type": "ack", **done}))

    async def _message(self, room: Room, message: dict[str, Any]) -> None:
        self._send_all(room, message)
        await self._publish(room, "message", message=message)

    # -- after every change: computers, timers, high scores -----------------------------
    def _mark_recording(self, room: Room) -> bool:
        """Mark a game that just ended as being recorded (True), so that whoever hears of its end and waits
        for :meth:`~fivedice.web.rooms.InFlight.until_recorded` finds the recording under way, not yet to come."""
        if (
            room.status == RoomStatus.OVER
            and room.row.recorded < room.row.game_no
            and self.scores
            and not room.flags.recording
        ):
            room.flags.recording = True
            return True
        return False

    def _after_change(self, room: Room, drive: bool = True, record: bool = False) -> None:
        for listener in self.listeners:
            listener(room)
        if record or self._mark_recording(room):  # ``record``: marked by the change, before its broadcast
            self._spawn(self.results.record(room), finish=True)
        table = room.table
        aim = aim_kind(table) if table is not None else None
        if aim is AimKind.BENCHMARK and table is not None and not room.flags.goal_pending:
            room.flags.goal_pending = True
            self._spawn(self._show(self.results.goal(room, table), room))
        if aim is AimKind.BEST and self.scores and room.flags.best_for != room.row.game_no:
            room.flags.best_for = room.row.game_no  # once per game and room load
            self._spawn(self._show(self.results.best(room), room))
        if drive and self._drivable(room):
            room.flags.driving = True
            self._spawn(self._drive(room))

    def _drivable(self, room: Room) -> bool:
        """Whether the room's driver has a step to take now (whoever is connected): the table's own roll, a
        computer's move, or a stand-in's for a person whose time ran out."""
        table = room.table
        if room.flags.driving or room.current_seat() is None or table is None:
            return False
        return not isinstance(table.next_step(stand_in_due(room, self.clock())), HumanTurn | GameOver)

    async def _drive(self, room: Room) -> None:
        """Run the room's driver (:class:`~fivedice.web.driving.RoomDriver`) until a person is to act (or the
        end), whether or not anyone is connected: computers and stand-ins play on, paced."""
        room.flags.driving = True
        driver = RoomDriver(self, room)
        try:
            await driver.run()
        except FiveDiceError as exc:
            log.warning("automatic or computer move failed in room %s: %s", room.code, exc)
        except Exception:  # a failing computer player must not take the server down
            log.exception("the driver of room %s failed", room.code)
        finally:
            room.flags.driving = False
        self._after_change(room, drive=False, record=driver.record)

    async def _prepared(self, room: Room, job: Job) -> None:
        """Tell the room, and wait (the room free meanwhile), while the chances a computer plays by are
        prepared in the background (once per process)."""
        text, fields = chancejobs.message(job)
        if job.refusal is not None:  # over the process's budget: say so once, and ask again in a while
            if self.refused.get(room.code) != text:
                self.refused[room.code] = text
                await self._message(room, notice(text, **fields))
            await asyncio.sleep(REFUSED_WAIT)
            return
        self.refused.pop(room.code, None)
        await self._message(room, notice(text, **fields))
        while not job.done.is_set():
            await asyncio.sleep(0.5)

    async def _show(self, found: Awaitable[bool], room: Room) -> None:
        """Await a look-up (a solo challenge's goal, a solo player's best) and show what it found."""
        if await found:
            async with room.lock:
                room.presence.changed()  # a new snapshot
                self._broadcast(room)

    async def _timer_loop(self) -> None:
        """Every half second: the turn timers of the rooms held (a stand-in plays, or the room is told that
        time is up), and rooms nobody needs dropped from memory (a room its driver still has work in, a
        computer's move or a timer to fire, is kept: it plays on with nobody connected); while the fan-out
        is degraded, every ``DEGRADED_POLL`` seconds the rooms watched here are read from the database."""
        polled = 0.0
        while True:
            await asyncio.sleep(0.5)
            if not self.outbox.health()["ok"] and time.monotonic() - polled >= DEGRADED_POLL:
                polled = time.monotonic()  # no news from the other processes: look in the database instead
                self._spawn(self._poll())
            now = self.clock()
            for room in list(self.rooms.values()):
                deadline, seat = room.deadline, room.current_seat()
                pending = deadline is not None and room.policy.away is not Away.WAIT
                busy = room.presence.clients or room.flags.driving or room.lock.locked()
                idle = not busy and now - room.row.updated > IDLE
                if idle and not pending:
                    del self.rooms[room.code]  # nobody here for a while: reloaded from the database on demand
                    continue
                if (
                    deadline is None
                    or seat is None
                    or seat.kind != SeatKind.HUMAN
                    or now < deadline
                    or room.flags.driving
                ):
                    continue
                action = on_timeout(room.policy, room.missed(seat.seat))
                if action is not Timeout.WAIT:
                    room.flags.driving = True
                    self._spawn(self._drive(room))
                turn = (room.row.game_no, room.table.state.turns if room.table is not None else -1)
                if action is Timeout.WAIT and room.flags.notified_timeout != turn:
                    room.flags.notified_timeout = turn  # once a turn, whatever is rolled late
                    told = notice(NOTICES[action], who=seat.name)
                    self._send_all(room, told)
                    await self._publish(room, "timeout", message=told, turn=list(turn))

    async def _poll(self) -> None:
        """Bring every room someone here watches up to date from the database (while the fan-out is degraded)."""
        for room in list(self.rooms.values()):
            if room.presence.clients and not room.lock.locked():
                with contextlib.suppress(FiveDiceError):
                    await self.fresh(room)

    async def fresh(self, room: Room) -> Room:
        """``room`` brought up to date from the database (a reload always shows what is stored, whatever the
        news between processes said), its clients told if anything changed."""
        async with room.lock:
            if await self.db(self._refresh, room):
                self._broadcast(room)
        self._after_change(room)
        return room

    async def _resume_rooms(self, limit: int = 1000) -> None:
        """At start: load the rooms in play (up to ``limit``), so that their computers, stand-ins and timers
        play on although nobody is connected (after a restart, say)."""
        try:
            codes = await self.db(self.store.codes, (RoomStatus.PLAYING,))
        except FiveDiceError:
            return  # logged by db(); rooms are then driven once someone opens them
        for code in codes[:limit]:
            with contextlib.suppress(FiveDiceError):
                await self.room(code)

    async def handle(self, room: Room, client: Client, msg: Any) -> None:
        """Act on one validated message from ``client`` (for the seat it names, on a pass-and-play connection)."""
        seat = client.acting(getattr(msg, "seat", None))
        if isinstance(msg, Hello):
            raise RoomError(_("This connection has already said hello; send intents now."))
        if isinstance(msg, Simple) and msg.type == "ping":
            client.send(json.dumps({"type": "pong", "id": msg.id}))
            return
        if isinstance(msg, Simple) and msg.type == "analysis":  # read-only: spectators may ask too
            analysis = await self.results.analysis(room)
            client.send(json.dumps({"type": "analysis", "id": msg.id, "analysis": analysis}))
            return
        if isinstance(msg, Simple) and msg.type == "challenge":
            client.send(json.dumps({"type": "challenge", "id": msg.id, **(await self.results.challenge(room))}))
            return
        if seat is None:
            raise RoomError(_("Spectators can watch but not act or chat; join the room to play."))
        if isinstance(msg, Chat):
            name = room.seats[seat].name or ""
            line = await self.db(partial(self.extras.add_chat, room.code, seat, name, msg.text, now=self.clock()))
            await self._message(room, line)
            return
        if not isinstance(msg, INTENTS):
            if msg.type == "hint":
                hint = await self.results.hint(room, seat, again=msg.again)
                client.send(json.dumps({"type": "hint", "id": msg.id, **hint}))
            return
        sent: tuple[int, tuple[Client, int | None]] = (msg.version, (client, msg.id))
        if isinstance(msg, RollIntent | ScoreIntent):
            await self._change(room, seat, "seat", partial(decisions.play, seat, msg), *sent)
        elif msg.type == "undo":
            await self._change(room, seat, "seat", partial(decisions.undo, seat), *sent)
        elif msg.type == "redo":
            await self._change(room, seat, "seat", partial(decisions.redo, seat), *sent)
        elif msg.type == "start":
            await self._change(room, seat, "seat", partial(decisions.start, seat), *sent)
            await self._message(room, notice(STARTED))
        elif msg.type == "rematch":
            await self._change(room, seat, "seat", partial(decisions.rematch, seat), *sent)
            await self._message(room, notice(N_("{who} started a rematch."), who=room.seats[seat].name))
