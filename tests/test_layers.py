"""The layers contract: imports only point down (see ``docs/README-layers.md``).

Every import in the package counts, at module level or inside a function (a lazy import is still an
arrow). Packages in one layer are siblings: they never import each other. ``__main__`` modules are
launchers that nothing imports, and the package's ``__init__`` gathers the public names, so both may
point anywhere.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

LAYERS: tuple[tuple[str, ...], ...] = (
    ("fivedice.cli",),
    ("fivedice.tui", "fivedice.web", "fivedice.rl"),
    ("fivedice.storage",),
    ("fivedice.table",),
    ("fivedice.services",),
    ("fivedice.players",),
    ("fivedice.solver",),
    ("fivedice.engine",),
    ("fivedice.rules",),
    ("fivedice.dice", "fivedice.hangup", "fivedice.extras"),
    ("fivedice.i18n",),
    ("fivedice.errors",),
)
"""Top to bottom; a module may import from its own package and from any layer below its own."""


def _unit(module: str) -> str | None:
    """The layer package (or loose module) a module belongs to."""
    for layer in LAYERS:
        for unit in layer:
            if module == unit or module.startswith(unit + "."):
                return unit
    return None


def _rank(unit: str) -> int:
    return next(i for i, layer in enumerate(LAYERS) if unit in layer)


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted((SRC / "fivedice").rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imports(path: Path, module: str) -> set[str]:
    names: set[str] = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1], base]).strip(".")
            names.add(base)
            names.update(f"{base}.{a.name}" for a in node.names)  # `from fivedice import saves`
    return {n for n in names if n.startswith("fivedice")}


MODULES = _modules()


def test_every_module_has_a_layer() -> None:
    exempt = {"fivedice", "fivedice.__main__"}
    assert sorted(m for m in MODULES if m not in exempt and _unit(m) is None) == []


def test_few_modules_are_loose() -> None:
    loose = [m for m, p in MODULES.items() if m.count(".") == 1 and p.name != "__init__.py"]
    assert len(loose) <= 8, loose


def _arrows_up() -> list[str]:
    bad = []
    for module, path in MODULES.items():
        unit = _unit(module)
        if unit is None or module.endswith("__main__"):
            continue
        for target in _imports(path, module):
            other = _unit(target)
            if other is None or other == unit:
                continue
            if _rank(other) <= _rank(unit):
                bad.append(f"{module} imports {target} ({other} is not below {unit})")
    return sorted(bad)


def test_imports_point_down() -> None:
    assert _arrows_up() == []


@pytest.mark.parametrize(
    ("module", "target"),
    [("fivedice.engine.state", "fivedice.table"), ("fivedice.tui.app", "fivedice.web.app")],
)
def test_the_contract_sees_an_arrow_up(module: str, target: str, tmp_path: Path) -> None:
    """The check itself: an upward import (or one between siblings) is found."""
    path = tmp_path / "m.py"
    path.write_text(f"def f():\n    import {target}\n", encoding="utf-8")
    other, unit = _unit(target), _unit(module)
    assert other is not None
    assert unit is not None
    assert target in _imports(path, module)
    assert _rank(other) <= _rank(unit)


@pytest.mark.parametrize("old", sorted(__import__("fivedice").MOVED))
def test_a_moved_module_imports_under_its_old_name(old: str) -> None:
    import importlib
    import sys

    import fivedice

    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=fivedice.MOVED[old].replace(".", r"\.")):
        module = importlib.import_module(old)
    assert module is importlib.import_module(fivedice.MOVED[old])


def test_the_documented_imports_need_no_old_name() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        from fivedice import Game, notation, rules, saves
        from fivedice.table import Table

    assert Game.__module__ == "fivedice.engine.game"
    assert saves.__name__ == "fivedice.engine.saves"
    assert notation.__name__ == "fivedice.engine.notation"
    assert rules.get("yacht").name == "yacht"
    assert Table.__module__ == "fivedice.table.table"
