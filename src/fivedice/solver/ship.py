"""Write the tables shipped with the package (the built-in rule sets with their default options).

A maintainer's tool, run after a change that alters the tables (the tests say when)::

    python -m fivedice.solver.ship            # rebuild every shipped table into fivedice/solver/data
    python -m fivedice.solver.ship --refresh  # after an edit of the scoring code that left the tables
                                              # as they were: re-check them, rewrite only the headers
    python -m fivedice.solver.ship --check    # verify them: checksums, rules, tables

Each file is an ordinary table file (:mod:`fivedice.solver.cache`), its payload checked by the
SHA-256 in its header whenever it is loaded; ``SHA256SUMS`` beside them lists the files' own
checksums.
"""

from __future__ import annotations

import argparse
import hashlib
import sys

from fivedice import rules
from fivedice.solver.cache import DATA, FORMAT_VERSION, build, file_name, load, save

__all__ = ["SHIPPED", "check", "refresh", "write"]

SHIPPED = ("yahtzee", "yacht", "yatzy", "kismet", "generala")
"""The built-in rule sets whose tables ship with fivedice (default options)."""


def _sums() -> str:
    lines = [f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.name}" for p in sorted(DATA.glob("*.table"))]
    return "\n".join(lines) + "\n"


def write() -> None:
    """Build every shipped table afresh and write it (and ``SHA256SUMS``) into the package."""
    DATA.mkdir(exist_ok=True)
    for old in DATA.glob("*.table"):
        old.unlink()
    for name in SHIPPED:
        table = build(rules.get(name))
        save(table, DATA / file_name(table.tables.rules))
        print(f"{name}: {table.states:,} states, {table.seconds:.1f} s")
    (DATA / "SHA256SUMS").write_text(_sums())


def refresh() -> list[str]:
    """Re-check every shipped table against the current scoring code and rewrite its header (the
    payload stays byte for byte); returns the ones that changed and must be rebuilt (:func:`write`)."""
    stale = []
    for name in SHIPPED:
        rs = rules.get(name)
        path = DATA / file_name(rs)
        table = load(rs, path, "package")
        if table is None:
            stale.append(name)
        else:
            save(table, path)
    (DATA / "SHA256SUMS").write_text(_sums())
    return stale


def check() -> list[str]:
    """What is wrong with the shipped tables (empty when they are all present and valid)."""
    problems = []
    listed = (DATA / "SHA256SUMS").read_text() if (DATA / "SHA256SUMS").exists() else ""
    if listed != _sums():
        problems.append("SHA256SUMS does not match the files")
    for name in SHIPPED:
        rs = rules.get(name)
        path = DATA / file_name(rs)
        if load(rs, path, "package") is None:
            problems.append(f"{name}: {path.name} is missing, damaged or stale (format {FORMAT_VERSION})")
    return problems


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="verify the shipped tables instead of writing them")
    parser.add_argument("--refresh", action="store_true", help="re-check the tables, rewrite only their headers")
    args = parser.parse_args(argv)
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
