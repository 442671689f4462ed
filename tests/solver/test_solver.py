"""Published optimal means, the cache, determinism and the advisor."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fivedice import rules
from fivedice.engine.scorecard import Scorecard
from fivedice.errors import DiceError, IllegalActionError, RuleSetError
from fivedice.solver import Option, Solver, cache, solve, tables
from fivedice.solver.cache import build, cache_path, load_or_build


def test_official_yahtzee_mean(yahtzee: Solver) -> None:
    assert yahtzee.expected_score == pytest.approx(254.5877287, abs=1e-6)


def test_free_joker_mean() -> None:
    assert solve(rules.get("yahtzee", joker="free"), cache=False).expected_score == pytest.approx(254.5896095, abs=1e-6)


def test_every_single_card_rule_set_solves() -> None:
    # yacht's mean with the source's Four of a Kind rule; the others are checked for sanity.
    for spec, low, high in [
        ("yacht", 160, 180), ("yacht four_kind=four_dice", 160, 180), ("generala", 100, 250),
        ("generala instant_win=no served_bonus=10", 100, 250), ("yatzy forced=yes", 100, 200),
        ("yahtzee order=top_down", 100, 200), ("yahtzee order=bottom_up yahtzee_bonus=0", 100, 200),
    ]:  # fmt: skip
        value = solve(rules.parse_spec(spec), cache=False).expected_score
        assert low < value < high, spec


def test_same_table_whatever_the_thread_count() -> None:
    rs = rules.get("yahtzee", order="upper_first")
    one = build(rs, threads=1).values
    two = build(rs, threads=2).values
    assert one.tobytes() == two.tobytes()


def test_cache_round_trip_and_damage(tmp_path: Path) -> None:
    rs = rules.get("yacht")
    first = load_or_build(rs)
    assert first.source == "built"
    path = cache_path(rs)
    assert path.exists()
    assert path.stat().st_size <= 8_000_000
    assert str(path).startswith(str(tmp_path))
    second = load_or_build(rs)
    assert second.source == "cache"
    assert second.values.tobytes() == first.values.tobytes()
    # a flipped byte in the values: detected, rebuilt, rewritten
    data = bytearray(path.read_bytes())
    data[-10] ^= 0xFF
    path.write_bytes(bytes(data))
    assert load_or_build(rs).source == "built"
    assert load_or_build(rs).source == "cache"
    # a stale header (older format, other rules, tables that do not match), a truncated file, garbage: rebuilt
    for damage in (
        lambda b: b.replace(b'"format": 2', b'"format": 1'),
        lambda b: b.replace(b'"rules_sha256": "', b'"rules_sha256": "0'),
        lambda b: b.replace(b'"tables_sha256": "', b'"tables_sha256": "0'),
        lambda b: b[: len(b) // 2],
        lambda b: b"not a table",
    ):
        path.write_bytes(damage(path.read_bytes()))
        again = load_or_build(rs)
        assert again.source == "built"
        assert again.values.tobytes() == first.values.tobytes()


def test_changed_scoring_code_rechecks_the_tables_once(monkeypatch: pytest.MonkeyPatch) -> None:
    rs = rules.get("yacht")
    first = load_or_build(rs)
    path = cache_path(rs)
    # another version of the scoring code wrote the file: its tables are rebuilt and compared (same: kept)
    path.write_bytes(path.read_bytes().replace(b'"code_sha256": "', b'"code_sha256": "0'))
    calls: list[object] = []

    def counted(r: rules.RuleSet) -> tables.Tables:
        calls.append(r)
        return tables.build_tables(r)

    monkeypatch.setattr(cache, "build_tables", counted)
    again = load_or_build(rs)
    assert again.source == "cache"
    assert len(calls) == 1
    assert again.values.tobytes() == first.values.tobytes()
    assert load_or_build(rs).source == "cache"
    assert len(calls) == 1
    # scoring code that changes the tables: the values are not trusted
    path.write_bytes(path.read_bytes().replace(b'"code_sha256": "', b'"code_sha256": "0'))
    other = tables.build_tables(rules.get("yacht", four_kind="four_dice"))
    monkeypatch.setattr(cache, "build_tables", lambda r: other)
    assert cache.load(rs, path) is None


def test_cache_files_differ_by_options() -> None:
    assert cache_path(rules.get("yacht")) != cache_path(rules.get("yacht", four_kind="four_dice"))


def test_yahtzee_is_the_best_box_for_five_sixes(yahtzee: Solver) -> None:
    card = Scorecard.empty(yahtzee.rules)
    options = yahtzee.advise(card, (6, 6, 6, 6, 6), 0)
    assert options[0] == yahtzee.best(card, (6, 6, 6, 6, 6), 0)
    assert (options[0].box, options[0].points, options[0].loss) == ("yahtzee", 50, 0.0)
    assert len(options) == 13
    assert all(o.action == "score" for o in options)
    assert [o.value for o in options] == sorted((o.value for o in options), reverse=True)
    # value = the points + what follows from the card it leaves
    after = card.fill("yahtzee", (6, 6, 6, 6, 6))
    assert options[0].value == pytest.approx(50 + yahtzee.state_value(after), abs=1e-9)


def test_options_list_every_keep_and_box(yahtzee: Solver) -> None:
    card = Scorecard.empty(yahtzee.rules).fill("aces", (1, 1, 1, 2, 3)).fill("yahtzee", (5, 5, 5, 5, 5))
    options = yahtzee.advise(card, (1, 3, 3, 5, 6), 2)
    keeps = [o for o in options if o.action == "keep"]
    assert len(keeps) == 2 * 3 * 2 * 2 - 1  # every proper sub-multiset, keeping nothing included
    assert {o.box for o in options if o.action == "score"} == set(rules.get("yahtzee").box_names) - {"aces", "yahtzee"}
    best = options[0]
    assert all(o.loss == pytest.approx(best.value - o.value) and o.loss >= 0 for o in options)
    assert options[0].action == "keep"
    assert options[0].dice == (3, 3)


def test_extra_yahtzee_bonus_and_joker(yahtzee: Solver) -> None:
    card = Scorecard.empty(yahtzee.rules).fill("yahtzee", (2, 2, 2, 2, 2)).fill("fives", (5, 5, 5, 1, 2))
    options = yahtzee.advise(card, (5, 5, 5, 5, 5), 0)
    # forced Joker: Fives is filled, so any lower box at full value, with the 100 bonus
    assert {o.box for o in options} == {"three_of_a_kind", "four_of_a_kind", "full_house", "small_straight",
                                        "large_straight", "chance"}  # fmt: skip
    large = next(o for o in options if o.box == "large_straight")
    assert (large.points, large.bonus) == (40, 100)
    assert large.to_dict()["bonus"] == 100
    after = card.fill("large_straight", (5, 5, 5, 5, 5))
    assert large.value == pytest.approx(140 + yahtzee.state_value(after), abs=1e-9)


def test_keep_values_average_the_next_roll(yahtzee: Solver) -> None:
    card = Scorecard.empty(yahtzee.rules)
    keep = next(o for o in yahtzee.advise(card, (6, 6, 6, 6, 1), 1) if o.dice == (6, 6, 6, 6))
    expected = sum(yahtzee.best(card, (6, 6, 6, 6, f), 0).value for f in range(1, 7)) / 6
    assert keep.value == pytest.approx(expected, abs=1e-9)


def test_state_value_counts_only_points_to_come(yahtzee: Solver) -> None:
    card = Scorecard.empty(yahtzee.rules)
    assert yahtzee.state_value(card) == yahtzee.expected_score
    upper = card
    for face, name in enumerate(["aces", "twos", "threes", "fours", "fives", "sixes"], 1):
        upper = upper.fill(name, (face,) * 4 + (1 if face != 1 else 2,))
    assert upper.upper_bonus == 35
    # the bonus is already on the card: the rest equals the lower section alone, bonus or not
    lower_only = Scorecard.empty(yahtzee.rules)
    for name in ["aces", "twos", "threes", "fours", "fives", "sixes"]:
        lower_only = lower_only.fill(name, (1, 2, 3, 4, 6))
    assert yahtzee.state_value(upper) == pytest.approx(yahtzee.state_value(lower_only), abs=1e-9)


@pytest.mark.parametrize(
    ("entries", "dice", "left", "error"),
    [
        ({"fives": 3}, (1, 2, 3, 4, 5), 1, IllegalActionError),
        ({"full_house": 20}, (1, 2, 3, 4, 5), 1, IllegalActionError),
        ({}, (1, 2, 3, 4, 7), 1, DiceError),
        ({}, (1, 2, 3, 4), 1, DiceError),
        ({}, (1, 2, 3, 4, 5), 3, IllegalActionError),
        ({}, (1, 2, 3, 4, 5), -1, IllegalActionError),
    ],
)
def test_impossible_situations(yahtzee: Solver, entries: dict[str, int], dice: tuple[int, ...], left: int,
                               error: type[Exception]) -> None:  # fmt: skip
    rs = yahtzee.rules
    card = Scorecard(rs, rs.cards[0], tuple(entries.get(n) for n in rs.box_names))
    with pytest.raises(error):
        yahtzee.advise(card, dice, left)


def test_unreachable_order_card() -> None:
    rs = rules.get("yahtzee", order="top_down")
    solver = solve(rs, cache=False)
    card = Scorecard(rs, rs.cards[0], tuple(15 if n == "fives" else None for n in rs.box_names))
    with pytest.raises(IllegalActionError, match="cannot arise"):
        solver.state_value(card)
    with pytest.raises(RuleSetError):
        solver.state_value(Scorecard.empty(rules.get("yacht")))


def test_generala_first_roll_points() -> None:
    solver = solve(rules.get("generala"), cache=False)
    card = Scorecard.empty(solver.rules)
    first = {o.box: o.points for o in solver.advise(card, (2, 3, 4, 5, 6), 2) if o.action == "score"}
    later = {o.box: o.points for o in solver.advise(card, (2, 3, 4, 5, 6), 0) if o.action == "score"}
    assert (first["straight"], later["straight"]) == (25, 20)
    assert solver.best(card, (2, 3, 4, 5, 6), 2) == Option("score", solver.best(card, (2, 3, 4, 5, 6), 2).value,
                                                           box="straight", points=25)  # fmt: skip
    assert np.isfinite(solver.expected_score)


def test_batch_matches_single_queries(yahtzee: Solver) -> None:
    rs = yahtzee.rules
    card = Scorecard.empty(rs).fill("sixes", (6, 6, 6, 1, 2)).fill("yahtzee", (3, 3, 3, 3, 3))
    sits = [(card, (1, 3, 3, 5, 6), 2), (card, (6, 6, 6, 6, 6), 0), (Scorecard.empty(rs), (2, 2, 4, 5, 6), 1)]
    batch = yahtzee.option_values_batch(*yahtzee.situation_arrays(sits))
    for i, (c, dice, left) in enumerate(sits):
        best = yahtzee.best(c, dice, left)
        code = int(batch.best[i])
        if code >= 0:
            assert best.dice == yahtzee.keep_dice(int(batch.keep_index[i, code]))
            assert best.value == batch.keep_value[i, code]
        else:
            assert best.box == rs.boxes[-code - 1].name
            assert best.value == batch.box_value[i, -code - 1]
        assert int(batch.nkeep[i]) == sum(o.action == "keep" for o in yahtzee.advise(c, dice, left))


def test_advice_from_several_threads_at_once(yahtzee: Solver) -> None:
    from concurrent.futures import ThreadPoolExecutor

    card = Scorecard.empty(yahtzee.rules)
    rolls = [(a, b, 3, 5, 6) for a in range(1, 7) for b in range(1, 7)]
    serial = [yahtzee.advise(card, dice, 2) for dice in rolls]
    with ThreadPoolExecutor(4) as pool:
        parallel = list(pool.map(lambda dice: yahtzee.advise(card, dice, 2), rolls * 3))
    assert parallel == serial * 3
