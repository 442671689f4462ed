"""The optional parts of fivedice and the extras that install them.

``pip install fivedice`` brings the engine, the rules, the advisor (from the shipped tables,
on numpy) and the command line's basics. The rest are extras, named here once, so an import
that fails for want of one says which to install:

>>> extra_for("textual"), extra_for("numba.core"), extra_for("json")
('tui', 'fast', None)
>>> print(install_hint("web"))
pip install 'fivedice[web]'
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from contextlib import contextmanager

from fivedice.errors import FiveDiceError
from fivedice.i18n import _

__all__ = [
    "EXTRAS",
    "INSTALL",
    "MissingExtraError",
    "extra_for",
    "install_hint",
    "installed",
    "missing",
    "needed_by",
    "require",
]

EXTRAS: dict[str, tuple[str, ...]] = {
    "tui": ("textual",),
    "web": (
        "fastapi",
        "starlette",
        "uvicorn",
        "websockets",
        "pydantic",
        "confusables",
        "argon2",
        "webauthn",
        "pywebpush",
        "segno",
        "openskill",
    ),
    "scores": ("sqlalchemy", "alembic"),
    "postgres": ("psycopg", "redis"),
    "plot": ("matplotlib",),
    "rl": ("gymnasium", "pettingzoo"),
    "fast": ("numba", "llvmlite"),
    "dask": ("dask", "distributed"),
}
"""Each extra and the top-level modules it brings (pyproject.toml lists their packages)."""

INSTALL = "pip install 'fivedice[{extra}]'"
"""The command that installs an extra (a command line: never translated)."""

_EXTRA_OF = {module: extra for extra, modules in EXTRAS.items() for module in modules}


class MissingExtraError(FiveDiceError, ModuleNotFoundError):
    """A feature whose extra is not installed (also a :class:`ModuleNotFoundError`, so code that
    guards an optional import with ``except ImportError`` keeps working)."""

    def __init__(self, message: str, extra: str, module: str | None = None) -> None:
        super().__init__(message)
        self.extra = extra
        self.name = module


def extra_for(module: str) -> str | None:
    """The extra that installs ``module`` (a dotted name), or None for the core and the standard library."""
    return _EXTRA_OF.get(module.partition(".")[0])


def install_hint(extra: str) -> str:
    """The command that installs ``extra``."""
    return INSTALL.format(extra=extra)


def missing(what: str, extra: str, module: str | None = None) -> MissingExtraError:
    """The error saying that ``what`` needs ``extra``, in one sentence.

    >>> print(missing("'fivedice serve'", "web"))
    'fivedice serve' needs the 'web' extra: pip install 'fivedice[web]'.
    """
    message = _("{what} needs the '{extra}' extra: {command}.", what=what, extra=extra, command=install_hint(extra))
    return MissingExtraError(message, extra=extra, module=module)


def _absent(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is None
    except (ImportError, ValueError):  # a module set to None in sys.modules, or a broken parent
        return True


def installed(extra: str) -> bool:
    """Whether every module of ``extra`` can be imported (looked up, not imported).

    >>> installed("nosuch")
    Traceback (most recent call last):
    ...
    KeyError: 'nosuch'
    """
    return not any(_absent(module) for module in EXTRAS[extra])


def require(extra: str, what: str) -> None:
    """Raise :class:`MissingExtraError` (``what`` needs it) unless ``extra`` is installed."""
    for module in EXTRAS[extra]:
        if _absent(module):
            raise missing(what, extra, module)


@contextmanager
def needed_by(what: str) -> Iterator[None]:
    """Turn an import of a missing extra's module inside the block into :class:`MissingExtraError`
    (other import errors pass through unchanged)."""
    try:
        yield
    except MissingExtraError:
        raise
    except ModuleNotFoundError as exc:
        extra = extra_for(exc.name or "")
        if extra is None:
            raise
        raise missing(what, extra, exc.name) from exc
