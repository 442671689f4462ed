"""The fast subset of the chaos benchmark: real servers killed and restarted, the database locked,
connections dropped, bad and duplicated input; nothing acknowledged lost, nothing applied twice."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "chaos.py"


def test_chaos_quick_loses_and_duplicates_nothing() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--json"], capture_output=True, text=True, timeout=420
    )
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert done.returncode == 0, report
    assert report["lost"] == 0
    assert report["duplicated"] == 0
    assert report["refusals_not_one_sentence"] == 0
    assert report["logs_replayed"] == report["rooms"] == 6
    assert report["finished"] == report["rooms"]
    assert report["actions_acknowledged"] > 100
    faults = report["faults"]
    for kind in ("lock", "duplicate", "drop", "malformed", "oversized", "binary", "replay"):
        assert faults.get(kind, 0) > 0, faults
    assert faults.get("attack", 0) > 0, faults  # paths as rule sets, resource orders, inputs outside the API
    assert report["attacks_not_refused"] == 0, report["problems"]
    assert report["unknown_rule_set_sentences"] == 1  # every unknown rule set, a path or not, gets one sentence
    if report["servers"] > 1:
        assert faults.get("kill", 0) > 0, faults
