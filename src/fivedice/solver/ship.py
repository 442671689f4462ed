"""Write the tables shipped with the package (the built-in rule sets with their default options).

A maintainer's tool, run after a change that alters the tables (the tests say when)::

    python -m fivedice.solver.ship            # rebuild every shipped table into fivedice/solver/data
    python -m fivedice.solver.ship --refresh  # after an edit of the scoring code that left the tables
                                              # as they were: re-check them, rewrite only the headers
    python -m fivedice.solver.ship --check    # verify them: checksums, rules, tables
    python -m fivedice.solver.ship --moments  # rebuild only the moments of the fast chances
    python -m fivedice.solver.ship --curves [yahtzee ...]  # rebuild only the threshold curves (minutes)

Beside each table ships the per-state moments that the fast chances read (:mod:`fivedice.solver.fast`),
and for the rule sets of :data:`CURVED` the threshold curves that they read first
(:mod:`fivedice.solver.curves`).

Each file is an ordinary table file (:mod:`fivedice.solver.cache`), its payload checked by the
SHA-256 in its header whenever it is loaded; ``SHA256SUMS`` beside them lists the files' own
checksums.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

from fivedice import rules
from fivedice.solver.advisor import Solver
from fivedice.solver.cache import DATA, FORMAT_VERSION, build, file_name, load, save

__all__ = ["CURVED", "SHIPPED", "check", "refresh", "write", "write_curves", "write_moments"]

SHIPPED = ("yahtzee", "yacht", "yatzy", "kismet", "generala")
"""The built-in rule sets whose tables ship with fivedice (default options)."""


def _sums() -> str:
    files = sorted([*DATA.glob("*.table"), *DATA.glob("*.moments"), *DATA.glob("*.curves")])
    lines = [f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.name}" for p in files]
    return "\n".join(lines) + "\n"


def write() -> None:
    """Build every shipped table afresh and write it (and ``SHA256SUMS``) into the package."""
    DATA.mkdir(exist_ok=True)
    for old in DATA.glob("*.table"):
        old.unlink()
    for name in SHIPPED:
        table = build(rules.get(name))
        save(table, DATA / file_name(table.tables.rules))
        print(f"{name}: {table.states:,} states, {table.seconds:.1f} s", flush=True)
    write_moments()
    write_curves()


def write_moments() -> None:
    """Compute the moments of every shipped rule set afresh (from its shipped table) and write them."""
    from fivedice.solver import fast

    for old in DATA.glob("*.moments"):
        old.unlink()
    for name in SHIPPED:
        rs = rules.get(name)
        table = load(rs, DATA / file_name(rs), "package")
        assert table is not None, f"{name}: no shipped table"
        solver = Solver(table, jit=False)
        found = fast.build_moments(solver)
        path = DATA / fast.file_name(solver)
        fast.save_moments(solver, found, path)
        print(f"{name}: moments in {found.seconds:.1f} s, {path.stat().st_size / 1e6:.2f} MB", flush=True)
    (DATA / "SHA256SUMS").write_text(_sums())


CURVED = ("yahtzee", "yacht", "generala")
"""The rule sets whose threshold curves ship (:mod:`fivedice.solver.curves`); the others' fast chances
come from their moments. Yahtzee's take minutes of CPU (``--curves yahtzee``); Yatzy's and Kismet's
would take several times that."""


def write_curves(names: tuple[str, ...] = CURVED) -> None:
    """Compute the threshold curves of ``names`` afresh (minutes for Yahtzee) and write them."""
    from fivedice.solver import curves

    for name in names:
        rs = rules.get(name)
        table = load(rs, DATA / file_name(rs), "package")
        assert table is not None, f"{name}: no shipped table"
        solver = Solver(table, jit=True)
        path = DATA / curves.file_name(solver)
        path.unlink(missing_ok=True)
        found = curves.build_curves(solver)
        curves.save_curves(solver, found, path)
        print(f"{name}: curves in {found.seconds:.1f} s, {path.stat().st_size / 1e6:.2f} MB", flush=True)
    (DATA / "SHA256SUMS").write_text(_sums())


def refresh() -> list[str]:
    """Re-check every shipped table against the current scoring code and rewrite its header (the
    payload stays byte for byte); returns the ones that changed and must be rebuilt (:func:`write`)."""
    from fivedice.solver import curves, fast

    stale = []
    for name in SHIPPED:
        rs = rules.get(name)
        path = DATA / file_name(rs)
        table = load(rs, path, "package")
        if table is None:
            stale.append(name)
        else:
            save(table, path)
            solver = Solver(table, jit=False)
            _refresh_header(DATA / fast.file_name(solver), fast.MAGIC, name, stale)
            if name in CURVED:
                _refresh_header(DATA / curves.file_name(solver), curves.MAGIC, name, stale)
    (DATA / "SHA256SUMS").write_text(_sums())
    return stale


def _refresh_header(path: Path, magic: bytes, name: str, stale: list[str]) -> None:
    """Rewrite the header of ``name``'s shipped file at ``path`` (moments or curves, framed after ``magic``)
    for the current scoring code (its data did not change)."""
    import json

    from fivedice.solver.cache import code_digest, read_framed

    framed = read_framed(path, magic)
    if framed is None or not isinstance(framed[0], dict):
        stale.append(name)
        return
    header = dict(framed[0]) | {"code_sha256": code_digest()}
    path.write_bytes(magic + json.dumps(header, sort_keys=True).encode() + b"\n" + bytes(framed[1]))


def check() -> list[str]:
    """What is wrong with the shipped tables (empty when they are all present and valid)."""
    problems = []
    listed = (DATA / "SHA256SUMS").read_text() if (DATA / "SHA256SUMS").exists() else ""
    if listed != _sums():
        problems.append("SHA256SUMS does not match the files")
    for name in SHIPPED:
        rs = rules.get(name)
        path = DATA / file_name(rs)
        table = load(rs, path, "package")
        if table is None:
            problems.append(f"{name}: {path.name} is missing, damaged or stale (format {FORMAT_VERSION})")
            continue
        from fivedice.solver import fast

        solver = Solver(table, jit=False)
        if fast.load_moments(solver, DATA / fast.file_name(solver), "package") is None:
            problems.append(f"{name}: {fast.file_name(solver)} is missing, damaged or stale")
        from fivedice.solver import curves

        if name in CURVED and curves.load_curves(solver, DATA / curves.file_name(solver)) is None:
            problems.append(f"{name}: {curves.file_name(solver)} is missing, damaged or stale")
    return problems


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="verify the shipped tables instead of writing them")
    parser.add_argument("--refresh", action="store_true", help="re-check the tables, rewrite only their headers")
    parser.add_argument("--moments", action="store_true", help="rebuild only the moments of the fast chances")
    parser.add_argument("--curves", nargs="*", metavar="RULES", help="rebuild only the threshold curves (of RULES)")
    args = parser.parse_args(argv)
    if args.moments:
        write_moments()
        return 0
    if args.curves is not None:
        write_curves(tuple(args.curves) or CURVED)
        return 0
    if args.refresh:
        stale = refresh()
        for name in stale:
            print(f"{name}: its tables changed; rebuild with python -m fivedice.solver.ship", file=sys.stderr)
        return 1 if stale else 0
    if args.check:
        problems = check()
        for problem in problems:
            print(problem, file=sys.stderr)
        return 1 if problems else 0
    write()
    return 0


if __name__ == "__main__":
    sys.exit(main())
