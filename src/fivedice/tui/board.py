"""The game screen's view (:class:`Board`): the cards, the dice and the lines around them, drawn from a
:class:`~fivedice.table.Table` through reactive attributes.

Attributes down, messages up: :meth:`Board.sync` sets the board's reactive attributes from the table (the state,
the dice set aside, the highlighted box, the hint shown, the last events, the status and panel texts); each
attribute's watcher draws the widgets that show it, and a widget draws only when its content changes. The
widgets report clicks as messages, which the game screen (:mod:`fivedice.tui.play`) handles.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Horizontal, ScrollableContainer, Vertical
from textual.markup import escape
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Static

from fivedice.engine.actions import Action, Roll, Score
from fivedice.engine.state import GameState
from fivedice.i18n import _
from fivedice.services.advice import Advice
from fivedice.table.events import Event, RollRedone, RollUndone, Scored, ScoreRedone, ScoreUndone, narrate
from fivedice.tui.layout import fit
from fivedice.tui.session import Session
from fivedice.tui.texts import keys_text, turn_text
from fivedice.tui.widgets import DiceBar, I18nFooter, Line, ScoreCardView, colour_legend

if TYPE_CHECKING:
    from fivedice.tui.app import FiveDiceApp

__all__ = ["Board", "option_order"]


def option_order(state: GameState) -> list[tuple[tuple[int, str], int]]:
    """The legal ``(card, box)`` and their points in the order the highlight visits them: boxes in
    card order, then cards."""
    return sorted(state.options().items(), key=lambda kv: (state.rules.box_index(kv[0][1]), kv[0][0]))


class Board(Screen[None]):
    """The view of a game at a table: what it shows, as reactive attributes, and the watchers that draw it."""

    DEFAULT_CSS = """
    Board #main { height: 1fr; }
    Board #card-scroll { width: auto; height: 100%; overflow: auto auto; scrollbar-size: 1 1; }
    Board #side { width: 1fr; padding: 0 0 0 1; }
    Board #turn { height: 1; text-wrap: nowrap; text-overflow: ellipsis; }
    Board #roll { height: 1; color: $accent; text-style: bold; text-wrap: nowrap; text-overflow: ellipsis; }
    Board #colours { height: 1; color: $foreground 70%; text-wrap: nowrap; text-overflow: ellipsis; }
    Board #keys { height: 1; color: $foreground 75%; text-wrap: nowrap; text-overflow: ellipsis; }
    Board #events { height: 3; color: $foreground 85%; text-wrap: nowrap; text-overflow: ellipsis; }
    Board #status { height: auto; color: $warning; }
    Board #panel { height: 1fr; }
    Board #too-small { height: auto; color: $warning; text-style: bold; }
    Board.-close Die { margin-right: 0; }
    """
    # What the screen shows, as reactive attributes: :meth:`sync` sets them from the table after every change,
    # and each one's watcher draws again only the widgets that show it (see the ``watch_`` methods).
    shown: var[GameState | None] = var(None, init=False)
    """The table's state shown."""
    held: var[frozenset[int]] = var(frozenset(), init=False)
    """The dice set aside for the next roll (the session's :attr:`kept`)."""
    cursor: var[tuple[int, str] | None] = var(None, init=False)
    """The box highlighted for Enter: ``(card, box)``."""
    pending: var[tuple[Action, GameState] | None] = var(None, init=False)
    """A computer's roll shown (the dice it keeps) a moment before it is made."""
    best: var[int | None] = var(None, init=False)
    """The solo player's best total under these rules, to beat."""
    goal: var[tuple[int, str] | None] = var(None, init=False)
    """A solo challenge's goal: the benchmark's total on the same dice, and its level."""
    advice: var[tuple[GameState, Advice] | None] = var(None, init=False)
    """The hint shown, with the state it is for."""
    recent: var[tuple[Event, ...]] = var((), init=False)
    """The last three events of the table."""
    status_text: var[str] = var("", init=False)
    """The status line: a refusal, or a note."""
    panel_text: var[str] = var("", init=False)
    """The panel: a hint, the computer's reasoning, or what is being prepared."""

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.table = session.table
        self.events: deque[Event] = deque(self.table.events[-3:], maxlen=3)
        """The last three events (all the screen shows)."""
        self.status: Callable[[], str] = str
        self.panel: Callable[[], str] = str
        self._cursor_moves = -1
        self.table.listen(self._on_event)

    @property
    def kept(self) -> set[int]:
        """The dice set aside for the next roll (0-based): the session's, so a save keeps them."""
        return self.session.kept

    @kept.setter
    def kept(self, positions: set[int]) -> None:
        self.session.kept = positions

    if TYPE_CHECKING:
        app: FiveDiceApp  # the app it runs in, typed (its settings, config and store)

    def compose(self) -> ComposeResult:
        """Score cards on the left; dice, turn, events and hints on the right."""
        state = self.table.state
        with Horizontal(id="main"):
            with ScrollableContainer(id="card-scroll"):
                yield ScoreCardView(state, room=fit(state, *self.app.size).room, id="card")
            with Vertical(id="side"):
                too_small = Static("", id="too-small")
                too_small.display = False
                yield too_small
                yield Line(id="turn")
                yield Line(id="roll")
                yield DiceBar(state.rules)
                legend = Line(id="colours")
                legend.display = colour_legend(state.rules) is not None
                yield legend
                yield Line(id="keys")
                yield Line(id="status")
                yield Line(id="events")
                yield Line(id="panel")
        yield I18nFooter()

    def on_unmount(self) -> None:
        """The screen goes away: it no longer hears the table."""
        self.table.unlisten(self._on_event)

    # -- what the table tells ------------------------------------------------------------------
    def _on_event(self, event: Event) -> None:
        """Note an event; undo and redo say in the status line what they took back or replayed."""
        self.events.append(event)
        if isinstance(event, ScoreUndone | RollUndone | ScoreRedone | RollRedone):
            rules = self.table.rules
            self.status = lambda: narrate(event, rules)
        elif isinstance(event, Scored):
            self.kept = set()

    # -- drawing -------------------------------------------------------------------------------
    def _keys_text(self) -> str:
        return keys_text(self.table, self.kept, self.pending[0] if self.pending is not None else None)

    def _best_text(self) -> str:
        total = self.table.state.total(0)
        if self.goal is not None:
            goal, level = self.goal
            return _("Goal: beat {total} ({level} on these dice)", total=goal, level=level)
        if self.best is None:
            return ""
        if total > self.best:
            return _("New best: {total} (was {best})", total=total, best=self.best)
        return _("Beat your best: {best}", best=self.best)

    def _hint(self) -> Action | None:
        """The move of the hint shown, while its state is the table's."""
        if self.advice is None or self.advice[0] is not self.table.state or not self.advice[1].options:
            return None
        return self.advice[1].best.action

    def _hinted_dice(self) -> set[int]:
        """The dice the hint shown keeps."""
        best = self._hint()
        return set(best.held) if isinstance(best, Roll) else set()

    def _hinted_box(self) -> tuple[int, str] | None:
        """The box the hint shown scores: ``(card, box)``."""
        best = self._hint()
        return (best.card, best.box) if isinstance(best, Score) else None

    def sync(self) -> None:
        """Bring the screen's reactive attributes up to date with the table and the screen's own notes; their
        watchers draw again only the widgets whose content changed (attributes down)."""
        table = self.table
        state = table.state
        options = option_order(state)
        keys = [k for k, _points in options]
        moves = len(table.game.log)
        hinted_box = self._hinted_box()
        cursor = self.cursor
        if not table.human_to_move or not keys:
            cursor = None
        elif hinted_box is not None and self._cursor_moves != moves:
            cursor = hinted_box
        elif cursor not in keys or self._cursor_moves != moves:
            cursor = max(options, key=lambda kv: kv[1])[0]  # new dice: start on the most points
        self._cursor_moves = moves
        self.cursor = cursor
        self.shown = state
        self.held = frozenset(self.kept)
        self.recent = tuple(self.events)
        self.status_text = self.status()
        self.panel_text = self.panel()

    # Each watcher draws the widgets that show its attribute.
    def watch_shown(self) -> None:
        """A new state: the turn, the roll, the dice, the keys and the cards."""
        self._show_turn()
        self._show_dice()
        self._show_keys()
        self._show_card()
        self._follow_current()

    def watch_held(self) -> None:
        """Dice set aside or released: the dice and the keys."""
        self._show_dice()
        self._show_keys()

    def watch_cursor(self) -> None:
        """The highlighted box moved: the cards."""
        self._show_card()

    def watch_pending(self) -> None:
        """A computer's keep shown, or made: the keys."""
        self._show_keys()

    def watch_best(self) -> None:
        """The solo player's best was found: the roll line shows it."""
        self._show_turn()

    def watch_goal(self) -> None:
        """A challenge's goal was found: the roll line shows it."""
        self._show_turn()

    def watch_advice(self) -> None:
        """A hint shown or cleared: the dice it keeps are lit."""
        self._show_dice()

    def watch_recent(self, recent: tuple[Event, ...]) -> None:
        """New events: the last three, narrated."""
        rules = self.table.rules
        self.query_one("#events", Line).text = "\n".join(escape(narrate(e, rules)) for e in recent)

    def watch_status_text(self, text: str) -> None:
        """The status line."""
        self.query_one("#status", Line).text = escape(text)

    def watch_panel_text(self, text: str) -> None:
        """The hint or reasoning panel."""
        self.query_one("#panel", Line).text = text

    def _show_turn(self) -> None:
        turn, roll = turn_text(self.table)
        self.query_one("#turn", Line).text = turn
        best = self._best_text()
        self.query_one("#roll", Line).text = roll + (f"   [not bold $fd-muted]{escape(best)}[/]" if best else "")

    def _show_dice(self) -> None:
        self.query_one(DiceBar).show(self.table.state.dice, self.kept, self._hinted_dice())

    def _show_keys(self) -> None:
        self.query_one("#keys", Line).text = escape(self._keys_text())

    def _show_card(self) -> None:
        self.query_one(ScoreCardView).show(self.table.state, self.cursor)

    def _show_all(self) -> None:
        """Every widget's content worked out again (after a change of language): the ones that changed draw."""
        legend = colour_legend(self.table.rules)
        if legend is not None:
            self.query_one("#colours", Line).text = escape(legend)
        self.watch_shown()
        self.watch_recent(self.recent)
        self.sync()

    def relabel(self) -> None:
        """Show everything again in the current language (after a switch); the game is untouched."""
        self._show_all()
        self.refresh_bindings()  # the footer writes its keys again

    def _follow_current(self) -> None:
        """Keep the columns of the player to move in view when the cards are wider than their space."""
        scroll = self.query_one("#card-scroll", ScrollableContainer)
        state = self.table.state
        cards = len(state.rules.cards)
        label_width, cell_width = self.query_one(ScoreCardView).widths
        left = cell_width * cards * state.current
        width = scroll.size.width - label_width
        if width <= 0:
            return
        if left < scroll.scroll_x or left + cell_width * cards > scroll.scroll_x + width:
            scroll.scroll_to(x=left, animate=False)

    def on_resize(self) -> None:
        """Leave the dice their room, narrowing the cards (they scroll if they need more) or closing the
        gaps between the dice; say so when the terminal is too small even then (see :mod:`.layout`)."""
        layout = fit(self.table.state, *self.size)
        self.set_class(layout.close, "-close")
        self.query_one("#card-scroll", ScrollableContainer).styles.max_width = layout.room
        self.query_one(ScoreCardView).fit(layout.room)
        small = self.query_one("#too-small", Static)
        small.display = layout.too_small is not None
        small.update(layout.too_small or "")

    def say(self, status: str | Callable[[], str]) -> None:
        """Show a message (an error or a note) in the status line."""
        self.status = status if callable(status) else lambda: status
        self.sync()
