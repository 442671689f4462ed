"""The score store as text: the high-score tables, a player's history and a small bar chart (shared
by ``fivedice scores``/``history``, the terminal game and the plain mode)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime

from fivedice.engine.render import table
from fivedice.i18n import (
    SOURCE_LANGUAGE,
    _,
    current_language,
    format_date,
    format_decimal,
    format_percent,
    ngettext,
    pgettext,
)
from fivedice.storage.store import History, ScoreRow

__all__ = ["bar_chart", "history_text", "scores_text", "scores_title"]

_EIGHTHS = " ▁▂▃▄▅▆▇█"


def bar_chart(values: Sequence[int], height: int = 6) -> str:
    """A small chart of ``values`` (oldest left), one column each, ``height`` lines tall.

    >>> print(bar_chart([100, 200, 150], height=2))
    200 │ █▂
     75 │▃██
    """
    if not values:
        return ""
    hi, lo = max(values), min(values)
    floor = max(0, lo - max(1, (hi - lo) // 4))
    span = hi - floor
    label_width = len(str(hi))
    lines = []
    for row in range(height - 1, -1, -1):
        cells = []
        for v in values:
            eighths = round((v - floor) / span * height * 8) - row * 8
            cells.append(_EIGHTHS[max(0, min(8, eighths))])
        label = str(hi) if row == height - 1 else str(floor) if row == 0 else ""
        lines.append(f"{label:>{label_width}} │{''.join(cells)}".rstrip())
    return "\n".join(lines)


def _when(row_time: object) -> str:
    """A date in the current language's short style (``2026-11-29`` in English, ``29/11/26`` in Italian)."""
    if isinstance(row_time, datetime):
        row_time = row_time.date()
    if isinstance(row_time, date):
        return row_time.isoformat() if current_language() == SOURCE_LANGUAGE else format_date(row_time, "short")
    return str(row_time)


def scores_title(solo: bool, rules_name: str | None = None) -> str:
    """The title of a high-score table, for one rule set or all."""
    if rules_name:
        if solo:
            return _("Solo high scores ({rules})", rules=rules_name)
        return _("Multiplayer high scores ({rules})", rules=rules_name)
    return _("Solo high scores") if solo else _("Multiplayer high scores")


def _notes(row: ScoreRow) -> str:
    """What sets a game apart in a high-score table: undo used, a challenge."""
    notes = []
    if row.undos:
        notes.append(ngettext("undo used {n} time", "undo used {n} times", row.undos, n=row.undos))
    if row.challenge is not None:
        notes.append(_("challenge {code}", code=row.challenge))
    return "; ".join(notes)


def scores_text(rows: Sequence[ScoreRow], title: str) -> str:
    """A high-score table with a title line; games where undo was used, and challenge games, say so."""
    if not rows:
        return _("{title}: no games yet.", title=title)
    body = [["#", _("Player"), pgettext("heading", "Score"), _("Rules"), _("Players"), _("Date"), _("Notes")]]
    for r in rows:
        who = r.name if r.kind != "computer" else _("{name} (computer {level})", name=r.name, level=r.level)
        body.append([str(r.rank), who, str(r.total), r.rules, str(r.players), _when(r.played_at), _notes(r)])
    return f"{title}\n{table(body, [True, False, True, False, True, False, False])}"


def history_text(history: History, recent: int = 10, chart: int = 30) -> str:
    """A player's statistics, a chart of recent scores and their latest games."""
    if not history.games:
        return _("{title}: no games yet.", title=history.player)
    lines = [
        ngettext("{player}: {n} game", "{player}: {n} games", history.count, player=history.player, n=history.count)
    ]
    mean = format_decimal(history.mean, 1) if history.mean is not None else "-"
    lines.append("  " + _("mean {mean}, best {best}, wins {wins}", mean=mean, best=history.best, wins=history.wins))
    rate = history.bonus_rate
    lines.append("  " + _("upper bonus rate: {rate}", rate="-" if rate is None else format_percent(rate, 0)))
    loss = history.mean_loss
    analysed = _("not analysed") if loss is None else _("{points} points", points=format_decimal(loss, 2))
    lines.append("  " + _("mean loss per decision: {loss}", loss=analysed))
    scores = [g.total for g in reversed(history.games[:chart])]
    last = ngettext("Last {n} score:", "Last {n} scores (oldest left):", len(scores), n=len(scores))
    lines += ["", last, bar_chart(scores), ""]
    body = [[_("Date"), _("Rules"), _("Players"), _("Place"), pgettext("heading", "Score"), _("Bonus"), _("Loss")]]
    for g in history.games[:recent]:
        place = _("{place} of {players}", place=g.place, players=g.players) if g.players > 1 else _("solo")
        loss_text = "-" if g.loss is None else format_decimal(g.loss, 1)
        body.append([_when(g.played_at), g.rules, str(g.players), place, str(g.total), str(g.upper_bonus), loss_text])
    lines.append(table(body, [False, False, True, False, True, True, True]))
    return "\n".join(lines)
