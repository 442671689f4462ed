"""The snapshot's pieces are kept and made again only for what changed (:class:`~fivedice.web.snapshot.
SnapshotBuilder`): over whole played games (rolls, scores, undo, redo, the roll-off, a computer, people coming
and going, a rematch), every snapshot the room's builder makes is exactly what a fresh builder makes of the
room, and the delta from any earlier snapshot of the game, applied as the page applies it, gives it."""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import replace
from functools import partial
from typing import Any

import pytest

from fivedice.web import decisions
from fivedice.web.db import RoomStatus, RoomStore
from fivedice.web.errors import RoomError
from fivedice.web.models import CreateRoom, JoinRoom, RollIntent, ScoreIntent
from fivedice.web.rooms import Client, Room
from fivedice.web.service import RoomService
from fivedice.web.snapshot import Pieces, SnapshotBuilder, apply_delta, delta

State = dict[str, Any]


def applied(state: State, members: str) -> State:
    """``state`` after a delta's members, as ``static/delta.js`` applies them."""
    return apply_delta(state, json.loads("{" + members + "}"))


def intent(room: Room, rng: random.Random) -> RollIntent | ScoreIntent:
    """A roll (sometimes keeping the most common face) or the best score, like a quick player."""
    assert room.table is not None
    state = room.table.state
    if state.dice is None:
        return RollIntent(type="roll", version=room.version)
    options = state.options()
    (card, box), points = max(options.items(), key=lambda kv: (kv[1], rng.random()))
    if state.rolls_left > 0 and points < 20 and rng.random() < 0.6:
        face = max(set(state.dice), key=state.dice.count)
        keep = [i for i, v in enumerate(state.dice) if v == face]
        return RollIntent(type="roll", keep=keep, version=room.version)
    return ScoreIntent(type="score", box=box, card=card, version=room.version)


class Checker:
    """Builds the room's snapshot after every step and checks it against a fresh builder and the deltas."""

    def __init__(self, room: Room, rng: random.Random) -> None:
        self.room, self.rng = room, rng
        self.seen: list[Pieces] = []
        self.checked = 0

    async def check(self) -> None:
        async with self.room.lock:  # as the room service builds it: no change half made meanwhile
            self._check()

    def _check(self) -> None:
        room = self.room
        pieces = room.pieces()
        fresh = SnapshotBuilder(room.rules).build(room)
        assert pieces.text() == fresh.text()
        assert (pieces.game, pieces.events, pieces.keys) == (fresh.game, fresh.events, fresh.keys)
        whole = json.loads(pieces.text())
        if self.seen and self.seen[-1].top["game_no"] != pieces.top["game_no"]:
            self.seen.clear()  # another game: its clients get the whole state
        for base in {id(b): b for b in [*self.seen[-1:], *self.rng.sample(self.seen, min(2, len(self.seen)))]}.values():
            assert applied(json.loads(base.text()), delta(base, pieces)) == whole
            unknown = replace(base, line=None)  # the lines compared one by one instead of counted
            assert applied(json.loads(base.text()), delta(unknown, pieces)) == whole
        self.seen.append(pieces)
        self.checked += 1


async def play_games(seed: int) -> int:
    rng = random.Random(seed)
    service = RoomService(RoomStore("sqlite://"), seed=seed, scores=False, chances=False, computer_delay=0.0)
    made = await service.create(
        CreateRoom(name="Ann", rules="yacht", humans=2, computers=["greedy"] if seed % 2 else [], undo=True)
    )
    await service.join(made["code"], JoinRoom(name="Bob"))
    room = await service.room(made["code"])
    check = Checker(room, rng)
    await check.check()
    clients: list[Client] = []
    games = 0
    await service._change(room, 0, "seat", partial(decisions.start, 0))
    while games < 2:
        await check.check()
        if rng.random() < 0.05:  # someone comes or goes: a new presence revision
            async with room.lock:
                if clients and rng.random() < 0.5:
                    room.presence.clients.discard(clients.pop())
                else:
                    clients.append(Client(rng.choice([None, 0, 1]), name=rng.choice([None, "Cy"])))
                    room.presence.clients.add(clients[-1])
                room.presence.changed()
            continue
        if room.status == RoomStatus.OVER:
            games += 1
            await service._change(room, 0, "seat", partial(decisions.rematch, 0))
            continue
        seat = room.current_seat()
        table = room.table
        if seat is None or table is None or table.automatic() is not None or seat.kind != "human":
            await asyncio.sleep(0.001)  # the driver's turn: the table's roll-off, the computer
            continue
        if rng.random() < 0.08:
            who = room.undo_by()
            if who is not None:
                await service._change(room, who, "seat", partial(decisions.undo, who))
                continue
            if room.redo_by() is not None:
                await service._change(room, seat.seat, "seat", partial(decisions.redo, seat.seat))
                continue
        try:
            await service._change(room, seat.seat, "seat", partial(decisions.play, seat.seat, intent(room, rng)))
        except RoomError:
            await asyncio.sleep(0.001)  # the table moved first (its own roll)
    await service.close()
    return check.checked


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_kept_pieces_are_the_fresh_snapshot_and_deltas_give_it(seed: int) -> None:
    assert asyncio.run(play_games(seed)) > 100
