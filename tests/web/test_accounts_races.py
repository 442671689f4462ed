"""Races between server processes on PostgreSQL, played with threads on one database: failed sign-ins
counted at the same moment are all counted, and one seat claimed twice at once goes to one account."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import Any

import pytest

from fivedice.table.seat import SeatKind
from fivedice.web.accounts import _retrying
from fivedice.web.accounts_db import AccountStore
from fivedice.web.db import RoomStore, SeatRow
from tests.web.test_processes import pg_prefix  # noqa: F401 - the fixture


@pytest.fixture
def store(pg_prefix: tuple[str, str]) -> Iterator[AccountStore]:  # noqa: F811 - the imported fixture
    url, prefix = pg_prefix
    rooms = RoomStore(url, prefix)
    yield AccountStore(rooms)
    rooms.dispose()


def at_once(calls: Sequence[Callable[[], Any]]) -> list[Any]:
    """Run the calls in threads released together; their results (or exceptions) in order."""
    gate = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(i: int) -> None:
        gate.wait()
        try:
            results[i] = calls[i]()
        except Exception as exc:
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return results


def test_failed_sign_ins_at_the_same_moment_are_all_counted(store: AccountStore) -> None:
    spend = partial(store.spend, ["n:race"], now=1000.0, rate=0.0, burst=20.0)
    results = at_once([partial(_retrying, spend) for _ in range(8)])
    assert [r for r in results if isinstance(r, Exception)] == []
    with store.begin() as conn:
        tokens = (
            conn.execute(store.t.limits.select().where(store.t.limits.c.key == "n:race")).mappings().one()["tokens"]
        )
    assert tokens == 20.0 - 8  # none lost to a read-modify-write race


def test_one_seat_claimed_twice_at_once_goes_to_one_account(store: AccountStore) -> None:
    store.store.create("RACE2345", "yacht", {}, [SeatRow(0, "Zoe", SeatKind.HUMAN, None, "h")], now=1.0)
    ann = store.create("Ann", None, now=1.0)
    bob = store.create("Bob", None, now=1.0)
    binds = [partial(_retrying, partial(store.bind, "RACE2345", 0, who.id, now=2.0)) for who in (ann, bob) * 3]
    results = at_once(binds)
    assert [r for r in results if isinstance(r, Exception)] == []
    owner = store.owners("RACE2345")[0]
    assert results == [who.id == owner for who in (ann, bob) * 3]  # the owner's calls say yes, the other's no
