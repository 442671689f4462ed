"""Solver benchmarks, side by side with the ``yatzy-solver`` package (a Rust solver) in one run.

Prints every row of issue 14's table as ours, the reference's and their ratio, and asserts
nothing. Every whole-process figure is a fresh interpreter, timed from outside, with its
peak memory (max RSS) reported by itself; the two solvers alternate, ``--repeat`` times::

    .venv/bin/python bench/solver.py [--repeat 3] [--situations 600]

Rows: the official table built from scratch (whole process, fresh table cache, the shipped
tables switched off), every option of one situation from Python (0/1/2 rolls left), a
``fivedice advise`` process with everything cached, the first ``fivedice advise`` on a fresh
install (empty JIT and table caches; also a rule set that is not shipped, so it is built, the
JIT compile included), and the peak memory of a build.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

SITUATION = ["--dice", "1", "3", "3", "5", "6", "--rolls-left", "2", "--card", "ones=3,fives=15,yahtzee=50"]
NOTATION = "dice 1 3 3 5 6 | rolls 2 | upper 18 | filled ones,fives,five_of_a_kind | five_of_a_kind 50"

OURS_CLI = """
import json, resource, sys
from fivedice.cli import main
try:
    main({args!r})
except SystemExit:
    pass
sys.stderr.write("\\nBENCH " + json.dumps({{"rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "numba": "numba" in sys.modules}}) + "\\n")
"""

THEIRS = """
import json, resource, sys
import yatzy_solver as ys
variant = ys.Variant("american+forced-joker")
solver = ys.Solver.load({path!r}, variant) if {path!r} else ys.Solver.build(variant)
start = "upper 0 | filled -"
best = max(v for _, v in solver.option_values({notation!r})) if {notation!r} else solver.state_value(start)
sys.stderr.write("\\nBENCH " + json.dumps({{"rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "value": best}}) + "\\n")
"""

NAMES = {"aces": "ones", "yahtzee": "five_of_a_kind"}


def process(code: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run ``code`` in a fresh interpreter: wall seconds, its peak RSS (MB) and its output."""
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, **(env or {})}, check=True
    )
    seconds = time.perf_counter() - start
    line = [ln for ln in out.stderr.splitlines() if ln.startswith("BENCH ")][-1]
    result: dict[str, Any] = json.loads(line[6:])
    result.update(seconds=seconds, stdout=out.stdout, stderr=out.stderr)
    return result


def ours(args: list[str], **env: str) -> dict[str, Any]:
    return process(OURS_CLI.format(args=args), env)


def theirs(path: str = "", notation: str = "") -> dict[str, Any]:
    return process(THEIRS.format(path=path, notation=notation))


def show(name: str, mine: list[float], ref: list[float], unit: str, goal: str, met: bool | None) -> None:
    """One row: each run's pair, the median ratio, the goal and whether the median meets it."""
    pairs = "  ".join(f"{a:.3g}/{b:.3g}" for a, b in zip(mine, ref, strict=False)) if ref else ""
    ratio = statistics.median(a / b for a, b in zip(mine, ref, strict=False)) if ref else None
    ours_s = "/".join(f"{a:.3g}" for a in mine)
    ref_s = "/".join(f"{b:.3g}" for b in ref) if ref else "-"
    shown = f"{ratio:.2f}" if ratio is not None else "-"
    verdict = "" if met is None else ("MET" if met else "not met")
    print(f"| {name} | {ours_s} {unit} | {ref_s} {unit if ref else ''} | {shown} | {goal} | {verdict} |")
    if pairs:
        print(f"|   (ours/reference per run: {pairs}) | | | | | |")


def situations(count: int, seed: int = 1) -> list[tuple[Any, tuple[int, ...], int, str]]:
    """Random reachable Yahtzee situations (random legal play), with yatzy-solver's notation."""
    from fivedice import rules
    from fivedice.dice import counts_of
    from fivedice.engine.scorecard import Scorecard

    rs = rules.get("yahtzee")
    rng = random.Random(seed)
    out: list[tuple[Any, tuple[int, ...], int, str]] = []
    while len(out) < count:
        card = Scorecard.empty(rs)
        for _ in range(rng.randrange(len(rs.boxes))):
            dice = tuple(rng.randint(1, 6) for _ in range(5))
            card = card.fill(rng.choice(list(card.option_indices(counts_of(dice)))), dice)
        dice = tuple(rng.randint(1, 6) for _ in range(5))
        left = rng.randrange(3)
        filled = [NAMES.get(n, n) for n, e in zip(rs.box_names, card.entries, strict=True) if e is not None]
        text = f"dice {' '.join(map(str, sorted(dice)))} | rolls {left} | upper {min(63, card.upper_total)} | "
        text += "filled " + (",".join(filled) or "-")
        if card.get("yahtzee") is not None:
            text += f" | five_of_a_kind {card.get('yahtzee')}"
        out.append((card, dice, left, text))
    return out


def per_call(fn: Any, items: list[Any]) -> float:
    """Microseconds per call over ``items`` (one pass; passes alternate between the solvers)."""
    start = time.perf_counter()
    for item in items:
        fn(item)
    return (time.perf_counter() - start) / len(items) * 1e6


def whole_process_rows(repeat: int, tmp: str) -> None:
    cold = os.path.join(tmp, "cold")
    build, build_ref, rss, rss_ref = [], [], [], []
    for i in range(repeat):
        fresh = os.path.join(tmp, f"build{i}")
        run = ours(["solve", "yahtzee", "--json"], FIVEDICE_CACHE_DIR=fresh, FIVEDICE_SHIPPED_TABLES="0")
        ref = theirs()
        assert json.loads(run["stdout"])["source"] == "built"
        build.append(run["seconds"])
        rss.append(run["rss_mb"])
        build_ref.append(ref["seconds"])
        rss_ref.append(ref["rss_mb"])
    shipped = [ours(["solve", "yahtzee", "--json"], FIVEDICE_CACHE_DIR=os.path.join(tmp, f"s{i}")) for i in range(3)]
    # the reference's table file (f64) for its "everything cached" process
    table = os.path.join(tmp, "american.table")
    subprocess.run(
        [sys.executable, "-c", f"import yatzy_solver as ys; ys.Solver.build_table(ys.Variant("
         f"'american+forced-joker'), {table!r}, precision='f64')"], check=True)  # fmt: skip
    cached_env = {"FIVEDICE_CACHE_DIR": os.path.join(tmp, "warm")}
    ours(["advise", "yahtzee", *SITUATION], **cached_env)  # fill the cache
    adv, adv_ref, adv_rss, adv_rss_ref, first, first_rss = [], [], [], [], [], []
    for i in range(repeat):
        run = ours(["advise", "yahtzee", *SITUATION], **cached_env)
        ref = theirs(table, NOTATION)
        adv.append(run["seconds"])
        adv_rss.append(run["rss_mb"])
        adv_ref.append(ref["seconds"])
        adv_rss_ref.append(ref["rss_mb"])
        empty = {"FIVEDICE_CACHE_DIR": os.path.join(cold, f"t{i}"), "NUMBA_CACHE_DIR": os.path.join(cold, f"j{i}")}
        run = ours(["advise", "yahtzee", *SITUATION], **empty)
        assert "keep" in run["stdout"]
        assert not run["numba"]
        first.append(run["seconds"])
        first_rss.append(run["rss_mb"])
    first_ref = build_ref  # the reference has no caches: every first answer solves the game
    built = ours(
        ["advise", "yahtzee", "-o", "joker=free", *SITUATION],
        FIVEDICE_CACHE_DIR=os.path.join(cold, "x"), NUMBA_CACHE_DIR=os.path.join(cold, "xj"),
    )  # fmt: skip
    print("\n| what | fivedice | yatzy-solver | ratio | goal | |")
    print("| --- | --- | --- | --- | --- | --- |")
    show("official table build, whole process, fresh table cache", build, build_ref, "s", "<= 0.2x, < 1 s quiet",
         statistics.median(build) / statistics.median(build_ref) <= 0.2)  # fmt: skip
    show("  the same, shipped table (fresh user cache)", [s["seconds"] for s in shipped], [], "s", "", None)
    show("peak RSS while building", rss, rss_ref, "MB", "<= 80 MB", max(rss) <= 80)
    show("`fivedice advise` whole process, everything cached", adv, adv_ref, "s", "<= 0.5 s",
         statistics.median(adv) <= 0.5)  # fmt: skip
    show("  its peak RSS", adv_rss, adv_rss_ref, "MB", "<= 100 MB", max(adv_rss) <= 100)
    show("first `fivedice advise`, fresh install (empty JIT + table caches)", first, first_ref, "s", "<= 5 s",
         max(first) <= 5)  # fmt: skip
    show("  its peak RSS", first_rss, [], "MB", "", None)
    show("  a rule set not shipped (yahtzee joker=free: JIT compile + build)", [built["seconds"]], [], "s", "", None)


def advisor_rows(count: int, repeat: int) -> None:
    import yatzy_solver as ys  # type: ignore[import-untyped]

    from fivedice import rules
    from fivedice.solver import solve

    fast = solve(rules.get("yahtzee"))
    plain = solve(rules.get("yahtzee"), jit=False)
    ref = ys.Solver.build(ys.Variant("american+forced-joker"))
    sits = situations(3 * count)
    # agreement: every option of 300 situations (the reference's values include the card's points)
    worst = 0.0
    for card, dice, left, text in sits[:300]:
        mine = sorted(o.value for o in fast.advise(card, dice, left))
        them = sorted(v for _, v in ref.option_values(text))
        worst = max(worst, max(abs(a - b) for a, b in zip(mine, them, strict=True)))
    print(f"\nagreement with yatzy-solver, every option of 300 random situations: largest difference {worst:.1e}")
    print("(per rolls-left: the best of the passes, ours and the reference's alternating; ratio of the two)")
    for c, d, k, _ in sits[:50]:  # warm both paths (JIT cache load)
        fast.values(c, d, k)
    print("\n| all options of one situation, from Python | fivedice `values` (arrays) | yatzy-solver `option_values` "
          "| ratio | goal | |")  # fmt: skip
    print("| --- | --- | --- | --- | --- | --- |")
    for left in (0, 1, 2):
        items = [s for s in sits if s[2] == left][:count]
        mine, them, full, slow = [], [], [], []
        for _ in range(repeat):
            fast._memo.clear()  # every card seen for the first time, as the reference parses every situation
            mine.append(per_call(lambda s: fast.values(s[0], s[1], s[2]), items))
            them.append(per_call(lambda s: ref.option_values(s[3]), items))
            full.append(per_call(lambda s: fast.advise(s[0], s[1], s[2]), items))
            slow.append(per_call(lambda s: plain.values(s[0], s[1], s[2]), items[:100]))
        show(f"{left} rolls left", [min(mine)], [min(them)], "us", "<= 1.0x", min(mine) <= min(them))
        print(
            f"|   every pass: {' '.join(f'{a:.1f}/{b:.1f}' for a, b in zip(mine, them, strict=True))}; "
            f"advise() with `Option` objects {min(full):.1f} us; numpy path (jit=False) {min(slow):.0f} us | | | | | |"
        )
    states, rolls, left_ = fast.situation_arrays([s[:3] for s in sits])
    arrays = ys.Variant("american+forced-joker").situation_arrays([s[3] for s in sits])
    fast.option_values_batch(states, rolls, left_)
    start = time.perf_counter()
    ref.option_values_batch(arrays["filled"], arrays["upper"], arrays["armed"], arrays["dice"], arrays["rolls_left"])
    them_rate = len(sits) / (time.perf_counter() - start)
    start = time.perf_counter()
    fast.option_values_batch(states, rolls, left_)
    mine_rate = len(sits) / (time.perf_counter() - start)
    print(f"| batch of {len(sits)} situations | {mine_rate:,.0f} /s | {them_rate:,.0f} /s | "
          f"{mine_rate / them_rate:.2f} (higher is better) | | |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--situations", type=int, default=600, help="situations per rolls-left")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each whole-process row")
    parser.add_argument("--passes", type=int, default=7, help="passes of each in-process row")
    parser.add_argument("--skip-processes", action="store_true", help="only the in-process rows")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["FIVEDICE_CACHE_DIR"] = os.path.join(tmp, "inproc")
        if not args.skip_processes:
            whole_process_rows(args.repeat, tmp)
        advisor_rows(args.situations, args.passes)
    print(f"\nload average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
