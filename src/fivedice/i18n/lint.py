"""Find user-facing text that bypasses the catalogs: an AST scan of Python sources.

A string is *text* when it holds a word (three letters or more). The scan reports text that is

- passed to ``print``, ``echo``/``secho``, ``say``, ``ask``, ``notify``, ``write`` or an exception
  constructor, given as ``help=``/``prompt=``/``title=``/``label=``, or returned, without going
  through ``_()``/``gettext()``/``ngettext()``/``pgettext()``/``N_()``;
- an f-string given to a translation call (translate a fixed text and fill ``{fields}`` instead);
- a name ``_`` assigned in a module that imports ``_`` (it would hide the translation function).

Non-text (format tokens such as ``"{key:10} {value}"``, style tags such as ``[dim]``, pieces of JSON text
such as ``'{"type":"state",'``) passes;
anything else that must stay English goes in ``allowed``. Programmer errors (``TypeError``,
``AssertionError``, ...) are not text for players and are skipped.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SINKS", "TRANSLATORS", "Finding", "scan", "scan_source"]

TRANSLATORS = frozenset({"_", "gettext", "ngettext", "pgettext", "npgettext", "N_"})
"""Calls whose string arguments are translated (or marked for translation)."""
SINKS = frozenset({"print", "echo", "secho", "say", "ask", "notify", "write", "fail", "exit", "BadParameter"})
"""Calls whose string arguments reach the player."""
TEXT_KEYWORDS = frozenset({"help", "prompt", "title", "label", "message", "placeholder", "tooltip", "sub_title"})
"""Keyword arguments that hold text for the player."""
PROGRAMMER_ERRORS = frozenset({"TypeError", "AssertionError", "NotImplementedError", "RuntimeError", "AttributeError"})
"""Exceptions that report a bug, not bad input; their messages stay English."""

_WORD = re.compile(r"[A-Za-z]{3,}")
_MARKUP = re.compile(r"\[/?(?:b|i|u|dim|bold|italic|reverse)?\]")
"""Rich/Textual style tags (``[dim]``, ``[/]``): markup, not words."""
_JSON_MEMBER = re.compile(r'"[A-Za-z_]+"\s*:')
_JSON_NAME = re.compile(r'"[A-Za-z_]+"')
"""Pieces of JSON text (``'{"type":"state",'``): in text with a member, its quoted names are not words."""


def _words(text: str) -> bool:
    """Whether ``text`` holds a word for a reader (not markup, not the names of a JSON piece)."""
    text = _MARKUP.sub("", text)
    if _JSON_MEMBER.search(text):
        text = _JSON_NAME.sub("", text)
    return bool(_WORD.search(text))


@dataclass(frozen=True, slots=True)
class Finding:
    """One untranslated text: where it is, what it says and why it is flagged."""

    path: str
    line: int
    text: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.reason}: {self.text!r}"


def _name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _literal_text(node: ast.expr) -> str | None:
    """The literal parts of a string or f-string, or None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return None


class _Scanner(ast.NodeVisitor):
    def __init__(self, path: str, allowed: frozenset[str]) -> None:
        self.path = path
        self.allowed = allowed
        self.findings: list[Finding] = []
        self.imports_underscore = False
        self._translated = 0

    def _flag(self, node: ast.expr, reason: str) -> None:
        text = _literal_text(node)
        if text is None or not _words(text) or self._translated:
            return
        if any(a in text for a in self.allowed):
            return
        self.findings.append(Finding(self.path, node.lineno, text, reason))

    def _check_values(self, nodes: Iterable[ast.expr], reason: str) -> None:
        for node in nodes:
            if isinstance(node, ast.IfExp):
                self._check_values((node.body, node.orelse), reason)
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
                self._check_values((node.left, node.right), reason)
            else:
                self._flag(node, reason)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if any(alias.name == "_" and alias.asname is None for alias in node.names):
            self.imports_underscore = True
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = _name(node.func)
        if name in TRANSLATORS:
            for arg in node.args:
                if isinstance(arg, ast.JoinedStr):
                    self.findings.append(
                        Finding(self.path, arg.lineno, _literal_text(arg) or "", "f-string given to a translation")
                    )
            self._translated += 1
            self.generic_visit(node)
            self._translated -= 1
            return
        if name in SINKS:
            self._check_values(node.args, f"untranslated text given to {name}()")
        for keyword in node.keywords:
            if keyword.arg in TEXT_KEYWORDS:
                self._check_values([keyword.value], f"untranslated {keyword.arg}=")
        self.generic_visit(node)

    def visit_Raise(self, node: ast.Raise) -> None:
        exc = node.exc
        if isinstance(exc, ast.Call) and _name(exc.func) not in PROGRAMMER_ERRORS:
            self._check_values(exc.args, f"untranslated message of {_name(exc.func)}")
        self.generic_visit(node)

    def visit_Return(self, node: ast.Return) -> None:
        if node.value is not None:
            self._check_values([node.value], "untranslated text returned")
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id == "_" and isinstance(node.ctx, ast.Store) and self.imports_underscore:
            self.findings.append(Finding(self.path, node.lineno, "_", "'_' assigned where it is the translation"))


def scan_source(source: str, path: str = "<source>", allowed: Iterable[str] = ()) -> list[Finding]:
    """Every untranslated text in one module's source (``allowed``: fragments that may stay)."""
    tree = ast.parse(source, path)
    scanner = _Scanner(path, frozenset(allowed))
    # Imports first, so an assignment to ``_`` above a late import is still caught.
    scanner.imports_underscore = any(
        isinstance(n, ast.ImportFrom) and any(a.name == "_" and a.asname is None for a in n.names)
        for n in ast.walk(tree)
    )
    scanner.visit(tree)
    return scanner.findings


def scan(paths: Iterable[Path], allowed: Iterable[str] = ()) -> list[Finding]:
    """Every untranslated text in these files (directories are searched for ``*.py``)."""
    allowed = tuple(allowed)
    found: list[Finding] = []
    for path in paths:
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for file in files:
            found.extend(scan_source(file.read_text(encoding="utf-8"), str(file), allowed))
    return found
