"""Every code block of the README and docs/ is a test.

- ``python`` blocks run (in a fresh folder and user data folders of their own), unless the line before
  the block is ``<!-- not run: REASON -->``: those are compiled and their imports resolved.
- ``toml`` blocks are rule files: they load.
- Command lines (``fivedice ...``, also after ``$``, environment assignments or ``&``) name a real
  command and only its real options, and a concrete line (no ``[...]`` or ``|`` of a usage summary)
  parses as the command line would parse it; ``python -m M``, ``bench/X.py`` and ``make T`` name a
  module, a file and a target that exist.
- Other blocks (sample output, an nginx configuration) are shown as they are; a block of an unknown
  language fails, so a new kind of block gets a rule here.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.util
import os
import re
import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path

import click
import pytest

from fivedice import rules
from fivedice.cli import main

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHOWN = {"nginx", "text"}
"""Block languages shown as they are (a reverse proxy's configuration, sample output)."""
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


@dataclass(frozen=True)
class Block:
    path: Path
    line: int
    lang: str
    body: str
    not_run: str | None

    def __str__(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def _blocks() -> list[Block]:
    found = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for m in _FENCE.finditer(text):
            before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1]
            skip = re.fullmatch(r"<!-- not run: (.+) -->", before.strip())
            line = text.count("\n", 0, m.start()) + 1
            found.append(Block(path, line, m.group(1), m.group(2), skip.group(1) if skip else None))
    return found


BLOCKS = _blocks()


def _commands(block: Block) -> list[list[str]]:
    """The command lines of a shell-like block, as words (comments, prompts, ``VAR=x`` and ``&`` dropped)."""
    out = []
    for raw in block.body.replace("\\\n", " ").splitlines():
        line = raw.strip()
        if line.startswith("$ "):
            line = line[2:]
        elif block.lang == "console" or (
            block.lang == "" and not line.startswith(("fivedice", "make", "python", "nice", "FIVEDICE_", "DB="))
        ):
            continue  # an output line of a sample
        line = line.split(" #", 1)[0].strip().rstrip("&").strip()
        if not line or line.startswith("#"):
            continue
        for part in line.split("; "):
            words = shlex.split(part)
            while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
                words.pop(0)
            if words and words[0] == "nice":
                words.pop(0)
            if words:
                out.append(words)
    return out


def _check_fivedice(words: list[str]) -> None:
    """A ``fivedice`` line names a real command and real options, and a concrete one parses."""
    args = list(words[1:])
    group = main
    ctx = group.make_context("fivedice", [], resilient_parsing=True)
    concrete = not any(w.startswith("[") or "|" in w or (w.isupper() and len(w) > 1) for w in args)
    # the group's own options first (--lang it)
    while args and args[0].startswith("-"):
        option = args.pop(0)
        assert option in {"--lang", "--help", "--version"}, f"fivedice has no option {option}"
        if option == "--lang":
            args.pop(0)
    if not args:
        return
    name = args[0]
    command = group.get_command(ctx, name)
    assert command is not None, f"fivedice has no command {name!r}"
    known = {opt for p in command.params for opt in (*p.opts, *p.secondary_opts)}
    for word in args[1:]:
        for option in re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", word) if word.startswith(("-", "[")) else []:
            assert option in known, f"fivedice {name} has no option {option}"
    if concrete:
        with contextlib.suppress(click.exceptions.Exit):  # --help
            command.make_context(name, list(args[1:]), resilient_parsing=False)


def _check_command(words: list[str]) -> None:
    head = words[0]
    if head in ("fivedice", ".venv/bin/fivedice"):
        _check_fivedice(words)
    elif head == "make":
        targets = re.findall(r"^([a-z][\w-]*):", (ROOT / "Makefile").read_text(), re.M)
        assert all(t in targets for t in words[1:] if "=" not in t), f"no make target in {words}"
    elif head in ("python", "python3", ".venv/bin/python") and words[1] == "-m":
        assert importlib.util.find_spec(words[2]) is not None, f"no module {words[2]}"
    elif head in ("python", "python3", ".venv/bin/python"):
        assert (ROOT / words[1]).is_file(), f"no file {words[1]}"
    else:
        raise AssertionError(f"a command the docs test does not know: {' '.join(words)}")


def _check_imports(source: str) -> None:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            module = importlib.import_module(node.module)
            for alias in node.names:
                assert hasattr(module, alias.name) or importlib.util.find_spec(f"{node.module}.{alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                importlib.import_module(alias.name)


@pytest.mark.parametrize("block", BLOCKS, ids=str)
def test_the_code_block_works(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if block.lang == "python":
        if block.not_run is not None:
            compile(block.body, str(block), "exec")
            _check_imports(block.body)
            return
        for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
            monkeypatch.setenv(name, str(tmp_path / name.lower()))
        monkeypatch.delenv("FIVEDICE_DB", raising=False)
        monkeypatch.chdir(tmp_path)
        exec(compile(block.body, str(block), "exec"), {"__name__": "__docs__"})
    elif block.lang == "toml":
        assert rules.from_data(tomllib.loads(block.body)).boxes
    elif block.lang in ("", "sh", "console"):
        commands = _commands(block)
        assert commands or block.lang == "", f"{block} has no command"
        for words in commands:
            _check_command(words)
    else:
        assert block.lang in SHOWN, f"{block}: a {block.lang!r} block needs a rule in tests/test_docs.py"


def test_every_doc_has_its_blocks_found() -> None:
    assert len(BLOCKS) >= 25
    assert all(os.path.exists(b.path) for b in BLOCKS)


def test_a_wrong_option_in_a_doc_is_caught() -> None:
    with pytest.raises(AssertionError, match="has no option --no-such"):
        _check_command(["fivedice", "solve", "yahtzee", "--no-such"])
    with pytest.raises(click.UsageError):
        _check_command(["fivedice", "solve"])
    with pytest.raises(AssertionError, match="no command"):
        _check_command(["fivedice", "sovle", "yahtzee"])


def test_the_rules_reference_lists_each_rule_sets_boxes() -> None:
    """docs/RULES.md's box table of each rule set names its boxes, in card order, as the rule data does."""
    text = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
    sections = re.findall(r"^## [^\n]*\(`(\w+)`[^\n]*\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert sorted(name for name, _body in sections) == sorted(rules.BUILTINS)
    for name, body in sections:
        table = re.search(r"^\| box \|.*?\n\|[- |]+\n((?:\|.*\n)+)", body, re.M)
        assert table is not None, name
        labels = [row.split("|")[1].strip() for row in table.group(1).splitlines()]
        assert labels == [box.label for box in rules.get(name).boxes], name


def test_the_readme_says_which_catalogs_are_complete() -> None:
    """The README's language table agrees with the catalogs (a complete one had been called partial)."""
    from fivedice.i18n.catalogs import stats

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for code, (done, fuzzy, total) in stats().items():
        row = re.search(rf"^\| `{code}` \| [^|]+\| ([^|]+)\|", text, re.M)
        assert row is not None, code
        assert row.group(1).strip().startswith("complete") == (done == total and not fuzzy), code


def test_the_readme_lists_each_rule_sets_options() -> None:
    """The README's rule-set table names every built-in option with its values, the default first."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for name, builtin in rules.BUILTINS.items():
        row = re.search(rf"^\| `{name}` \|[^|]*\|(.*)\|$", text.replace("\\|", "/"), re.M)
        assert row is not None, name
        listed = re.findall(r"`(\w+)=([\w/]+)`", row.group(1))
        assert listed == [(o.name, "/".join(o.choices)) for o in builtin.options], name
