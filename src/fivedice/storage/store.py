"""The :class:`Store`: finished games, high scores, player history, profiles and settings.

SQLAlchemy 2 over SQLite (a file under the user data directory by default) or PostgreSQL.
The location is ``Store(url)``, else the ``FIVEDICE_DB`` environment variable, else
``<user data dir>/fivedice.db``. A bare file path is taken as a SQLite file. Opening an
older database upgrades it in place (a SQLite file is first copied to ``*.v<N>.bak``).
A locked, damaged or unreachable database raises :class:`StoreError` with a clear message.
"""

from __future__ import annotations

import contextlib
import json
import shutil
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, delete, func, insert, inspect, select, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, IntegrityError, NoSuchModuleError, SQLAlchemyError
from sqlalchemy.pool import StaticPool

from fivedice.engine import saves
from fivedice.engine.game import Game
from fivedice.errors import FiveDiceError
from fivedice.i18n import _
from fivedice.rules import RuleSet, parse_spec
from fivedice.rules import get as get_rules
from fivedice.rules.ruleset import normalize_name
from fivedice.storage import migrate
from fivedice.storage.schema import SCHEMA_VERSION, games, metadata, profiles, results, settings, version
from fivedice.storage.url import ENV_VAR, resolve_url
from fivedice.table import Table
from fivedice.table.seat import Seat

__all__ = ["ENV_VAR", "GameSummary", "History", "PlayerProfile", "ScoreRow", "Store", "StoreError", "resolve_url"]


class StoreError(FiveDiceError):
    """The score database cannot be opened, read or written."""


PlayerProfile = Seat
"""A remembered player is a :class:`~fivedice.table.seat.Seat`: a name, "human" or "computer", a level."""


@dataclass(frozen=True, slots=True)
class ScoreRow:
    """One line of the high-score table (``rank`` is shared on equal totals)."""

    rank: int
    name: str
    total: int
    rules: str
    players: int
    played_at: datetime
    game_id: int
    kind: str
    level: str | None
    undos: int = 0
    challenge: str | None = None


@dataclass(frozen=True, slots=True)
class GameSummary:
    """One player's result in one stored game."""

    game_id: int
    played_at: datetime
    rules: str
    players: int
    total: int
    place: int
    upper_bonus: int
    yahtzee_bonus: int
    loss: float | None
    decisions: int | None
    source: str
    has_upper_bonus: bool


@dataclass(frozen=True, slots=True)
class History:
    """A player's stored games (newest first) and statistics over them."""

    player: str
    games: tuple[GameSummary, ...]

    @property
    def count(self) -> int:
        """Number of games."""
        return len(self.games)

    @property
    def mean(self) -> float | None:
        """Mean total, or None without games."""
        return sum(g.total for g in self.games) / len(self.games) if self.games else None

    @property
    def best(self) -> int | None:
        """Best total, or None without games."""
        return max((g.total for g in self.games), default=None)

    @property
    def wins(self) -> int:
        """Multiplayer games won (first place, shared or not)."""
        return sum(1 for g in self.games if g.players > 1 and g.place == 1)

    @property
    def bonus_rate(self) -> float | None:
        """Share of games (among rule sets with an upper bonus) that earned it."""
        eligible = [g for g in self.games if g.has_upper_bonus]
        return sum(1 for g in eligible if g.upper_bonus > 0) / len(eligible) if eligible else None

    @property
    def mean_loss(self) -> float | None:
        """Mean expected points lost per decision, over the analysed games (None if none)."""
        analysed = [g for g in self.games if g.loss is not None and g.decisions]
        decisions = sum(g.decisions or 0 for g in analysed)
        return sum(g.loss or 0.0 for g in analysed) / decisions if decisions else None


def _utc(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _has_upper_bonus(spec: str) -> bool:
    try:
        return bool(parse_spec(spec).upper_bonus)
    except FiveDiceError:
        return True


class Store:
    """Finished games with their move logs, high scores, history, profiles and settings."""

    def __init__(self, url: str | None = None, *, timeout: float = 2.0) -> None:
        self.url = resolve_url(url)
        try:
            parsed = make_url(self.url)
        except (ArgumentError, ValueError):
            raise StoreError(
                _("Database URL {url!r} is not valid; expected e.g. 'sqlite:///scores.db'.", url=self.url)
            ) from None
        is_file = parsed.drivername.startswith("sqlite") and parsed.database not in (None, "", ":memory:")
        self._file = Path(str(parsed.database)) if is_file else None
        self.where = str(self._file) if self._file is not None else parsed.render_as_string(hide_password=True)
        sqlite = parsed.drivername.startswith("sqlite")
        options: dict[str, Any] = {}
        if sqlite:
            options["connect_args"] = {"timeout": timeout}
            if self._file is None:
                options["poolclass"] = StaticPool
        elif parsed.drivername.startswith("postgresql"):
            options["connect_args"] = {"connect_timeout": max(1, round(timeout))}
        if self._file is not None:
            try:
                self._file.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(
                    _(
                        "The score database folder {path!r} cannot be made: {error}.",
                        path=str(self._file.parent),
                        error=exc,
                    )
                ) from None
        try:
            self.engine: Engine = create_engine(self.url, **options)
        except (NoSuchModuleError, ArgumentError, ImportError) as exc:
            raise StoreError(_("Database URL {url!r} cannot be used: {error}.", url=self.where, error=exc)) from None
        with self._guard():
            self._open()

    # -- opening and errors ---------------------------------------------------------------
    @contextlib.contextmanager
    def _guard(self) -> Iterator[None]:
        try:
            yield
        except StoreError:
            raise
        except DBAPIError as exc:
            text = str(exc.orig).lower()
            if "locked" in text:
                msg = _(
                    "The score database {where!r} is locked by another program; try again when it is closed.",
                    where=self.where,
                )
            elif "not a database" in text or "malformed" in text or "corrupt" in text:
                msg = _(
                    "The score database {where!r} is damaged or not a fivedice database; move it aside.",
                    where=self.where,
                )
            else:
                first = str(exc.orig).strip().splitlines()[0]
                msg = _("The score database {where!r} cannot be used: {error}.", where=self.where, error=first)
            raise StoreError(msg) from None
        except SQLAlchemyError as exc:
            raise StoreError(
                _("The score database {where!r} cannot be used: {error}.", where=self.where, error=exc)
            ) from None

    @staticmethod
    def _version(conn: Connection) -> tuple[int | None, set[str]]:
        """The schema version (None before there is one) and the tables there are."""
        names = set(inspect(conn).get_table_names())
        current = conn.execute(select(version.c.version)).scalar() if version.name in names else None
        return current, names

    @contextlib.contextmanager
    def _schema_lock(self) -> Iterator[Connection]:
        """A connection in a transaction that holds the database's schema lock until it commits: SQLite's
        write lock (``BEGIN IMMEDIATE``: the tables and the version appear together, where pysqlite would
        commit each table on its own), PostgreSQL's advisory lock; so that stores opened at once on a new
        database make its schema once and never see it half made."""
        with self.engine.connect() as conn:
            if conn.dialect.name == "sqlite":
                conn.exec_driver_sql("BEGIN IMMEDIATE")
            elif conn.dialect.name == "postgresql":
                conn.exec_driver_sql("SELECT pg_advisory_xact_lock(hashtext('fivedice schema'))")
            yield conn
            conn.commit()

    def _open(self) -> None:
        with self.engine.connect() as conn:
            current, _names = self._version(conn)
        if current == SCHEMA_VERSION:
            return
        self._newer(current)
        with self._schema_lock() as conn:
            current, names = self._version(conn)  # another store may have made or upgraded it meanwhile
            self._newer(current)
            if current is None:
                if names & {games.name, results.name}:
                    raise StoreError(
                        _("The score database {where!r} has fivedice tables but no schema version.", where=self.where)
                    )
                metadata.create_all(conn)
                conn.execute(insert(version).values(id=1, version=SCHEMA_VERSION))
            elif current < SCHEMA_VERSION:
                if self._file is not None and self._file.exists():
                    shutil.copy2(self._file, self._file.with_name(f"{self._file.name}.v{current}.bak"))
                migrate.upgrade(conn, current)

    def _newer(self, current: int | None) -> None:
        if current is not None and current > SCHEMA_VERSION:
            raise StoreError(
                _(
                    "The score database {where!r} has schema version {current}, newer than this "
                    "fivedice ({supported}); upgrade fivedice.",
                    where=self.where,
                    current=current,
                    supported=SCHEMA_VERSION,
                )
            )

    @property
    def schema_version(self) -> int:
        """The database's schema version (always :data:`SCHEMA_VERSION` once open)."""
        with self._guard(), self.engine.connect() as conn:
            return int(conn.execute(select(version.c.version)).scalar_one())

    def close(self) -> None:
        """Release the database connections."""
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- games ---------------------------------------------------------------------------
    def record_game(
        self,
        game: Game,
        *,
        source: str = "terminal",
        computer: Mapping[int, str] | None = None,
        hints: Mapping[int, int] | None = None,
        losses: Mapping[int, tuple[float, int]] | None = None,
        undos: int = 0,
        challenge: str | None = None,
        save_json: str | None = None,
        places: Mapping[int, int] | None = None,
        origin: str | None = None,
    ) -> int:
        """Store a finished game with its full move log; returns its id.

        ``computer`` maps computer seats to their level, ``hints`` seats to hints used,
        ``losses`` seats to ``(expected points lost, decisions)`` from a game analysis;
        ``undos`` counts the undos used and ``challenge`` is the challenge code, if any;
        ``places`` each seat's place where it is not the engine's (a web room ranks a seat that forfeited
        after the others); ``origin`` where it was played, unique: a game of an ``origin`` stored already is
        not stored again (its id is returned), so a recording that may have been cut short can be retried.
        """
        state = game.state
        if not state.is_over:
            raise StoreError(_("The game is not over; only finished games are stored."))
        seats = range(len(game.players))
        for what, mapping in (("Computer", computer), ("Hint", hints), ("Loss", losses)):
            bad = [s for s in (mapping or {}) if s not in seats]
            if bad:
                raise StoreError(
                    _(
                        "{what} seat {seat!r} is not a seat; expected 0 to {last}.",
                        what=what,
                        seat=bad[0],
                        last=len(game.players) - 1,
                    )
                )
        place = {s.seat: s.place for s in state.standings()} | dict(places or {})
        now = datetime.now(UTC)
        rows = []
        for seat, name in enumerate(game.players):
            cards = state.cards[seat]
            level = (computer or {}).get(seat)
            loss = (losses or {}).get(seat)
            rows.append(
                {
                    "seat": seat,
                    "name": name,
                    "name_key": name.strip().casefold(),
                    "total": state.total(seat),
                    "place": place[seat],
                    "kind": "computer" if level is not None else "human",
                    "level": level,
                    "upper_total": sum(c.upper_total for c in cards),
                    "upper_bonus": sum(c.upper_bonus for c in cards),
                    "yahtzee_bonus": sum(c.yahtzee_bonus for c in cards),
                    "hints": (hints or {}).get(seat, 0),
                    "loss": None if loss is None else float(loss[0]),
                    "decisions": None if loss is None else int(loss[1]),
                }
            )
        values = {
            "played_at": now,
            "rules_name": game.rules.name,
            "rules_spec": game.rules.spec,
            "players": len(game.players),
            "source": source,
            "save_json": save_json if save_json is not None else saves.dumps(game),
            "undos": undos,
            "challenge": challenge,
            "origin": origin,
        }
        with self._guard():
            try:
                with self.engine.begin() as conn:
                    stored = self._game_from(conn, origin)
                    if stored is not None:
                        return stored
                    game_id = conn.execute(insert(games).values(values).returning(games.c.id)).scalar_one()
                    conn.execute(insert(results), [{**r, "game_id": game_id} for r in rows])
            except IntegrityError:  # the same origin stored at the same moment (another process's retry)
                with self.engine.connect() as conn:
                    stored = self._game_from(conn, origin)
                if stored is None:
                    raise
                return stored
        return int(game_id)

    @staticmethod
    def _game_from(conn: Connection, origin: str | None) -> int | None:
        """The id of the game stored from ``origin`` (None: no such game, or no origin)."""
        if origin is None:
            return None
        found = conn.execute(select(games.c.id).where(games.c.origin == origin)).scalar()
        return None if found is None else int(found)

    def record_table(
        self,
        table: Table,
        *,
        source: str = "terminal",
        losses: Mapping[int, tuple[float, int]] | None = None,
        places: Mapping[int, int] | None = None,
        origin: str | None = None,
    ) -> int:
        """Store a finished game of a :class:`~fivedice.table.Table`: its seats' levels, hints, undo count,
        challenge and the whole table save (dice tape included); returns its id. ``places`` and ``origin``: as
        in :meth:`record_game`."""
        computer = {i: s.level or "greedy" for i, s in enumerate(table.seats) if s.is_computer}
        return self.record_game(
            table.game,
            source=source,
            computer=computer,
            hints=table.hint_counts,
            losses=losses,
            undos=table.undos,
            challenge=table.challenge,
            save_json=json.dumps(table.to_data()),
            places=places,
            origin=origin,
        )

    def record_analysis(self, game_id: int, losses: Mapping[int, tuple[float, int]]) -> None:
        """Attach a game analysis to a stored game: per seat ``(expected points lost, decisions)``."""
        with self._guard(), self.engine.begin() as conn:
            for seat, (loss, decisions) in losses.items():
                conn.execute(
                    update(results)
                    .where(results.c.game_id == game_id, results.c.seat == seat)
                    .values(loss=float(loss), decisions=int(decisions))
                )

    def load_game(self, game_id: int) -> Game:
        """A stored game rebuilt from its move log."""
        with self._guard(), self.engine.connect() as conn:
            text = conn.execute(select(games.c.save_json).where(games.c.id == game_id)).scalar()
        if text is None:
            raise StoreError(_("Game {id!r} is not in the score database.", id=game_id))
        return saves.loads(text)

    def last_game_id(self) -> int | None:
        """The id of the newest stored game (None in an empty store)."""
        query = select(games.c.id).order_by(games.c.played_at.desc(), games.c.id.desc()).limit(1)
        with self._guard(), self.engine.connect() as conn:
            found = conn.execute(query).scalar()
        return None if found is None else int(found)

    def game_count(self) -> int:
        """How many games are stored."""
        with self._guard(), self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(games)).scalar_one())

    # -- high scores and history -----------------------------------------------------------
    def rules_filter(self, text: str) -> str | RuleSet:
        """A ``--rules`` filter checked: a rule set from a spec (``yahtzee joker=free``) or a TOML file, or a
        name, which must be a built-in's or one with recorded games (a house rule set); else
        :class:`~fivedice.errors.RuleSetError` names the value and what was expected."""
        if "=" in text or " " in text.strip():
            return parse_spec(text)
        if text.endswith(".toml") or "/" in text:
            return get_rules(text)
        key = normalize_name(text)
        with self._guard(), self.engine.connect() as conn:
            recorded = conn.execute(select(games.c.rules_name).where(games.c.rules_name == key).limit(1)).first()
        if recorded is None:
            get_rules(text)  # an unknown name raises, naming the built-in rule sets
        return text

    @staticmethod
    def _rules_clause(rules: str | RuleSet | None) -> Any:
        if rules is None:
            return None
        if isinstance(rules, RuleSet):
            return games.c.rules_spec == rules.spec
        if "=" in rules or " " in rules.strip():
            return games.c.rules_spec == parse_spec(rules).spec
        return games.c.rules_name == normalize_name(rules)

    def high_scores(
        self,
        rules: str | RuleSet | None = None,
        limit: int = 10,
        *,
        solo: bool | None = None,
        challenge: str | None = None,
    ) -> list[ScoreRow]:
        """The best totals, best first: ``rules`` is a name (every variant), a spec or a
        :class:`RuleSet` (that exact variant); ``solo`` keeps only solo (True) or
        multiplayer (False) games; ``challenge`` only the games of that challenge (its leaderboard).
        Equal totals share a rank, as in a game's standings; the earlier game is listed first."""
        query = select(
            results.c.name, results.c.total, games.c.rules_spec, games.c.players, games.c.played_at,
            games.c.id, results.c.kind, results.c.level, games.c.undos, games.c.challenge,
        ).join(games, games.c.id == results.c.game_id)  # fmt: skip
        clause = self._rules_clause(rules)
        if clause is not None:
            query = query.where(clause)
        if solo is not None:
            query = query.where(games.c.players == 1 if solo else games.c.players > 1)
        if challenge is not None:
            query = query.where(games.c.challenge == challenge)
        order = (results.c.total.desc(), games.c.played_at, games.c.id, results.c.seat)
        query = query.order_by(*order).limit(max(0, limit))
        with self._guard(), self.engine.connect() as conn:
            found = conn.execute(query).all()
        out: list[ScoreRow] = []
        for i, (name, total, spec, players, played, gid, kind, level, undos, code) in enumerate(found):
            rank = out[-1].rank if out and out[-1].total == total else i + 1
            out.append(ScoreRow(rank, name, total, spec, players, _utc(played), gid, kind, level, undos, code))
        return out

    def challenge_board(self, rules: RuleSet, challenge: str, limit: int = 10, scan: int = 50_000) -> list[ScoreRow]:
        """Challenge ``challenge``'s fair leaderboard under that exact rule set, best first: only each player's
        first attempt counts (later ones are practice: they knew the dice), and only when it was unassisted
        (no hint, no computer seat in the game; a challenge's undo only takes back a mis-click, the own last
        score before the next roll). One rank per name, compared without regard to case; equal totals share a
        rank, the earlier game first. Reads at most ``scan`` results (the oldest)."""
        computer = select(results.c.game_id).where(results.c.kind == "computer")
        query = (
            select(
                results.c.name, results.c.name_key, results.c.total, results.c.hints, results.c.kind,
                games.c.players, games.c.played_at, games.c.id, games.c.undos, games.c.id.in_(computer),
            )
            .join(games, games.c.id == results.c.game_id)
            .where(games.c.challenge == challenge, games.c.rules_spec == rules.spec)
            .order_by(games.c.played_at, games.c.id, results.c.seat)
            .limit(scan)
        )  # fmt: skip
        with self._guard(), self.engine.connect() as conn:
            found = conn.execute(query).all()
        seen: set[str] = set()
        firsts = []
        for name, key, total, hints, kind, players, played, gid, undos, assisted in found:
            if kind == "computer" or key in seen:
                continue
            seen.add(key)  # this player's first attempt: ranked if unassisted, else none of theirs is
            if not hints and not assisted:
                firsts.append((total, _utc(played), gid, name, players, undos))
        firsts.sort(key=lambda r: (-r[0], r[1], r[2]))
        out: list[ScoreRow] = []
        for i, (total, played, gid, name, players, undos) in enumerate(firsts[: max(0, limit)]):
            rank = out[-1].rank if out and out[-1].total == total else i + 1
            out.append(ScoreRow(rank, name, total, rules.spec, players, played, gid, "human", None, undos, challenge))
        return out

    def attempts(self, player: str, rules: RuleSet, challenge: str) -> int:
        """How many of ``player``'s games of challenge ``challenge`` under that exact rule set are stored."""
        query = (
            select(func.count())
            .select_from(results.join(games, games.c.id == results.c.game_id))
            .where(
                results.c.name_key == player.strip().casefold(),
                results.c.kind == "human",
                games.c.challenge == challenge,
                games.c.rules_spec == rules.spec,
            )
        )
        with self._guard(), self.engine.connect() as conn:
            return int(conn.execute(query).scalar_one())

    def history(self, player: str, rules: str | RuleSet | None = None) -> History:
        """A player's games, newest first (name matched without regard to case)."""
        query = (
            select(
                games.c.id, games.c.played_at, games.c.rules_spec, games.c.players, results.c.total,
                results.c.place, results.c.upper_bonus, results.c.yahtzee_bonus, results.c.loss,
                results.c.decisions, games.c.source, results.c.name,
            )
            .join(games, games.c.id == results.c.game_id)
            .where(results.c.name_key == player.strip().casefold())
            .order_by(games.c.played_at.desc(), games.c.id.desc())
        )  # fmt: skip
        clause = self._rules_clause(rules)
        if clause is not None:
            query = query.where(clause)
        with self._guard(), self.engine.connect() as conn:
            found = conn.execute(query).all()
        bonus: dict[str, bool] = {}
        summaries = []
        for gid, played, spec, players, total, place, ub, yb, loss, decisions, source, _name in found:
            if spec not in bonus:
                bonus[spec] = _has_upper_bonus(spec)
            summaries.append(
                GameSummary(
                    gid, _utc(played), spec, players, total, place, ub, yb, loss, decisions, source, bonus[spec]
                )
            )
        name = found[0][-1] if found else player.strip()
        return History(name, tuple(summaries))

    def best(self, player: str, rules: str | RuleSet) -> int | None:
        """The player's best total under these rules (a :class:`RuleSet` or spec means that exact variant)."""
        query = (
            select(func.max(results.c.total))
            .join(games, games.c.id == results.c.game_id)
            .where(results.c.name_key == player.strip().casefold(), self._rules_clause(rules))
        )
        with self._guard(), self.engine.connect() as conn:
            value = conn.execute(query).scalar()
        return None if value is None else int(value)

    # -- profiles and settings ---------------------------------------------------------------
    def remember_players(self, players: Sequence[PlayerProfile]) -> None:
        """Remember this line-up (and each player's kind and level) for next time."""
        now = datetime.now(UTC)
        with self._guard(), self.engine.begin() as conn:
            conn.execute(update(profiles).values(seat=None))
            for seat, p in enumerate(players):
                key = p.name.strip().casefold()
                values = {"name": p.name.strip(), "kind": p.kind, "level": p.level, "seat": seat, "last_used": now}
                done = conn.execute(update(profiles).where(profiles.c.name_key == key).values(**values))
                if done.rowcount == 0:
                    conn.execute(insert(profiles).values(name_key=key, **values))

    def last_players(self) -> list[PlayerProfile]:
        """The line-up of the last game set up, in seat order."""
        query = select(profiles.c.name, profiles.c.kind, profiles.c.level).where(profiles.c.seat.is_not(None))
        with self._guard(), self.engine.connect() as conn:
            found = conn.execute(query.order_by(profiles.c.seat)).all()
        return [PlayerProfile(n, k, lv) for n, k, lv in found]

    def known_players(self) -> list[PlayerProfile]:
        """Every remembered player, most recently used first."""
        query = select(profiles.c.name, profiles.c.kind, profiles.c.level).order_by(profiles.c.last_used.desc())
        with self._guard(), self.engine.connect() as conn:
            return [PlayerProfile(n, k, lv) for n, k, lv in conn.execute(query).all()]

    def get_setting(self, key: str, default: Any = None) -> Any:
        """A stored setting (any JSON value), or ``default``."""
        with self._guard(), self.engine.connect() as conn:
            text = conn.execute(select(settings.c.value).where(settings.c.key == key)).scalar()
        return default if text is None else json.loads(text)

    def set_setting(self, key: str, value: Any) -> None:
        """Store a setting (any JSON value)."""
        text = json.dumps(value)
        with self._guard(), self.engine.begin() as conn:
            conn.execute(delete(settings).where(settings.c.key == key))
            conn.execute(insert(settings).values(key=key, value=text))
