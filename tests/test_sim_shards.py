"""Simulation past one machine: shards that merge into the very run, the histogram in ``--json``,
the ``merge`` command, and a Dask cluster giving the local run's results."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from fivedice import rules
from fivedice.cli import main
from fivedice.services.sim import CHUNK, SimulationError, simulate
from fivedice.services.simsummary import MergeError, SimSummary, merge

STATIC = ("seconds", "shard", "shards")


def same_statistics(a: dict[str, object], b: dict[str, object]) -> None:
    """Two JSON results agree on every count and statistic (timing and shard marks aside)."""
    left = {k: v for k, v in a.items() if k not in STATIC}
    right = {k: v for k, v in b.items() if k not in STATIC}
    close(json.loads(json.dumps(left)), json.loads(json.dumps(right)), "")


def close(a: object, b: object, where: str) -> None:
    """Equal, floats to 1e-9 (a histogram's sums are added in another order than numpy's)."""
    if isinstance(a, dict) and isinstance(b, dict):
        assert a.keys() == b.keys(), where
        for key in a:
            close(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, list) and isinstance(b, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            close(x, y, f"{where}[{i}]")
    elif isinstance(a, float) or isinstance(b, float):
        assert a == pytest.approx(b, rel=1e-9, abs=1e-12), where
    else:
        assert a == b, where


def test_shards_merge_into_the_whole_run() -> None:
    rs = rules.get("yacht")
    whole = simulate(rs, ["greedy", "random"], 3 * CHUNK + 20, seed=5, workers=1, fast=False)
    parts = [
        simulate(rs, ["greedy", "random"], 3 * CHUNK + 20, seed=5, workers=1, fast=False, shard=(i, 3))
        for i in range(3)
    ]
    assert sum(p.games for p in parts) == whole.games
    assert np.array_equal(np.concatenate([p.totals for p in parts]), whole.totals)
    merged = merge([p.summary() for p in parts])
    same_statistics(merged.to_json((150,)), whole.to_json((150,)))
    assert merged.shards == ((0, 3), (1, 3), (2, 3))
    greedy = whole.stats()[0]
    assert merged.stats()[0].percentiles == pytest.approx(greedy.percentiles)
    assert greedy.median == float(np.median(whole.totals[:, 0]))
    assert greedy.percentiles[5] == pytest.approx(float(np.percentile(whole.totals[:, 0], 5)))


def test_the_json_carries_the_histogram_and_reads_back() -> None:
    result = simulate(rules.get("yahtzee"), ["greedy"], 60, seed=1, workers=1)
    data = result.to_json()
    histogram = {int(k): v for k, v in data["seats"][0]["histogram"].items()}
    assert sum(histogram.values()) == 60
    assert histogram == dict(zip(*np.unique(result.totals[:, 0], return_counts=True), strict=True))
    back = SimSummary.from_json(json.loads(json.dumps(data)))
    assert back.to_json() == data


def test_merge_refuses_what_does_not_belong_together(tmp_path: Path) -> None:
    rs = rules.get("yacht")
    part = simulate(rs, ["greedy"], 2 * CHUNK, seed=5, workers=1, fast=False, shard=(0, 2)).summary()
    with pytest.raises(MergeError, match=r"Shard 1/2 of seed 5 is given twice"):
        merge([part, part])
    other = simulate(rs, ["random"], 10, seed=5, workers=1).summary()
    with pytest.raises(MergeError, match="cannot be merged"):
        merge([part, other])
    with pytest.raises(MergeError, match="not simulate --json output"):
        SimSummary.from_json({"format": 1, "rules": "yacht"}, "x.json")
    bad = part.to_json()
    bad["seats"][0]["histogram"]["20"] = -3
    with pytest.raises(MergeError, match="wrong type"):
        SimSummary.from_json(bad, "x.json")
    with pytest.raises(SimulationError, match="Shard 3/2 is not valid"):
        simulate(rs, ["greedy"], 2 * CHUNK, fast=False, shard=(2, 2))
    with pytest.raises(SimulationError, match="3 shards is too many for a run of 2 parts"):
        simulate(rs, ["greedy"], 2 * CHUNK, fast=False, shard=(0, 3))


def test_simulate_shards_and_the_merge_command(tmp_path: Path) -> None:
    runner = CliRunner()
    base = [
        "simulate",
        "yacht",
        "--strategy",
        "greedy",
        "--games",
        "250",
        "--seed",
        "3",
        "--workers",
        "1",
        "--json",
        "--python",
    ]
    whole = json.loads(runner.invoke(main, base).stdout)
    files = []
    for i in (1, 2):
        out = runner.invoke(main, [*base, "--shard", f"{i}/2"])
        assert out.exit_code == 0, out.output
        path = tmp_path / f"part{i}.json"
        path.write_text(out.stdout)
        files.append(str(path))
    merged = runner.invoke(main, ["merge", *files, "--json"])
    assert merged.exit_code == 0, merged.output
    same_statistics(json.loads(merged.stdout), whole)
    table = runner.invoke(main, ["merge", *files])
    assert "yacht: 250 games, seed 3" in table.stdout
    again = runner.invoke(main, ["merge", files[0], files[0]])
    assert (again.exit_code, again.stderr.strip()) == (2, "Error: Shard 1/2 of seed 3 is given twice.")
    (tmp_path / "junk.json").write_text("{nope")
    junk = runner.invoke(main, ["merge", str(tmp_path / "junk.json")])
    assert junk.exit_code == 2
    assert "is not JSON" in junk.stderr
    wrong = runner.invoke(main, [*base, "--shard", "3/2"])
    assert (wrong.exit_code, wrong.stderr.strip()) == (
        2,
        "Error: Shard '3/2' is not valid; expected I/N with 1 <= I <= N, e.g. 2/4.",
    )


@pytest.fixture(scope="module")
def cluster() -> object:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, host="127.0.0.1"
    ) as local:
        yield local


def test_a_dask_cluster_gives_the_local_results(cluster: object) -> None:
    address = cluster.scheduler_address  # type: ignore[attr-defined]
    rs = rules.get("yacht")
    local = simulate(rs, ["greedy", "random"], 2 * CHUNK + 7, seed=11, workers=1, fast=False)
    remote = simulate(rs, ["greedy", "random"], 2 * CHUNK + 7, seed=11, fast=False, dask=address)
    for name in ("totals", "boxes", "upper_bonus", "extra_yahtzees", "win_share"):
        assert np.array_equal(getattr(local, name), getattr(remote, name)), name
    optimal = simulate(rules.get("yahtzee"), ["optimal"], 300, seed=4, workers=1)
    on_dask = simulate(rules.get("yahtzee"), ["optimal"], 300, seed=4, dask=address)
    assert np.array_equal(optimal.totals, on_dask.totals)
    out = CliRunner().invoke(
        main, ["simulate", "yacht", "--strategy", "greedy", "--games", "120", "--json", "--dask", address]
    )
    assert out.exit_code == 0, out.output
    same_statistics(json.loads(out.stdout), simulate(rs, ["greedy"], 120, seed=0, workers=1).to_json())


def test_an_unreachable_scheduler_is_one_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    """The client gives up after 1 s instead of the 30 s it is given (it retries a refused connection until its
    timeout): the refusal is the same sentence, and the test no longer waits half a minute."""
    distributed = pytest.importorskip("distributed")
    client = distributed.Client
    monkeypatch.setattr(distributed, "Client", lambda address, timeout: client(address, timeout=1))
    with pytest.raises(SimulationError, match=r"The Dask scheduler at tcp://127.0.0.1:9 cannot be reached"):
        simulate(rules.get("yacht"), ["greedy"], 10, dask="tcp://127.0.0.1:9")
