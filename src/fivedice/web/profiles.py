"""Profiles, ratings and leaderboards of accounts: each finished game of an account's seat is kept (with its
analysis: luck and decisions) after the room expires, and read back as the profile of
:mod:`fivedice.services.profile`.

``GET /api/me/stats``                 the signed-in account's profile: games, wins, best, mean, the skill
                                      ``rating`` (OpenSkill) and the ``decision_rating``, rivals, bests per
                                      rule set, luck and loss over time, achievements, history with replays
``PUT /api/me/profile``               ``{"public": false}`` hides the public profile (and the leaderboards)
``GET /api/profiles/{name}``          an account's public profile (404 when hidden or unknown, alike)
``GET /api/leaderboards/ratings``     ``?rules=SPEC``: the accounts by skill rating and by decision rating
``GET /profile``, ``/profile/{name}`` the profile page

Recording listens to every room change (:attr:`RoomService.listeners`): a finished game's account seats are
analysed in a worker thread and inserted in one transaction, whose unique key ``(code, game_no, seat)`` lets
exactly one process (and one call) record it and update the ratings.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse
from pydantic import BaseModel, ConfigDict
from sqlalchemy import Connection, insert, select, update
from sqlalchemy.exc import IntegrityError

from fivedice.errors import FiveDiceError
from fivedice.i18n import _
from fivedice.rules import parse_spec
from fivedice.services.profile import PlayedGame, count_yahtzees, decision_rating, profile
from fivedice.table.seat import SeatKind
from fivedice.web.account_errors import AccountError
from fivedice.web.accounts import FORMER
from fivedice.web.db import RoomStatus
from fivedice.web.profile_tables import ProfileTables, profile_tables
from fivedice.web.timeouts import final_places

if TYPE_CHECKING:
    from fivedice.table import Table
    from fivedice.web.accounts import Accounts
    from fivedice.web.accounts_db import AccountRow
    from fivedice.web.rooms import Room

__all__ = ["HISTORY", "ProfileNotFoundError", "Profiles", "Rating", "rate", "router"]

log = logging.getLogger("fivedice.web")
HISTORY = 500
"""Games of an account a profile reads at most (the newest)."""
BOARD = 20
"""Accounts a leaderboard lists."""
BOARD_GAMES = 5000
"""Newest games of a rule set the decision leaderboard reads at most."""
STATIC = Path(__file__).with_name("static")
_REPLAY_ID = re.compile(r"^[A-Za-z0-9_-]{12}$")


class ProfileNotFoundError(AccountError):
    """No public profile by that name (unknown and hidden look the same: no enumeration)."""

    status = 404


class ProfileSetting(BaseModel):
    """``PUT /api/me/profile``: whether the public profile (and the leaderboards) show this account."""

    model_config = ConfigDict(extra="forbid")
    public: bool


@dataclass(frozen=True, slots=True)
class Rating:
    """An OpenSkill (Weng-Lin, Plackett-Luce) rating: ``mu`` with uncertainty ``sigma``; ``ordinal`` is
    ``mu - 3 sigma``, what leaderboards rank by."""

    mu: float
    sigma: float
    games: int = 0

    @property
    def ordinal(self) -> float:
        """A conservative estimate of skill."""
        return self.mu - 3 * self.sigma

    def to_json(self) -> dict[str, Any]:
        """The rating as JSON-ready data."""
        return {"mu": self.mu, "sigma": self.sigma, "ordinal": self.ordinal, "games": self.games}


def rate(ratings: list[Rating | None], places: list[int]) -> list[Rating]:
    """The ratings after one game of these players (None: unrated) finishing at ``places`` (1 best, ties
    shared), by OpenSkill's Plackett-Luce model with its defaults."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    teams = [[model.rating() if r is None else model.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
    after = model.rate(teams, ranks=[float(p) for p in places])
    return [
        Rating(float(t[0].mu), float(t[0].sigma), (0 if r is None else r.games) + 1)
        for t, r in zip(after, ratings, strict=True)
    ]


@dataclass(frozen=True, slots=True)
class _Row:
    """One account seat's finished game, ready to insert."""

    account: int
    seat: int
    values: dict[str, Any]


class Profiles:
    """Recording finished games per account, and reading profiles, ratings and leaderboards."""

    def __init__(self, accounts: Accounts) -> None:
        self.accounts = accounts
        self.t: ProfileTables = profile_tables(accounts.service.store.tables)
        self.seen: set[tuple[str, int]] = set()
        self.tasks: set[asyncio.Task[None]] = set()
        self._replays: Any = None

    # -- recording ------------------------------------------------------------------------------
    def on_change(self, room: Room) -> None:
        """A room changed: a game just over is recorded for its account seats (once per process). Never
        raises: the room service's other work after a change (high scores, computers) goes on."""
        try:
            self._on_change(room)
        except Exception as exc:
            log.warning("could not start recording room %s in the profiles: %s", room.code, exc)

    def _on_change(self, room: Room) -> None:
        if room.status != RoomStatus.OVER or room.table is None or not room.table.is_over:
            return
        key = (room.code, room.row.game_no)
        if key in self.seen:
            return
        self.seen.add(key)
        if len(self.seen) > 10_000:
            self.seen = {key}
        seats = [[s.seat, s.name, s.kind.value, s.level] for s in room.seats]  # never the token hashes
        kept = {"spec": room.spec, "names": list(room.names), "seats": seats, "settings": room.settings}
        places = final_places(room.policy, room.table)  # a seat that forfeited ranks after the others
        task = asyncio.get_running_loop().create_task(
            self.record(room.code, room.row.game_no, room.table, kept, places)
        )
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def settled(self) -> None:
        """Wait until every recording under way has finished (tests, shutdown)."""
        while self.tasks:
            await asyncio.gather(*list(self.tasks), return_exceptions=True)

    async def record(
        self,
        code: str,
        game_no: int,
        table: Table,
        kept: dict[str, Any] | None = None,
        places: dict[int, int] | None = None,
    ) -> None:
        """Record game ``game_no`` of room ``code`` for each seat an account owns (nothing without one), with
        what its replay needs once the room is gone (``kept``: the room's spec, names, seats and settings) and
        the room's ``places`` (None: the engine's; a seat that forfeited ranks after the others)."""
        accounts = self.accounts
        try:
            owners = await accounts.db(accounts.store.owners, code)
            if not owners or await accounts.db(self._recorded, code, game_no):
                return  # no account seat, or another process recorded it already
            now = accounts.service.clock()
            replay = await accounts.db(self._replay, code, game_no, now)
            if kept is not None:
                moves = await accounts.db(accounts.service.store.moves, code, game_no)
                kept = kept | {"moves": [[m.seq, m.seat, m.by, m.record, m.at] for m in moves]}
            rows = await asyncio.to_thread(
                _rows, table, owners, now, replay, None if kept is None else json.dumps(kept), places
            )
            await accounts.db(self._insert, code, game_no, rows, table.rules.spec, now)
        except Exception as exc:  # the game itself is kept; only its profile entry is missing
            log.warning("could not record room %s game %d in the profiles: %s", code, game_no, exc)

    def _recorded(self, code: str, game_no: int) -> bool:
        g = self.t.games
        with self.accounts.store.begin() as conn:
            found = conn.execute(select(g.c.id).where(g.c.code == code, g.c.game_no == game_no).limit(1)).first()
        return found is not None

    def _replay(self, code: str, game_no: int, now: float) -> str | None:
        from fivedice.web.replay import ReplayStore

        if self._replays is None:
            self._replays = ReplayStore(self.accounts.service.store)
        try:
            return str(self._replays.share(code, game_no, now=now))
        except FiveDiceError:
            return None

    def _insert(self, code: str, game_no: int, rows: list[_Row], spec: str, now: float) -> None:
        g = self.t.games
        try:
            with self.accounts.store.begin() as conn:
                for row in rows:
                    conn.execute(insert(g).values(account=row.account, code=code, game_no=game_no, **row.values))
                if len(rows) >= 2:  # a skill rating needs rated rivals: accounts only
                    self._rate(conn, rows, spec, now)
        except IntegrityError:  # recorded already (another process, or a replayed change)
            return

    def _rate(self, conn: Connection, rows: list[_Row], spec: str, now: float) -> None:
        r = self.t.ratings
        ids = [row.account for row in rows]
        found = {
            int(x.account): Rating(float(x.mu), float(x.sigma), int(x.games))
            for x in conn.execute(select(r).where(r.c.spec == spec, r.c.account.in_(ids)))
        }
        after = rate([found.get(a) for a in ids], [int(row.values["place"]) for row in rows])
        for account, new in zip(ids, after, strict=True):
            values = {"mu": new.mu, "sigma": new.sigma, "games": new.games, "updated": now}
            if account in found:
                conn.execute(update(r).where(r.c.account == account, r.c.spec == spec).values(**values))
            else:
                conn.execute(insert(r).values(account=account, spec=spec, **values))

    def kept_replay(self, replay: str) -> dict[str, Any]:
        """The frames of a recorded game by its replay id, from the moves kept with it (the room may be gone)."""
        from fivedice.web.db import MoveRow, SeatRow
        from fivedice.web.errors import RoomNotFoundError
        from fivedice.web.replay import frames

        g = self.t.games
        found = None
        if _REPLAY_ID.match(replay):
            with self.accounts.store.begin() as conn:
                query = select(g.c.game_no, g.c.kept).where(g.c.replay == replay, g.c.kept.is_not(None)).limit(1)
                found = conn.execute(query).first()
        if found is None:
            raise RoomNotFoundError(_("Replay {id!r} does not exist; check the link.", id=replay[:20]))
        kept = json.loads(found.kept)
        moves = [MoveRow(int(q), int(s), str(b), dict(r), float(a)) for q, s, b, r, a in kept["moves"]]
        seats = [SeatRow(int(s), n, SeatKind(k), lv, None) for s, n, k, lv in kept["seats"]]
        data = frames(kept["spec"], tuple(kept["names"]), moves, seats, kept["settings"])
        return {"id": replay, "game_no": int(found.game_no), **data}

    # -- reading --------------------------------------------------------------------------------
    def played(self, account: int) -> list[PlayedGame]:
        """The account's newest :data:`HISTORY` games, oldest first."""
        g = self.t.games
        query = select(g).where(g.c.account == account).order_by(g.c.at.desc(), g.c.id.desc()).limit(HISTORY)
        a = self.accounts.store.t.accounts
        with self.accounts.store.begin() as conn:
            found = conn.execute(query).mappings().all()
            rivals = {int(o[2]) for m in found for o in json.loads(m["opponents"]) if len(o) > 2 and o[2] is not None}
            names = {int(x.id): str(x.name) for x in conn.execute(select(a.c.id, a.c.name).where(a.c.id.in_(rivals)))}
        return [_played(m, names) for m in reversed(found)]

    def ratings(self, account: int) -> dict[str, Rating]:
        """The account's skill rating per rule set."""
        r = self.t.ratings
        with self.accounts.store.begin() as conn:
            rows = conn.execute(select(r).where(r.c.account == account)).all()
        return {str(x.spec): Rating(float(x.mu), float(x.sigma), int(x.games)) for x in rows}

    def stats(self, account: int) -> dict[str, Any]:
        """The profile of ``account`` as JSON-ready data (see the module's docstring)."""
        played = self.played(account)
        ratings = self.ratings(account)
        data = profile(played).to_json()
        by_games = sorted(ratings.items(), key=lambda kv: (-kv[1].games, kv[0]))
        data["rating"] = by_games[0][1].to_json() | {"rules": by_games[0][0]} if by_games else None
        data["ratings"] = [v.to_json() | {"rules": k} for k, v in by_games]
        return data

    def leaderboards(self, spec: str) -> dict[str, Any]:
        """The public accounts of rule set ``spec`` by skill rating (ordinal) and by decision rating."""
        a, r, g = self.accounts.store.t.accounts, self.t.ratings, self.t.games
        with self.accounts.store.begin() as conn:
            rated = conn.execute(
                select(a.c.name, a.c.prefs, r.c.mu, r.c.sigma, r.c.games)
                .join(a, a.c.id == r.c.account)
                .where(r.c.spec == spec)
                .order_by((r.c.mu - 3 * r.c.sigma).desc(), a.c.id)
                .limit(BOARD * 5)
            ).all()
            recent = conn.execute(
                select(g.c.account, g.c.at, g.c.loss, g.c.decisions)
                .where(g.c.spec == spec, g.c.loss.is_not(None))
                .order_by(g.c.at.desc(), g.c.id.desc())
                .limit(BOARD_GAMES)
            ).all()
            names = {
                int(x.id): (str(x.name), _public(x.prefs))
                for x in conn.execute(
                    select(a.c.id, a.c.name, a.c.prefs).where(a.c.id.in_({x.account for x in recent}))
                )
            }
        skill: list[dict[str, Any]] = []
        for x in rated:
            if _public(x.prefs) and len(skill) < BOARD:
                rating = Rating(float(x.mu), float(x.sigma), int(x.games))
                skill.append({"rank": len(skill) + 1, "name": str(x.name)} | rating.to_json())
        per: dict[int, list[PlayedGame]] = {}
        for x in reversed(recent):
            per.setdefault(int(x.account), []).append(
                PlayedGame("", float(x.at), spec, 1, 0, 1, decisions=x.decisions, loss=x.loss)
            )
        rows = []
        for account, games in per.items():
            name, public = names.get(account, ("", False))
            dr = decision_rating(games)
            if public and dr is not None:
                rows.append((dr.mean, name, dr))
        rows.sort(key=lambda row: (row[0], row[1]))
        decisions = [
            {
                "rank": i + 1,
                "name": name,
                "mean": d.mean,
                "low": d.low,
                "high": d.high,
                "games": d.games,
                "grade": d.grade,
            }
            for i, (_mean, name, d) in enumerate(rows[:BOARD])
        ]
        return {"rules": spec, "skill": skill, "decisions": decisions}


def _public(prefs: str | None) -> bool:
    try:
        return not bool(json.loads(prefs or "{}").get("profile_hidden", False))
    except (ValueError, AttributeError):
        return True


def _opponent(entry: list[Any], names: dict[int, str]) -> tuple[str, int]:
    """``(name, place)`` of an opponent: an account's current name (a deleted one's anonymised)."""
    name, place, account = (*entry, None)[:3]
    if account is None:
        return str(name), int(place)
    return names.get(int(account), FORMER.format(id=int(account))), int(place)


def _played(m: Any, names: dict[int, str]) -> PlayedGame:
    opponents = tuple(_opponent(o, names) for o in json.loads(m["opponents"]))
    return PlayedGame(
        game=f"{m['code']}/{m['game_no']}",
        played_at=float(m["at"]),
        rules=str(m["spec"]),
        players=int(m["players"]),
        total=int(m["total"]),
        place=int(m["place"]),
        upper_bonus=int(m["upper_bonus"]),
        has_upper_bonus=bool(m["has_bonus"]),
        yahtzees=int(m["yahtzees"]),
        decisions=m["decisions"],
        loss=m["loss"],
        optimal=m["optimal"],
        opponents=opponents,
        challenge=m["challenge"],
        benchmark=m["benchmark"],
        replay=f"/replay/{m['replay']}" if m["replay"] else None,
    )


def _rows(
    table: Table,
    owners: dict[int, int],
    now: float,
    replay: str | None,
    kept: str | None,
    ranked: dict[int, int] | None = None,
) -> list[_Row]:
    """In a worker: each account seat's row, with the game's analysis (where the solver rates the rules) and
    its place (``ranked``'s where given, else the engine's)."""
    game, state, rules = table.game, table.state, table.rules
    places = {s.seat: s.place for s in state.standings()} | (ranked or {})
    names = list(state.players)
    analysis = None
    if rules.solver_refusal() is None:
        from fivedice.services.analysis import analyze

        try:
            analysis = analyze(game)
        except FiveDiceError:
            analysis = None
    benchmark = None
    if table.challenge is not None:
        from fivedice.table.challenge import goal

        try:
            benchmark = goal(rules, table.challenge).total
        except FiveDiceError:
            benchmark = None
    rows = []
    for seat, account in sorted(owners.items()):
        if seat >= len(names):
            continue
        summary = analysis.players[seat] if analysis is not None else None
        card = state.cards[seat][0]
        rows.append(
            _Row(
                account,
                seat,
                {
                    "seat": seat,
                    "at": now,
                    "spec": rules.spec,
                    "players": len(names),
                    "total": state.total(seat),
                    "place": places[seat],
                    "upper_bonus": int(card.upper_bonus),
                    "has_bonus": bool(rules.upper_bonus),
                    "yahtzees": count_yahtzees(game, seat),
                    "decisions": None if summary is None else summary.decisions,
                    "loss": None if summary is None else summary.points_loss,
                    "optimal": None if summary is None else summary.optimal,
                    "opponents": json.dumps(
                        [[names[s], places[s], owners.get(s)] for s in range(len(names)) if s != seat]
                    ),
                    "challenge": table.challenge,
                    "benchmark": benchmark,
                    "replay": replay,
                    "kept": kept,
                },
            )
        )
    return rows


def _spec(text: str) -> str:
    """A rule set given by the page, checked: its canonical spec."""
    try:
        return parse_spec(text[:200]).spec
    except FiveDiceError as exc:
        raise AccountError(str(exc)) from None


def router(profiles: Profiles) -> APIRouter:
    """The routes of the module's docstring."""
    api = APIRouter()
    accounts = profiles.accounts
    auth, db = accounts.auth, accounts.db

    async def public(name: str) -> AccountRow:
        found = await db(accounts.store.by_name, name[:40]) if name.strip() else None
        if found is None or found.prefs.profile_hidden:
            raise ProfileNotFoundError(_("There is no public profile called {name!r}.", name=name[:40]))
        return found

    @api.get("/api/me/stats")
    async def my_stats(request: Request) -> dict[str, Any]:
        account, _session = await auth.require(request)
        data = await db(profiles.stats, account.id)
        return {"name": account.name, "public": not account.prefs.profile_hidden} | data

    @api.put("/api/me/profile")
    async def set_public(request: Request, body: ProfileSetting) -> dict[str, Any]:
        account, _session = await auth.require(request)
        prefs = account.prefs.model_copy(update={"profile_hidden": not body.public})
        await db(accounts.store.set_prefs, account.id, prefs)
        return {"public": body.public}

    @api.get("/api/profiles/{name}")
    async def public_stats(name: str) -> dict[str, Any]:
        account = await public(name)
        data = await db(profiles.stats, account.id)
        for game in data["history"]:
            game.pop("opponents", None)  # other players' names stay on the player's own page
            game["replay"] = None
        data["rivals"] = []
        return {"name": account.name, "public": True} | data

    @api.get("/api/replays/kept/{replay}")
    async def kept_replay(replay: str) -> dict[str, Any]:
        return await db(profiles.kept_replay, replay)

    @api.get("/api/leaderboards/ratings")
    async def boards(rules: str = "yahtzee") -> dict[str, Any]:
        return await db(profiles.leaderboards, _spec(rules))

    @api.get("/profile", include_in_schema=False)
    @api.get("/profile/{name}", include_in_schema=False)
    async def page(name: str | None = None) -> FileResponse:
        return FileResponse(STATIC / "profile.html", media_type="text/html")

    return api
