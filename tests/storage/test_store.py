"""The score store: recording games, high scores, history, profiles, settings, errors, upgrades."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import sqlite3
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import Engine, create_engine, insert, select, text

from fivedice import Game, saves
from fivedice.cli import main
from fivedice.rules import RuleSet, from_data, parse_spec
from fivedice.storage import SCHEMA_VERSION, PlayerProfile, Store, StoreError, default_path, resolve_url
from fivedice.storage.schema import games, results, v1_metadata
from fivedice.storage.text import bar_chart
from fivedice.table.seat import SeatKind


def finished_game(players: list[str], seed: int, rules: str | RuleSet = "yacht") -> Game:
    """A whole game played by taking the best-scoring box after the first roll."""
    game = Game(rules, players, seed=seed, starter=0)
    while not game.is_over:
        game.roll()
        options = game.state.options()
        (card, box), _ = max(options.items(), key=lambda kv: kv[1])
        game.score(box, card)
    return game


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(str(tmp_path / "scores.db")) as s:
        yield s


def test_record_game_keeps_the_full_log_and_totals(store: Store) -> None:
    game = finished_game(["Ann", "Bob"], seed=3)
    game_id = store.record_game(game, computer={1: "greedy"}, hints={0: 2}, losses={0: (12.5, 40)})
    again = store.load_game(game_id)
    assert again.log == game.log
    assert again.state.totals == game.state.totals
    rows = store.high_scores("yacht", solo=False)
    assert {(r.name, r.total) for r in rows} == {("Ann", game.state.total(0)), ("Bob", game.state.total(1))}
    bob = next(r for r in rows if r.name == "Bob")
    assert (bob.kind, bob.level) == ("computer", "greedy")
    assert store.history("ann").games[0].loss == 12.5
    assert store.game_count() == 1


def test_a_game_recorded_again_from_its_origin_is_stored_once(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """A recording retried (its process killed before it could say it was done) stores nothing new, also when
    the two attempts write at the same moment (the unique origin refuses the second insert)."""
    game = finished_game(["Ann"], seed=4)
    first = store.record_game(game, source="web", origin="web:ABCDEFGH:1:1")
    assert store.record_game(game, source="web", origin="web:ABCDEFGH:1:1") == first
    second = store.record_game(game, source="web", origin="web:ABCDEFGH:1:2")  # the room's next game
    assert second != first
    assert store.record_game(game) not in (first, second)  # no origin: every call stores a game
    monkeypatch.setattr(Store, "_game_from", staticmethod(lambda conn, origin: None))  # both looked: not there yet
    with pytest.raises(StoreError):  # no origin found after all: the insert's error is the answer
        store.record_game(game, source="web", origin="web:ABCDEFGH:1:1")
    calls = iter([None, first])
    monkeypatch.setattr(Store, "_game_from", staticmethod(lambda conn, origin: next(calls)))
    assert store.record_game(game, source="web", origin="web:ABCDEFGH:1:1") == first
    assert store.game_count() == 3
    assert [r.total for r in store.high_scores("yacht")] == [game.state.total(0)] * 3


def test_unfinished_games_and_unknown_seats_are_refused(store: Store) -> None:
    game = Game("yacht", ["Ann"], seed=1)
    game.roll()
    with pytest.raises(StoreError, match="not over"):
        store.record_game(game)
    with pytest.raises(StoreError, match="seat 4"):
        store.record_game(finished_game(["Ann"], 1), computer={4: "greedy"})
    assert store.game_count() == 0
    with pytest.raises(StoreError, match="Game 99"):
        store.load_game(99)


def test_high_scores_rank_ties_and_split_solo_from_multiplayer(store: Store) -> None:
    solo = [finished_game(["Ann"], seed) for seed in range(4)]
    for game in solo:
        store.record_game(game)
    store.record_game(solo[0])  # the same total twice shares a rank
    store.record_game(finished_game(["Cy", "Di"], 9))
    store.record_game(finished_game(["Ann"], 5, rules="yatzy"))
    rows = store.high_scores("yacht", limit=10, solo=True)
    totals = [r.total for r in rows]
    assert totals == sorted(totals, reverse=True)
    assert len(rows) == 5
    assert all(r.players == 1 and r.rules == "yacht" for r in rows)
    for prev, row in itertools.pairwise(rows):
        assert row.rank == (prev.rank if row.total == prev.total else rows.index(row) + 1)
    assert [r.total for r in store.high_scores("yacht", limit=2, solo=True)] == totals[:2]
    assert {r.name for r in store.high_scores(solo=False)} == {"Cy", "Di"}
    assert {r.rules for r in store.high_scores()} == {"yacht", "yatzy"}


def test_rules_filter_by_name_or_exact_variant(store: Store) -> None:
    plain = finished_game(["Ann"], 1, rules="yacht")
    store.record_game(plain)
    other = Game(parse_spec("yacht four_kind=four_dice"), ["Ann"], seed=2, starter=0)
    while not other.is_over:
        other.roll()
        other.score(next(iter(other.state.options()))[1])
    store.record_game(other)
    assert len(store.high_scores("yacht")) == 2
    assert [r.rules for r in store.high_scores("yacht four_kind=four_dice")] == ["yacht four_kind=four_dice"]
    assert store.best("ANN", plain.rules) == plain.state.total(0)
    assert store.best("Ann", "yacht four_kind=four_dice") == other.state.total(0)
    assert store.best("Nobody", "yacht") is None


def test_history_statistics(store: Store) -> None:
    games = [finished_game(["Ann"], seed, rules="yahtzee") for seed in range(3)]
    for i, game in enumerate(games):
        store.record_game(game, losses={0: (10.0 * (i + 1), 10)})
    duel = finished_game(["Ann", "Bob"], 7, rules="yahtzee")
    store.record_game(duel)
    history = store.history("  ann ")
    assert history.player == "Ann"
    totals = [g.state.total(0) for g in games] + [duel.state.total(0)]
    assert history.count == 4
    assert history.best == max(totals)
    assert history.mean == pytest.approx(sum(totals) / 4)
    assert history.mean_loss == pytest.approx(60.0 / 30)
    bonuses = [g.state.cards[0][0].upper_bonus > 0 for g in [*games, duel]]
    assert history.bonus_rate == pytest.approx(sum(bonuses) / 4)
    assert history.games[0].game_id > history.games[-1].game_id  # newest first
    assert history.wins == (1 if duel.state.standings()[0].seat == 0 else 0)
    assert store.history("nobody").count == 0
    assert store.history("nobody").mean is None


def test_profiles_and_settings(store: Store) -> None:
    assert store.last_players() == []
    store.remember_players([PlayerProfile("Ann"), PlayerProfile("Robo", SeatKind.COMPUTER, "greedy")])
    store.remember_players([PlayerProfile("Bob"), PlayerProfile("ann")])
    assert store.last_players() == [PlayerProfile("Bob"), PlayerProfile("ann")]
    assert [p.name for p in store.known_players()][-1] == "Robo"
    assert store.known_players()[-1].is_computer
    assert store.get_setting("theme", "dark") == "dark"
    store.set_setting("theme", "light")
    store.set_setting("pace", {"seconds": 0.5})
    assert store.get_setting("theme") == "light"
    assert store.get_setting("pace") == {"seconds": 0.5}


def test_env_var_and_default_location(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "sub" / "env.db"
    monkeypatch.setenv("FIVEDICE_DB", str(path))
    with Store() as store:
        store.record_game(finished_game(["Ann"], 1))
    assert path.exists()
    monkeypatch.delenv("FIVEDICE_DB")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert resolve_url() == f"sqlite:///{default_path()}"


def test_damaged_locked_and_newer_databases_give_clear_errors(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(StoreError, match="damaged or not a fivedice database"):
        Store(str(junk))

    locked = tmp_path / "locked.db"
    Store(str(locked)).close()
    holder = sqlite3.connect(locked)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreError, match="locked by another program"):
            Store(str(locked), timeout=0.05)
    finally:
        holder.rollback()
        holder.close()

    newer = tmp_path / "newer.db"
    Store(str(newer)).close()
    con = sqlite3.connect(newer)
    con.execute("UPDATE fivedice_schema SET version = 99")
    con.commit()
    con.close()
    with pytest.raises(StoreError, match="newer than this fivedice"):
        Store(str(newer))
    with pytest.raises(StoreError, match="not valid"):
        Store("nonsense://:::")


def _make_v1_database(path: Path, game: Game) -> None:
    """A database exactly as schema version 1 wrote it, holding one game."""
    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        v1_metadata.create_all(conn)
        tables = v1_metadata.tables
        conn.execute(insert(tables["fivedice_schema"]).values(id=1, version=1))
        gid = conn.execute(
            insert(tables["fivedice_games"])
            .values(
                played_at=datetime(2024, 5, 1, tzinfo=UTC),
                rules_name=game.rules.name,
                rules_spec=game.rules.spec,
                players=len(game.players),
                source="terminal",
                save_json=saves.dumps(game),
            )
            .returning(tables["fivedice_games"].c.id)
        ).scalar_one()
        places = {s.seat: s.place for s in game.state.standings()}
        for seat, name in enumerate(game.players):
            conn.execute(
                insert(tables["fivedice_results"]).values(
                    game_id=gid,
                    seat=seat,
                    name=name,
                    name_key=name.casefold(),
                    total=game.state.total(seat),
                    place=places[seat],
                )
            )
    engine.dispose()


def test_upgrade_from_schema_version_1_keeps_and_backfills_everything(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    old = finished_game(["Ann", "Bob"], 11, rules="yahtzee")
    _make_v1_database(path, old)
    with Store(str(path)) as store:
        assert store.schema_version == SCHEMA_VERSION == 4
        assert (tmp_path / "old.db.v1.bak").exists()
        assert store.high_scores()[0].undos == 0  # undo was not counted before version 3
        with store.engine.connect() as conn:
            rows = conn.execute(select(results.c.seat, results.c.upper_total, results.c.upper_bonus)).all()
        expected = {(s, old.state.cards[s][0].upper_total, old.state.cards[s][0].upper_bonus) for s in (0, 1)}
        assert set(rows) == expected
        assert store.load_game(1).log == old.log
        assert {p.name for p in store.known_players()} == {"Ann", "Bob"}
        assert store.history("Ann").games[0].played_at == datetime(2024, 5, 1, tzinfo=UTC)
        store.record_game(finished_game(["Ann"], 2, rules="yahtzee"), hints={0: 1})
        assert store.history("Ann").count == 2
    with Store(str(path)) as store:  # opening again changes nothing
        assert store.game_count() == 2


def test_scores_and_history_commands(tmp_path: Path) -> None:
    db = str(tmp_path / "cli.db")
    with Store(db) as store:
        for seed in range(3):
            store.record_game(finished_game(["Ann"], seed))
        store.record_game(finished_game(["Ann", "Robo"], 4), computer={1: "greedy"})
    runner = CliRunner()
    out = runner.invoke(main, ["scores", "--db", db])
    assert out.exit_code == 0, out.output
    assert "Solo high scores" in out.output
    assert "Multiplayer high scores" in out.output
    assert "Robo (computer greedy)" in out.output
    out = runner.invoke(main, ["history", "ann", "--db", db])
    assert out.exit_code == 0, out.output
    assert "Ann: 4 games" in out.output
    assert "mean loss per decision: not analysed" in out.output
    assert "Last 4 scores" in out.output
    out = runner.invoke(main, ["scores", "--db", str(tmp_path / "nope" / "x.db"), "--rules", "yatzy"])
    assert out.exit_code == 0
    assert "Solo high scores (yatzy): no games yet." in out.output
    bad = tmp_path / "bad.db"
    bad.write_text("garbage" * 500)
    out = runner.invoke(main, ["history", "Ann", "--db", str(bad)])
    assert out.exit_code == 2
    assert "damaged" in out.output


def test_a_rules_filter_that_names_no_rule_set_is_refused(tmp_path: Path) -> None:
    """``--rules nosuch`` used to print two empty tables and exit 0; a house rule set's name with recorded
    games, a spec and a TOML file are still accepted."""
    db = str(tmp_path / "cli.db")
    house = parse_spec("yacht four_kind=four_dice")
    with Store(db) as store:
        store.record_game(finished_game(["Ann"], 1, rules="yatzy"))
        store.record_game(finished_game(["Ann"], 2, rules=house))
        store.record_game(finished_game(["Ann"], 3, rules=from_data({"name": "garden", "base": "yacht"})))
    runner = CliRunner()
    for command in (["scores"], ["history", "Ann"]):
        out = runner.invoke(main, [*command, "--db", db, "--rules", "nosuch"])
        assert out.exit_code == 2, out.output
        assert out.stderr == (
            "Error: Rule set 'nosuch' is unknown; expected one of: yahtzee, yacht, yatzy, kismet, generala, "
            "or a .toml file.\n"
        )
        out = runner.invoke(main, [*command, "--db", db, "--rules", "yacht nosuch=1"])
        assert out.exit_code == 2, out.output
        assert out.stderr.startswith("Error: Option 'nosuch' is not an option of yacht")
    out = runner.invoke(main, ["scores", "--db", db, "--rules", "garden"])
    assert out.exit_code == 0, out.output
    assert "Ann" in out.output
    out = runner.invoke(main, ["scores", "--db", db, "--rules", "yacht four_kind=four_dice"])
    assert out.exit_code == 0, out.output
    assert "Ann" in out.output
    toml = tmp_path / "mine.toml"
    toml.write_text('name = "mine"\nbase = "yacht"\n')
    out = runner.invoke(main, ["history", "Ann", "--db", db, "--rules", str(toml)])
    assert out.exit_code == 0, out.output
    assert "no games" in out.output


def test_scores_and_history_commands_in_italian(tmp_path: Path) -> None:
    db = str(tmp_path / "cli.db")
    with Store(db) as store:
        for seed in range(2):
            store.record_game(finished_game(["Ann"], seed))
        store.record_game(finished_game(["Ann", "Robo"], 4), computer={1: "greedy"})
        store.record_analysis(1, {0: (3.25, 13)})
        played = store.history("Ann").games[0].played_at
    runner = CliRunner()
    out = runner.invoke(main, ["--lang", "it", "scores", "--db", db])
    assert out.exit_code == 0, out.output
    assert "Record in solitario" in out.output
    assert "Record a più giocatori" in out.output
    assert "Robo (computer greedy)" in out.output
    heading = next(line for line in out.output.splitlines() if line.lstrip().startswith("#"))
    assert heading.split() == ["#", "Giocatore", "Punti", "Regole", "Giocatori", "Data", "Note"]
    assert played.strftime("%d/%m/%y") in out.output  # the Italian short date
    out = runner.invoke(main, ["--lang", "it", "history", "ann", "--db", db])
    assert out.exit_code == 0, out.output
    assert "Ann: 3 partite" in out.output
    assert "perdita media per decisione: 0,25 punti" in out.output
    assert "1 su 2" in out.output
    out = runner.invoke(main, ["--lang", "hr", "history", "Zoe", "--db", db])
    assert out.output.strip() == "Zoe: još nema igara."
    bad = tmp_path / "bad.db"
    bad.write_text("garbage" * 500)
    out = runner.invoke(main, ["--lang", "it", "history", "Ann", "--db", str(bad)])
    assert out.exit_code == 2
    assert "danneggiato" in out.output
    out = runner.invoke(main, ["--lang", "su", "scores", "--help"])
    assert "Témbongkeun tabel skor pangluhurna" in out.output


def test_bar_chart_scales_between_floor_and_best() -> None:
    chart = bar_chart([150, 300, 225, 300], height=4).splitlines()
    assert len(chart) == 4
    assert chart[0].startswith("300 │")
    assert chart[0].endswith("█ █")  # the two bests reach the top
    assert chart[-1].count("█") >= 3
    assert bar_chart([]) == ""


POSTGRES = os.environ.get("FIVEDICE_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")


@contextlib.contextmanager
def pg_schemas(count: int) -> Iterator[tuple[Engine, list[tuple[str, str]]]]:
    """``count`` new PostgreSQL schemas, dropped afterwards: an admin engine and each schema with a store URL
    that works in it. Skips the test when PostgreSQL is not reachable."""
    url = POSTGRES.replace("postgresql://", "postgresql+psycopg://", 1)
    admin = create_engine(url, connect_args={"connect_timeout": 2})
    schemas = [f"fivedice_test_{uuid.uuid4().hex[:10]}" for _ in range(count)]
    try:
        with admin.begin() as conn:
            for schema in schemas:
                conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    except Exception as exc:
        admin.dispose()
        pytest.skip(f"PostgreSQL at {POSTGRES} is not reachable: {type(exc).__name__}")
    sep = "&" if "?" in url else "?"
    try:
        yield admin, [(schema, f"{url}{sep}options=-csearch_path%3D{schema}") for schema in schemas]
    finally:
        with admin.begin() as conn:
            for schema in schemas:
                conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def test_postgresql_store() -> None:
    with pg_schemas(1) as (admin, [(schema, at)]):
        with Store(at) as store:
            game = finished_game(["Ann", "Bob"], 5, rules="yahtzee")
            gid = store.record_game(game, source="web", computer={1: "greedy"}, origin="web:ABCDEFGH:1:1")
            assert store.record_game(game, source="web", computer={1: "greedy"}, origin="web:ABCDEFGH:1:1") == gid
            assert store.game_count() == 1
            assert store.load_game(gid).log == game.log
            assert store.best("ann", game.rules) == game.state.total(0)
            assert next(r.name for r in store.high_scores(solo=False)) == game.state.standings()[0].name
            store.remember_players([PlayerProfile("Ann")])
            store.remember_players([PlayerProfile("Ann"), PlayerProfile("Bob", SeatKind.COMPUTER, "hard")])
            assert store.last_players()[1] == PlayerProfile("Bob", SeatKind.COMPUTER, "hard")
            store.set_setting("theme", "light")
            assert store.get_setting("theme") == "light"
            assert store.history("Bob").games[0].source == "web"
        with admin.connect() as conn:
            found = conn.execute(
                text("SELECT count(*) FROM information_schema.tables WHERE table_schema = :s"), {"s": schema}
            ).scalar()
        assert found == 5


def test_save_json_is_a_standard_save(store: Store) -> None:
    game = finished_game(["Ann"], 8)
    gid = store.record_game(game)
    with store.engine.connect() as conn:
        raw = conn.execute(text("SELECT save_json FROM fivedice_games WHERE id = :i"), {"i": gid}).scalar_one()
    assert json.loads(raw)["format"] == "fivedice-game"


def test_a_table_is_stored_with_its_undo_count_and_challenge_and_the_tables_say_so(tmp_path: Path) -> None:
    from fivedice.table import Table

    db = str(tmp_path / "t.db")
    tables = []
    for name, undo in (("Ann", True), ("Bob", False), ("Cy", False)):
        table = Table("yacht", [name], challenge="friday")
        while not table.is_over:
            table.run_automatic()
            if table.state.dice is None:  # the challenge waits: the last score may still be taken back
                if undo:
                    table.undo()
                    undo = False
                    continue
                table.roll()
            (card, box), _points = max(table.state.options().items(), key=lambda kv: kv[1])
            table.score(box, card)
        tables.append(table)
    with Store(db) as store:
        for table in tables:
            store.record_table(table, source="plain")
        board = store.high_scores(challenge="friday")
        assert [r.name for r in board] == [r.name for r in sorted(board, key=lambda r: (-r.total, r.game_id))]
        assert {r.name: r.undos for r in board}["Ann"] == tables[0].undos == 1
        assert all(r.challenge == "friday" for r in board)
        assert store.high_scores(challenge="other") == []
        with store.engine.connect() as conn:
            text_ = conn.execute(select(games.c.save_json)).scalars().first()
        assert Table.from_data(json.loads(str(text_))).challenge == "friday"
    out = CliRunner().invoke(main, ["scores", "--challenge", "Friday", "--db", db])
    assert out.exit_code == 0, out.output
    assert "Challenge friday" in out.output
    assert "undo used 1 time; challenge friday" in out.output


def test_history_json_is_the_profile_of_the_stored_games(store: Store, tmp_path: Path) -> None:
    games = [finished_game(["Ann"], seed, rules="yahtzee") for seed in range(3)]
    for i, game in enumerate(games):
        store.record_game(game, losses={0: (10.0 * (i + 1), 10)})
    duel = finished_game(["Ann", "Bob"], 7, rules="yahtzee")
    store.record_game(duel)
    from fivedice.storage.profiles import played_games

    played = played_games(store, "ann")
    assert [g.total for g in played] == [g.state.total(0) for g in [*games, duel]]  # oldest first
    assert played[0].optimal is not None
    assert played[0].optimal == pytest.approx(254.5877, abs=1e-3)
    assert played[0].luck == pytest.approx(played[0].total - played[0].optimal + 10.0)
    assert played[-1].optimal is None  # not analysed: no luck to tell
    bob_place = duel.state.standings()[[s.seat for s in duel.state.standings()].index(1)].place
    assert played[-1].opponents == (("Bob", bob_place),)
    out = CliRunner().invoke(main, ["history", "Ann", "--json", "--db", str(tmp_path / "scores.db")])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["games"] == 4
    assert data["best"] == max(g.total for g in played)
    assert data["decision_rating"]["mean"] == pytest.approx(60.0 / 30)
    assert [p["luck"] for p in data["timeline"]] == pytest.approx([g.luck for g in played[:3]])
    assert data["rivals"][0]["name"] == "Bob"
    assert data["history"][0]["game"] == played[-1].game  # newest first
    assert {"games", "wins", "best", "mean", "per_rules", "achievements"} <= data.keys()


def opened_together(url: str, stores: int) -> list[str]:
    """Open ``stores`` stores on ``url`` at once (threads released together); the errors they raised."""
    import threading

    start = threading.Barrier(stores)
    errors: list[str] = []

    def open_one() -> None:
        start.wait()
        try:
            Store(url, timeout=20).close()
        except StoreError as exc:
            errors.append(str(exc))

    threads = [threading.Thread(target=open_one) for _ in range(stores)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_stores_opened_at_once_on_a_new_sqlite_file_all_open_it(tmp_path: Path) -> None:
    """A web process opens the high scores from two places at the end of a game (the recording and the
    profiles): on a new file one used to see the other's tables before its schema version ("has fivedice
    tables but no schema version") and the game went unrecorded. The schema is now made under the write lock."""
    for i in range(12):
        url = f"sqlite:///{tmp_path / f'new{i}.db'}"
        assert opened_together(url, 6) == []
        with Store(url) as store:
            assert store.schema_version == SCHEMA_VERSION


def test_stores_opened_at_once_on_a_new_postgresql_schema_all_open_it() -> None:
    with pg_schemas(4) as (_admin, schemas):
        for _schema, at in schemas:
            assert opened_together(at, 6) == []
            with Store(at) as store:
                assert store.schema_version == SCHEMA_VERSION
