"""The game screen: a view over a :class:`~fivedice.table.Table`.

The table rolls (from its dice tape), decides what undo may take back, plays the computers and tells
what happened; this screen shows its state and events (its :class:`~fivedice.tui.board.Board`, drawn through
reactive attributes), passes on the player's keys, paces the roll-off and the computers' turns (the table's
driver, run as a worker), and asks the advisor in a worker.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import ClassVar

from textual import work
from textual.binding import Binding, BindingType
from textual.markup import escape
from textual.timer import Timer
from textual.worker import Worker

from fivedice.engine import saves
from fivedice.engine.actions import Action, Roll, Score
from fivedice.engine.state import GameState
from fivedice.errors import FiveDiceError
from fivedice.i18n import N_, _, format_decimal
from fivedice.players import SOLVER_LEVELS
from fivedice.services import chancejobs
from fivedice.services.advice import Advice, describe_action, preparing
from fivedice.table import Table
from fivedice.table.challenge import NO_HINTS, AimKind, aim_for, aim_kind
from fivedice.table.driver import Driver
from fivedice.table.steps import GameOver, HumanTurn, Move, Prepare, Step, Think
from fivedice.tui.board import Board, option_order
from fivedice.tui.dialogs import DiceEntry, format_advice
from fivedice.tui.help import HELP, HelpScreen
from fivedice.tui.session import Session
from fivedice.tui.widgets import CardLine, Die, ScoreCardView

__all__ = ["HELP", "DiceEntry", "GameScreen", "HelpScreen", "format_advice"]

PACES = (0.0, 0.15, 0.3, 0.5, 0.8, 1.2, 2.0)


class GameScreen(Board):
    """A game in progress. Every rule is the table's; this screen reads states and sends intents."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(str(n), f"keep({n - 1})", N_("Keep"), show=False) for n in range(1, 10)),
        Binding("space,r", "roll", N_("Roll")),
        Binding("up,k", "cursor(-1)", N_("Box up"), show=False),
        Binding("down,j", "cursor(1)", N_("Box down"), show=False),
        Binding("enter", "score", N_("Score")),
        Binding("u", "undo", N_("Undo")),
        Binding("ctrl+r", "redo", N_("Redo"), show=False),
        Binding("h", "hint", N_("Hint")),
        Binding("a", "apply_hint", N_("Apply hint"), show=False),
        Binding("c", "toggle_reasoning", N_("Reasoning"), show=False),
        Binding("plus,equals_sign", "pace(-1)", N_("Faster"), show=False),
        Binding("minus", "pace(1)", N_("Slower"), show=False),
        Binding("s", "save", N_("Save"), show=False),
        Binding("q", "save_quit", N_("Save+quit")),
        Binding("question_mark,f1", "help", N_("Help")),
    ]

    def __init__(self, session: Session) -> None:
        super().__init__(session)
        self.chance_timer: Timer | None = None
        self.driving: Worker[None] | None = None

    def on_mount(self) -> None:
        """Look up the solo player's best (and a challenge's goal), draw, and let the table play on."""
        table = self.table
        store = self.app.store
        table.chances = bool(self.app.settings.get("chances", True))
        kind = aim_kind(table)
        if kind is not None and store is not None:
            try:
                self.best = store.best(table.seats[0].name, table.rules)
            except FiveDiceError:
                self.best = None
            if kind is AimKind.BEST:
                table.goal = self.best  # hints then carry the chance of beating it
        if kind is AimKind.BENCHMARK:
            self._goal_worker()
        if table.challenge is not None:
            self.status = lambda: _(NO_HINTS)  # the board says so from the start
        self._show_all()
        self.schedule()

    # -- pacing ---------------------------------------------------------------------------------
    @property
    def pace(self) -> float:
        """Seconds between computer actions."""
        return float(self.app.settings.get("pace", 0.8))

    # -- doing ---------------------------------------------------------------------------------
    def act(self, change: Callable[[], object]) -> bool:
        """Make a change through the table; show its one-sentence refusal, or the new state."""
        self.status = str
        try:
            change()
        except FiveDiceError as exc:
            self.say(str(exc))
            return False
        if self.table.is_over:
            self._finish()
            return True
        self.sync()
        self.schedule()
        return True

    def _finish(self) -> None:
        self.cancel_computer()
        self.app.show_end(self.session)

    # -- human actions ---------------------------------------------------------------------------
    def _human(self) -> bool:
        table = self.table
        if table.is_over:
            return False
        if not table.human_to_move:
            if table.automatic() is not None:
                self.say(_("Please wait: the roll-off decides who starts."))
            else:
                self.say(_("Please wait: the computer is playing."))
            return False
        return True

    def _human_acts(self) -> None:
        """A human decision clears their hint panel."""
        self.panel = str
        self.advice = None

    def action_keep(self, index: int) -> None:
        """Keep or release die ``index``."""
        state = self.table.state
        if not self._human() or index >= state.rules.dice:
            return
        if state.dice is None:
            self.say(_("Roll first; then choose the dice to keep."))
            return
        if state.rolls_left == 0:
            self.say(_("That was the last roll: score a box."))
            return
        self.kept ^= {index}
        self.status = str
        self.sync()

    def on_die_toggled(self, message: Die.Toggled) -> None:
        """A click on a die."""
        self.action_keep(message.index)

    def action_roll(self) -> None:
        """Roll the dice not kept (asking for the faces of dice never seen, with physical dice)."""
        if not self._human():
            return
        table = self.table
        held = tuple(sorted(self.kept)) if table.state.dice is not None else ()
        try:
            table.verify_roll(held)
        except FiveDiceError as exc:
            self.say(str(exc))
            return
        count = table.dice_needed(held) if self.app.config.physical else 0
        if not count:
            self._human_acts()
            self.act(lambda: table.roll(held))
            return

        def entered(values: tuple[int, ...] | None) -> None:
            if values is not None:
                self._human_acts()
                self.act(lambda: table.roll(held, values))

        self.app.push_screen(DiceEntry(count), entered)

    def action_cursor(self, step: int) -> None:
        """Move the highlight to the previous or next open box."""
        state = self.table.state
        keys = [k for k, _points in option_order(state)]
        if not keys or not self.table.human_to_move:
            return
        i = keys.index(self.cursor) if self.cursor in keys else 0
        self.cursor = keys[(i + step) % len(keys)]
        self.sync()

    def score(self, box: str, card: int) -> None:
        """Fill ``box`` on ``card`` (the table explains a refusal)."""
        self._human_acts()
        self.act(lambda: self.table.score(box, card))

    def action_score(self) -> None:
        """Score the highlighted box."""
        if not self._human():
            return
        if self.cursor is None:
            self.say(_("Roll first: there are no dice to score."))
            return
        card, box = self.cursor
        self.score(box, card)

    def on_card_line_clicked(self, message: CardLine.Clicked) -> None:
        """A click on a box: score it on the clicked card (or the first card where it is open)."""
        if not self._human():
            return
        state = self.table.state
        box = state.rules.boxes[message.box].name
        cards = [k for (k, b) in state.options() if b == box]
        where = self.query_one(ScoreCardView).column_seat_card(message.column)
        if where is not None and where[0] == state.current and where[1] in cards:
            cards = [where[1]]
        if not cards:
            self.score(box, where[1] if where is not None and where[0] == state.current else 0)
            return
        self.cursor = (cards[0], box)
        self.score(box, cards[0])

    def action_undo(self) -> None:
        """Take back the last decision the table allows (its refusal otherwise); the status says what."""
        self.cancel_computer()
        table = self.table
        reason = table.why_not_undo()
        if reason is not None:
            self.say(reason)
            self.schedule()
            return
        self._human_acts()
        self.status = str
        undone = table.undo()
        decision = undone[-1]
        self.kept = set(decision.held) if isinstance(decision, Roll) and table.state.dice is not None else set()
        self.sync()
        self.schedule()

    def action_redo(self) -> None:
        """Replay what was undone, with the dice it had."""
        self.cancel_computer()
        table = self.table
        reason = table.why_not_redo()
        if reason is not None:
            self.say(reason)
            self.schedule()
            return
        self._human_acts()
        self.kept = set()
        self.act(table.redo)

    def action_apply_hint(self) -> None:
        """Carry out the top option of the hint shown: keep its dice (by position) and roll, or score its box."""
        if not self._human():
            return
        if self.advice is None or self.advice[0] is not self.table.state or not self.advice[1].options:
            self.say(_("Ask for a hint first (h)."))
            return
        best = self.advice[1].best.action
        if isinstance(best, Score):
            self.score(best.box, best.card)
            return
        assert isinstance(best, Roll)
        self.kept = set(best.held)
        self.action_roll()

    def action_save(self) -> None:
        """Save the game; it can be resumed from the start screen or with ``--load``."""
        try:
            saved = self.session.save(self.app.save_path(self.session))
        except FiveDiceError as exc:
            self.say(str(exc))
            return
        self.say(_("Saved to {path}", path=str(saved)))

    def action_save_quit(self) -> None:
        """Save and leave, saying where the game is and how to resume it."""
        self.cancel_computer()
        self.action_save()
        path = self.session.save_path
        if path is not None:
            self.app.farewell = _(
                "Saved to {path}. Resume it from the start screen (Resume), or: {command}",
                path=str(path),
                command=saves.resume_command(path),
            )
            self.app.exit(0)

    def action_help(self) -> None:
        """Show the keys."""
        self.app.push_screen(HelpScreen())

    def action_toggle_reasoning(self) -> None:
        """Show or hide the computer's reasoning."""
        on = not self.app.settings.get("reasoning", False)
        self.app.save_setting("reasoning", on)
        self.say(_("Computer reasoning shown.") if on else _("Computer reasoning hidden."))

    def action_pace(self, step: int) -> None:
        """Make the computer faster (-1) or slower (+1)."""
        now = min(PACES, key=lambda p: abs(p - self.pace))
        new = PACES[max(0, min(len(PACES) - 1, PACES.index(now) + step))]
        self.app.save_setting("pace", new)
        self.say(_("Computer pace: {seconds} s a move.", seconds=format_decimal(new, 2)))

    # -- hints -----------------------------------------------------------------------------------
    def action_hint(self) -> None:
        """Ask the advisor, in a worker so the screen never freezes."""
        if not self._human():
            return
        state = self.table.state
        if self.table.challenge is not None:
            self.say(lambda: _(NO_HINTS))
            return
        if state.dice is None:
            self.say(_("Roll first: hints are for the dice showing."))
            return
        self.panel = lambda: "[dim]" + _("Thinking…") + "[/]"
        self.sync()
        self._hint_worker(state)

    def _note(self, state: GameState, note: str) -> None:
        """Show a worker's note on what it waits for (while the state is still the one it works on)."""
        if state is self.table.state:
            self.panel = lambda: f"[dim]{escape(note)}[/]"
            self.sync()

    @work(thread=True, exclusive=True, group="hint")
    def _hint_worker(self, state: GameState, again: bool = False) -> None:
        result: Advice | str
        try:
            note = preparing(state.rules)
            if note is not None:
                self.app.call_from_thread(self._note, state, note)
            result = self.table.advice(state)
        except FiveDiceError as exc:
            result = str(exc)
        except Exception as exc:  # a failing advisor must not end the game
            result = _("The advisor failed: {error}: {message}", error=type(exc).__name__, message=str(exc))
        self.app.call_from_thread(self._show_hint, state, result, again)

    def _show_hint(self, state: GameState, result: Advice | str, again: bool = False) -> None:
        """Show the advice (noted as a hint used, unless ``again`` refreshes one shown with its chances)."""
        if state is not self.table.state:
            return
        if isinstance(result, str):
            text = result
            self.panel = lambda: f"[dim]{escape(text)}[/]"
        else:
            if not again:
                self.table.hint(result)
            self.advice = (state, result)
            rules = state.rules
            self.panel = lambda: (
                "[b]"
                + _("Hint")
                + "[/b] [dim]"
                + _("a: apply the top one")
                + "[/]\n"
                + format_advice(result, rules)
                + self._chances_line()
            )
            if self.table.chances_note() is not None and self.chance_timer is None:
                self.chance_timer = self.set_interval(1.0, self._chances_tick)
        self.sync()

    def _chances_line(self) -> str:
        note = self.table.chances_note()
        return "" if note is None else f"\n[dim]{escape(note)}[/]"

    def _chances_tick(self) -> None:
        """While the hints' chances are prepared: refresh the note, and the hint shown once they are ready."""
        shown = self.advice
        if shown is None or shown[0] is not self.table.state:
            self._stop_chances()
            return
        if self.table.chances_note() is None:
            self._stop_chances()
            self._hint_worker(shown[0], True)
        else:
            self.sync()

    def _stop_chances(self) -> None:
        if self.chance_timer is not None:
            self.chance_timer.stop()
        self.chance_timer = None

    @work(thread=True, exclusive=True, group="goal")
    def _goal_worker(self) -> None:
        try:
            aim = aim_for(self.table)
        except Exception:  # the goal is a nicety: the game goes on without it
            return
        if aim is not None and aim.level is not None:
            self.app.call_from_thread(self._show_goal, aim.total, aim.level)

    def _show_goal(self, goal: int, level: str) -> None:
        self.table.goal = goal
        if self.is_attached:
            self.goal = (goal, level)

    # -- the roll-off and computer turns: the table's driver, run as a worker ------------------------
    def cancel_computer(self) -> None:
        """Stop the driver (a computer move in preparation is dropped)."""
        self.workers.cancel_group(self, "driver")
        self.driving = None
        self.pending = None

    def schedule(self) -> None:
        """If the table or a computer is to act, run the driver (paced) until a human is to act."""
        table = self.table
        if (self.driving is not None and self.driving.is_running) or table.is_over:
            return
        if isinstance(table.next_step(), HumanTurn):
            return
        self.driving = self._drive()

    @work(exclusive=True, group="driver")
    async def _drive(self) -> None:
        try:
            step = await _ScreenDriver(self).run()
        except Exception as exc:  # a failing computer player must not end the game
            error = str(exc) if isinstance(exc, FiveDiceError) else f"{type(exc).__name__}: {exc}"
            self.pending = None
            self.say(_("The computer player failed: {error} Save with s; undo with u.", error=error))
            return
        finally:
            self.driving = None
        if isinstance(step, GameOver):
            self.app.show_end(self.session)


class _ScreenDriver(Driver):
    """The game screen's driver: each step after the pace delay, a computer's keep shown before it rolls,
    its reasoning in the panel (with the reasoning setting), what it waits for in the panel."""

    def __init__(self, screen: GameScreen) -> None:
        super().__init__(screen.table)
        self.screen = screen
        self.advice: Advice | None = None

    async def pace(self, step: Step) -> None:
        """The pace delay before each automatic or computer action."""
        if not isinstance(step, Prepare):
            await asyncio.sleep(max(self.screen.pace, 0.001))

    async def prepare(self, step: Prepare) -> None:
        """Show what the computer waits for until it is ready."""
        while not step.job.done.is_set():
            self.screen._note(step.state, chancejobs.describe(step.job))
            await asyncio.to_thread(step.job.done.wait, 0.5)

    async def think(self, table: Table, step: Think) -> Action:
        """Choose in a worker thread (noting a solver being prepared), with the reasoning when it is shown."""
        screen = self.screen
        reasoning = bool(screen.app.settings.get("reasoning")) and step.state.dice is not None
        level = table.seat(step.seat).level or "greedy"
        note = preparing(step.state.rules) if level in SOLVER_LEVELS else None
        if note is not None:
            screen._note(step.state, note)
        intent = await super().think(table, step)
        self.advice = None
        if reasoning:
            try:
                self.advice = await asyncio.to_thread(table.advice, step.state)
            except Exception:  # reasoning is a nicety: the move goes on without it
                self.advice = None
        return intent

    async def chosen(self, move: Move) -> None:
        """Show the reasoning, and the dice a computer keeps for a moment before they roll."""
        screen, state, intent, advice = self.screen, move.state, move.action, self.advice
        name, rules, dice = escape(state.players[state.current]), state.rules, state.dice
        if advice is not None:
            screen.panel = lambda: (
                _(
                    "[b]{name} weighs[/b] (chose: {action})",
                    name=name,
                    action=escape(describe_action(rules, intent, dice)),
                )
                + "\n"
                + format_advice(advice, rules)
            )
        else:
            screen.panel = str
        if isinstance(intent, Roll) and intent.held and screen.pace > 0:
            screen.kept = set(intent.held)
            screen.pending = (intent, state)
            screen.sync()
            await asyncio.sleep(screen.pace)
            screen.pending = None

    async def commit(self, table: Table, move: Move) -> None:
        """Carry out the move and show the new state (a stale one is dropped: the next step is read again)."""
        self.screen.kept = set()
        self.screen.status = str
        try:
            table.commit(move)
        finally:
            self.screen.sync()
