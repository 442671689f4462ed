"""JSON save and load of whole games, with a format version and an integrity check.

A save holds the rule set, the players, the move log (and the redo stack), the same moves in
the text notation, the final totals, what a :class:`~fivedice.table.Table` adds (seats, dice
tape, undo count) and a SHA-256 digest of the rest. Loading checks every field against
:data:`FIELDS` (its type, the table's fields too, and no field missing or unknown), the digest,
then replays every move through the engine and compares the notation and totals with the
replay, so a damaged or edited file fails with one clear sentence and never yields a half-built
game.

Saving writes a temporary file beside the target and renames it over the target, so a save is
whole or absent; when it cannot be written (a missing folder, a folder given as the file, no
permission) :class:`~fivedice.errors.SaveError` says so, nothing is left behind and the game
is untouched.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import secrets
import shlex
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import platformdirs

from fivedice.engine import notation
from fivedice.engine.game import Game
from fivedice.errors import FiveDiceError, SaveError, SaveFormatError
from fivedice.i18n import N_, _
from fivedice.rules import BUILTINS, RuleSet, parse_spec
from fivedice.rules import from_data as rules_from_data

__all__ = [
    "FIELDS",
    "FORMAT",
    "TABLE_FIELDS",
    "VERSION",
    "Field",
    "dumps",
    "load",
    "loads",
    "new_save_path",
    "parse",
    "program",
    "read",
    "resume_command",
    "save",
    "saves_dir",
    "to_data",
    "write",
]

FORMAT = "fivedice-game"
VERSION = 1


# -- the fields of a save ---------------------------------------------------------------
def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_list_of(check: Callable[[object], bool]) -> Callable[[object], bool]:
    return lambda value: isinstance(value, list) and all(check(v) for v in value)


def _is_rules(value: object) -> bool:
    if not isinstance(value, dict) or len(value) != 1:
        return False
    return isinstance(value.get("spec"), str) or isinstance(value.get("definition"), dict)


def _is_digest(value: object) -> bool:
    return isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)


def _is_text(value: object) -> bool:
    return isinstance(value, str)


def _is_object(value: object) -> bool:
    return isinstance(value, dict)


def _is_pair(value: object) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(_is_int(v) for v in value)


@dataclass(frozen=True, slots=True)
class Field:
    """One field of a save: its ``name``, a ``check`` of its JSON value's form and what it is
    ``expected`` to be (an ``N_()`` text, translated in the message). A field that is not
    ``required`` may be absent (a field added to the format later, which older saves lack); an
    object's own ``fields``, if given, are checked the same way."""

    name: str
    check: Callable[[object], bool]
    expected: str
    required: bool = True
    fields: tuple[Field, ...] = ()


TABLE_FIELDS: tuple[Field, ...] = (
    Field("seats", _is_list_of(_is_object), N_("a list of seats, each an object")),
    Field("by", _is_list_of(_is_text), N_("a list of who made each move")),
    Field("redo_by", _is_list_of(_is_text), N_("a list of who made each move")),
    Field("tape", _is_list_of(lambda v: isinstance(v, list)), N_("a list of dice-tape entries")),
    Field("undos", _is_int, N_("a whole number")),
    Field("policy", lambda v: v is None or _is_text(v), N_("an undo policy's name or null"), required=False),
    Field("challenge", lambda v: v is None or _is_text(v), N_("a challenge code or null"), required=False),
    Field("hints", _is_list_of(_is_pair), N_("a list of [seat, move] pairs")),
    Field("sealed", lambda v: isinstance(v, bool), N_("true or false"), required=False),
    Field("kept", _is_list_of(_is_int), N_("a list of die positions"), required=False),
)
"""The fields of a :class:`~fivedice.table.Table`'s part of a save (``"table"``)."""

FIELDS: tuple[Field, ...] = (
    Field("format", lambda v: isinstance(v, str), N_("the text 'fivedice-game'")),
    Field("version", _is_int, N_("a whole number")),
    Field("rules", _is_rules, N_("an object holding a rule-set 'spec' (a text) or a 'definition' (an object)")),
    Field("players", _is_list_of(lambda v: isinstance(v, str)), N_("a list of player names")),
    Field("starter", lambda v: v is None or _is_int(v), N_("a seat number or null")),
    Field("log", _is_list_of(lambda v: isinstance(v, dict)), N_("a list of moves, each an object")),
    Field("redo", _is_list_of(lambda v: isinstance(v, dict)), N_("a list of moves, each an object")),
    Field("notation", lambda v: isinstance(v, str), N_("the moves in fivedice notation, as a text")),
    Field("over", lambda v: isinstance(v, bool), N_("true or false")),
    Field("totals", _is_list_of(_is_int), N_("a list of whole numbers, one per player")),
    Field("table", _is_object, N_("an object with the table's seats, dice tape and undos"), False, TABLE_FIELDS),
    Field("sha256", _is_digest, N_("a SHA-256 digest in hexadecimal")),
)
"""Every field of a save, in the order they are checked; a new field is one more entry."""


def _digest(body: dict[str, Any]) -> str:
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _rules_data(rules: RuleSet) -> dict[str, Any]:
    if rules.name in BUILTINS and parse_spec(rules.spec) == rules:
        return {"spec": rules.spec}
    return {"definition": rules.to_data()}


def to_data(game: Game, table: dict[str, Any] | None = None) -> dict[str, Any]:
    """The save as a JSON-ready dict; ``table`` is what a :class:`~fivedice.table.Table` adds (seats, dice
    tape, undo count), covered by the checksum and ignored by tools that only replay the game."""
    state = game.state
    body: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "rules": _rules_data(game.rules),
        "players": list(game.players),
        "starter": game.initial.starter,
        "log": [notation.to_json(a) for a in game.log],
        "redo": [notation.to_json(a) for a in game.redo_stack],
        "notation": notation.log_to_text(game.log),
        "over": state.is_over,
        "totals": list(state.totals),
    }
    if table is not None:
        body["table"] = table
    body["sha256"] = _digest(body)
    return body


def dumps(game: Game) -> str:
    """The save as JSON text."""
    return json.dumps(to_data(game), indent=1)


def saves_dir() -> Path:
    """The folder of games saved to be resumed (the terminal game's Resume lists it):
    ``fivedice/saves`` in the user's data folder (``$XDG_DATA_HOME`` or ``~/.local/share`` on Linux)."""
    return Path(platformdirs.user_data_dir("fivedice", appauthor=False)) / "saves"


def new_save_path(folder: Path | None = None) -> Path:
    """A new file name for a save in ``folder`` (default :func:`saves_dir`), unique by its time stamp."""
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S-%f")
    return (folder or saves_dir()) / f"game-{stamp}.json"


def program(argv0: str | None = None, path_lookup: Callable[[str], str | None] = shutil.which) -> str:
    """The command that runs this fivedice, as the reader can type it: ``fivedice`` when that name on
    the PATH is this program; else the program's full path (``make play`` runs ``.venv/bin/fivedice``,
    which is not on the PATH until the environment is activated), or ``python -m fivedice`` with this
    interpreter's full path when fivedice was started as a module.

    >>> program("/home/ann/fivedice/.venv/bin/fivedice", lambda name: None)
    '/home/ann/fivedice/.venv/bin/fivedice'
    >>> program("/usr/bin/fivedice", lambda name: "/usr/bin/fivedice")
    'fivedice'
    >>> program("/venv/lib/python3.11/site-packages/pytest/__main__.py", lambda name: None)  # another module's
    'fivedice'
    """
    argv0 = sys.argv[0] if argv0 is None else argv0
    script = Path(argv0)
    if script.name == "__main__.py" and script.parent.name == _PROGRAM:
        return f"{shlex.quote(sys.executable)} -m {_PROGRAM}"
    if script.name not in (_PROGRAM, f"{_PROGRAM}.exe"):
        return _PROGRAM  # started some other way (a test, an embedding program): the usual name
    found = path_lookup(_PROGRAM)
    if found is not None and os.path.realpath(found) == os.path.realpath(script):
        return _PROGRAM
    return shlex.quote(str(script.absolute()))


_PROGRAM = "fivedice"


def resume_command(path: Path, *, plain: bool = False) -> str:
    """The command line that resumes the game saved in ``path``, runnable as printed (see :func:`program`)."""
    words = [program(), "play", *(["--plain"] if plain else []), "--load", shlex.quote(str(path))]
    return " ".join(words)


# -- writing ----------------------------------------------------------------------------
_REASONS = {
    errno.EACCES: N_("permission denied"),
    errno.EPERM: N_("permission denied"),
    errno.ENOSPC: N_("the disk is full"),
    errno.EROFS: N_("the file system is read-only"),
    errno.EISDIR: N_("it is a folder"),
    errno.ENOENT: N_("its folder does not exist"),
    errno.ENOTDIR: N_("part of its folder path is a file"),
}


def _cannot(path: Path, code: int, reason: str | None = None) -> SaveError:
    text = reason or (_(_REASONS[code]) if code in _REASONS else os.strerror(code))
    error = SaveError(_("The game cannot be saved to {path!r}: {reason}.", path=str(path), reason=text))
    error.errno, error.strerror = code, os.strerror(code)
    return error


def save(game: Game, path: str | Path) -> None:
    """Write the game to ``path``, whole or not at all (see :func:`write`)."""
    write(to_data(game), path)


def write(data: dict[str, Any], path: str | Path) -> None:
    """Write a save's dict to ``path`` as JSON, whole or not at all (a temporary file beside it, then
    a rename).

    Raises :class:`~fivedice.errors.SaveError` (one sentence; nothing written, the game untouched)
    when ``path`` is a folder, its folder does not exist or the file cannot be written."""
    path = Path(path)
    text = json.dumps(data, indent=1)
    if path.is_dir():
        raise _cannot(path, errno.EISDIR, _("it is a folder; expected a file name such as 'game.json'"))
    folder = path.parent
    if not folder.is_dir():
        reason = _("folder {folder!r} does not exist", folder=str(folder)) if not folder.exists() else None
        raise _cannot(path, errno.ENOENT if not folder.exists() else errno.ENOTDIR, reason)
    tmp = folder / f".{path.name}.{secrets.token_hex(4)}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise _cannot(path, exc.errno or errno.EIO) from None


# -- reading ----------------------------------------------------------------------------
def _shown(value: object) -> str:
    """A JSON value as the file has it, cut short."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:39] + "…"


def _check(data: dict[str, Any], fields: tuple[Field, ...], prefix: str = "") -> None:
    """Every field of ``data`` against ``fields``: none unknown, none required missing, each of its form."""
    unknown = sorted(set(data) - {f.name for f in fields})
    if unknown:
        raise SaveFormatError(
            _(
                "The saved game has an unknown field {field!r}; expected only: {fields}.",
                field=prefix + unknown[0],
                fields=", ".join(prefix + f.name for f in fields),
            )
        )
    for field in fields:
        name = prefix + field.name
        if field.name not in data:
            if field.required:
                raise SaveFormatError(
                    _("The saved game lacks the field {field!r} ({expected}).", field=name, expected=_(field.expected))
                )
            continue
        value = data[field.name]
        if not field.check(value):
            raise SaveFormatError(
                _(
                    "Save field {field!r} is {value}; expected {expected}.",
                    field=name,
                    value=_shown(value),
                    expected=_(field.expected),
                )
            )
        if field.fields:
            _check(value, field.fields, name + ".")


def _check_fields(data: dict[str, Any]) -> None:
    if data.get("format") != FORMAT:
        raise SaveFormatError(
            _(
                "Format {format!r} is not a fivedice save; expected {expected!r}.",
                format=data.get("format"),
                expected=FORMAT,
            )
        )
    version = data.get("version")
    if not _is_int(version) or version != VERSION:
        raise SaveFormatError(
            _(
                "Save version {version} is not supported; expected {expected}.",
                version=_shown(version),
                expected=VERSION,
            )
        )
    _check(data, FIELDS)


def _check_notation(saved: str, game: Game) -> None:
    replayed = [notation.to_text(a) for a in game.log]
    tokens = saved.split()
    if tokens == replayed:
        return
    at = next(
        (i for i, (a, b) in enumerate(zip(tokens, replayed, strict=False)) if a != b), min(len(tokens), len(replayed))
    )
    raise SaveFormatError(
        _(
            "The saved notation disagrees with the saved moves at move {n}: {saved!r} where the moves give {moves!r}.",
            n=at + 1,
            saved=tokens[at] if at < len(tokens) else "",
            moves=replayed[at] if at < len(replayed) else "",
        )
    )


def from_data(data: object, rng: object = None) -> Game:
    """Rebuild a game from a save's dict, verifying everything."""
    if not isinstance(data, dict):
        raise SaveFormatError(_("The saved game is not a JSON object."))
    _check_fields(data)
    body = {k: v for k, v in data.items() if k != "sha256"}
    if data["sha256"] != _digest(body):
        raise SaveFormatError(_("The saved game's checksum does not match its contents; it was damaged or edited."))
    try:
        rules_data = data["rules"]
        rules = parse_spec(rules_data["spec"]) if "spec" in rules_data else _definition(rules_data["definition"])
        game = Game.replay(
            rules,
            data["players"],
            [notation.from_json(a) for a in data["log"]],
            starter=data["starter"],
            rng=rng,
        )
        redo = [notation.from_json(a) for a in data["redo"]]
    except FiveDiceError as exc:
        raise SaveFormatError(_("The saved game does not replay: {reason}", reason=exc)) from None
    _check_notation(data["notation"], game)
    if list(game.state.totals) != data["totals"] or game.state.is_over != data["over"]:
        raise SaveFormatError(_("The saved totals do not match the replayed moves."))
    try:
        game.restore_redo(redo)
    except FiveDiceError as exc:
        raise SaveFormatError(_("The saved redo moves do not replay: {reason}", reason=exc)) from None
    return game


def _definition(data: dict[str, Any]) -> RuleSet:
    try:
        return rules_from_data(data)
    except (KeyError, TypeError, AttributeError) as exc:
        raise SaveFormatError(_("The saved rule set is not a valid definition ({reason}).", reason=exc)) from None


def parse(text: str) -> object:
    """The JSON of a save (not yet checked)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SaveFormatError(
            _("The saved game is not valid JSON ({reason} at line {line}).", reason=exc.msg, line=exc.lineno)
        ) from None


def loads(text: str, rng: object = None) -> Game:
    """Rebuild a game from JSON text."""
    return from_data(parse(text), rng)


def read(path: str | Path) -> object:
    """The JSON of the save file at ``path`` (not yet checked)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise SaveFormatError(
            _("Save file {path!r} cannot be read: {reason}.", path=str(path), reason=exc.strerror)
        ) from None
    except UnicodeDecodeError:
        raise SaveFormatError(_("Save file {path!r} is not UTF-8 text.", path=str(path))) from None
    return parse(text)


def load(path: str | Path, rng: object = None) -> Game:
    """Read a game saved by :func:`save`."""
    return from_data(read(path), rng)
