"""One scripted game that every front end plays: two humans and a computer, with undo and redo.

The plain mode, the terminal game (a Textual pilot) and the web (its API) each drive the same
:data:`STEPS` and must end with the move log of :func:`reference_log`, played directly on a
:class:`~fivedice.table.Table`. The dice come from a challenge code, so every front end meets the
same dice whoever triggers a roll. The web server seals the challenges it hosts with its own secret
(:class:`~fivedice.table.tape.ChallengeDice`): its reference is the same steps played on the dice of that
``key`` (the steps are legal on any dice).

A step is what a human asks for when it is their turn: ``("roll", positions kept)`` (a turn's first
roll is ``("roll", ())``; a front end that makes it by itself skips it), ``("score", box)``,
``("undo",)`` or ``("redo",)``. The computer's moves happen between the steps.
"""

from __future__ import annotations

from collections.abc import Callable

from fivedice.engine import notation
from fivedice.rules import RuleSet, get
from fivedice.table import Table

__all__ = ["CHALLENGE", "SEATS", "SPEC", "STEPS", "Step", "drive", "reference_log", "rules"]

SPEC = "yacht"
SEATS = ("Ann", "Bob", "Max:greedy")
CHALLENGE = "every-front-end"
Step = tuple[str, ...]


def rules() -> RuleSet:
    """The scenario's rule set."""
    return get(SPEC)


def _script() -> list[Step]:
    """The steps: each human keeps the first two dice once, then scores the best open box by points;
    Ann takes back her score in round 2 and scores another box, and in round 3 takes back her score and
    redoes it (Bob, a human, plays after her: a computer would roll at once and make her score final)."""
    table = Table(rules(), SEATS, challenge=CHALLENGE, starter=0)
    steps: list[Step] = []
    while not table.is_over:
        table.advance()
        if table.is_over:
            break
        state = table.state
        who = state.players[state.current]
        if state.dice is None:
            steps.append(("roll",))
            table.roll()
            continue
        if state.rolls == 1:
            steps.append(("roll", "0", "1"))
            table.roll((0, 1))
            continue
        ranked = sorted(state.options().items(), key=lambda kv: (-kv[1], rules().box_index(kv[0][1])))
        box = ranked[0][0][1]
        steps.append(("score", box))
        table.score(box)
        if who == "Ann" and state.round == 2:
            steps.append(("undo",))
            table.undo()
            other = ranked[-1][0][1]
            steps.append(("score", other))
            table.score(other)
        elif who == "Ann" and state.round == 3:
            steps += [("undo",), ("redo",)]
            table.undo()
            table.redo()
    return steps


STEPS: list[Step] = _script()


def drive(table: Table, step: Step) -> None:
    """Carry out one step on a table directly (the reference front end)."""
    kind = step[0]
    if kind == "roll":
        if table.state.dice is None or len(step) > 1:
            table.roll(tuple(int(p) for p in step[1:]))
    elif kind == "score":
        table.score(step[1])
    elif kind == "undo":
        table.undo()
    else:
        table.redo()


def reference_log(on_step: Callable[[Table, Step], None] = drive, key: bytes | None = None) -> list[str]:
    """The move log (in the notation) of :data:`STEPS` played on a table by ``on_step`` (on the challenge's
    dice sealed by ``key``, a server's secret, when given)."""
    table = Table(rules(), SEATS, challenge=CHALLENGE, challenge_key=key, starter=0)
    for step in STEPS:
        table.advance()
        on_step(table, step)
    table.advance()
    assert table.is_over
    return [notation.to_text(r) for r in table.game.log]
