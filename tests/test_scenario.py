"""The shared scenario (tests/scenario.py) played through the plain line mode and on the table directly."""

from __future__ import annotations

import io

from fivedice.cli.plain import PlainSession
from fivedice.engine import notation
from fivedice.table import Table
from tests.scenario import CHALLENGE, SEATS, STEPS, reference_log, rules


def test_the_scenario_has_undo_redo_and_a_computer() -> None:
    kinds = [s[0] for s in STEPS]
    assert "undo" in kinds
    assert "redo" in kinds
    log = reference_log()
    assert any(r.startswith("@") for r in log)
    assert len(log) > 3 * rules().rounds


def test_the_plain_mode_plays_the_scenario_to_the_same_move_log() -> None:
    table = Table(rules(), SEATS, challenge=CHALLENGE, starter=0)
    steps = iter(STEPS)
    out = io.StringIO()

    def read(prompt: str) -> str | None:
        for step in steps:
            if step[0] == "roll" and len(step) == 1 and table.state.dice is not None:
                continue  # the plain mode made this first roll by itself
            if step[0] == "roll":
                return "hold " + " ".join(str(int(p) + 1) for p in step[1:]) if len(step) > 1 else ""
            return step[1] if step[0] == "score" else step[0]
        return None

    assert PlainSession(table, out, read, confirm=False).run() == 0, out.getvalue()
    assert [notation.to_text(r) for r in table.game.log] == reference_log()
    text = out.getvalue()
    assert "Undone: Ann's " in text
    assert "Redone: Ann's " in text
