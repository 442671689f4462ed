"""JSON save and load of whole games, with a format version and an integrity check.

A save holds the rule set, the players, the move log (and the redo stack), the final
totals and a SHA-256 digest of the rest. Loading replays every move through the engine,
so a damaged or tampered file fails with a clear error and never yields a half-built game.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import platformdirs

from fivedice import notation
from fivedice.errors import FiveDiceError, SaveFormatError
from fivedice.game import Game
from fivedice.i18n import _
from fivedice.rules import BUILTINS, RuleSet, parse_spec
from fivedice.rules import from_data as rules_from_data

__all__ = [
    "FORMAT",
    "VERSION",
    "dumps",
    "load",
    "loads",
    "new_save_path",
    "parse",
    "read",
    "save",
    "saves_dir",
    "to_data",
    "write",
]

FORMAT = "fivedice-game"
VERSION = 1


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


def save(game: Game, path: str | Path) -> None:
    """Write the game to ``path`` (atomically: a temporary file, then a rename)."""
    write(to_data(game), path)


def write(data: dict[str, Any], path: str | Path) -> None:
    """Write a save's dict to ``path`` as JSON (atomically: a temporary file, then a rename)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
    tmp.replace(path)


def from_data(data: object, rng: object = None) -> Game:
    """Rebuild a game from a save's dict, verifying everything."""
    if not isinstance(data, dict):
        raise SaveFormatError(_("The saved game is not a JSON object."))
    if data.get("format") != FORMAT:
        raise SaveFormatError(
            _(
                "Format {format!r} is not a fivedice save; expected {expected!r}.",
                format=data.get("format"),
                expected=FORMAT,
            )
        )
    if data.get("version") != VERSION:
        raise SaveFormatError(
            _(
                "Save version {version!r} is not supported; expected {expected}.",
                version=data.get("version"),
                expected=VERSION,
            )
        )
    body = {k: v for k, v in data.items() if k != "sha256"}
    if data.get("sha256") != _digest(body):
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
        if list(game.state.totals) != data["totals"] or game.state.is_over != data["over"]:
            raise SaveFormatError(_("The saved totals do not match the replayed moves."))
    except SaveFormatError:
        raise
    except FiveDiceError as exc:
        raise SaveFormatError(_("The saved game does not replay: {reason}", reason=exc)) from None
    except (KeyError, TypeError) as exc:
        raise SaveFormatError(_("The saved game lacks or garbles {what}.", what=exc)) from None
    try:
        game.restore_redo(redo)
    except FiveDiceError as exc:
        raise SaveFormatError(_("The saved redo moves do not replay: {reason}", reason=exc)) from None
    return game


def _definition(data: object) -> RuleSet:
    if not isinstance(data, dict):
        raise SaveFormatError(_("The saved rule set is not a JSON object."))
    return rules_from_data(data)


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
