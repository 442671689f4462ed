"""Loading the table's part of a save (:meth:`Table.from_data <fivedice.table.Table.from_data>`), every
field checked: a save that does not replay is refused in one sentence."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from fivedice.engine.game import Game
from fivedice.errors import FiveDiceError, SaveFormatError
from fivedice.i18n import _
from fivedice.table.seat import Seat

if TYPE_CHECKING:
    from fivedice.table.table import Table

__all__ = ["load_table"]


def load_table(cls: type[Table], game: Game, extra: object, rng: object, auto_first_roll: bool) -> Table:
    """A table of class ``cls`` from a loaded ``game`` and the table part ``extra`` of its save."""
    if not isinstance(extra, dict):
        raise SaveFormatError(_("The saved table is not a JSON object."))
    try:
        seats = [Seat.from_data(s) for s in extra["seats"]]
        challenge = extra.get("challenge")
        if challenge is not None and not isinstance(challenge, str):
            raise SaveFormatError(_("The saved challenge {code!r} is not text.", code=challenge))
        table = cls(
            game.rules,
            seats,
            rng=rng if rng is not None else random.Random(),
            challenge=challenge,
            undo=extra.get("policy"),
            auto_first_roll=auto_first_roll,
            starter=game.initial.starter,
        )
        if extra.get("sealed") is True:  # a server's sealed challenge: its dice are the saved ones, not the public tape
            table.tape.challenge = None
        table.tape.load(extra["tape"])
        table.adopt(game.log, game.redo_stack, extra["by"], extra["redo_by"])
        undos, hints = extra["undos"], extra["hints"]
        if isinstance(undos, bool) or not isinstance(undos, int) or undos < 0:
            raise SaveFormatError(_("The saved undo count {count!r} is not a whole number.", count=undos))
        table.undos = undos
        table.hints = [(int(s), int(m)) for s, m in hints]
        table.kept = _kept(extra.get("kept", []), table)
    except SaveFormatError:
        raise
    except FiveDiceError as exc:
        raise SaveFormatError(_("The saved table does not replay: {reason}", reason=exc)) from None
    except (KeyError, TypeError, ValueError) as exc:
        raise SaveFormatError(_("The saved table lacks or garbles {what}.", what=exc)) from None
    return table


def _kept(kept: list[int], table: Table) -> tuple[int, ...]:
    """The saved set-aside dice (a list of whole numbers, as the save's check found), checked to be
    distinct positions of dice; none once nothing can be rolled again."""
    state = table.state
    dice = state.rules.dice
    if len(set(kept)) != len(kept) or not all(0 <= p < dice for p in kept):
        raise SaveFormatError(
            _("The saved kept dice {kept!r} are not distinct die positions 0 to {last}.", kept=kept, last=dice - 1)
        )
    if state.dice is None or state.rolls_left == 0:
        return ()
    return tuple(sorted(kept))
