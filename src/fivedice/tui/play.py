"""The game screen: large dice, the score cards side by side, computer turns, hints, undo and saving."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, ScrollableContainer, Vertical
from textual.markup import escape
from textual.screen import ModalScreen, Screen
from textual.timer import Timer
from textual.widgets import Input, Static

from fivedice.actions import Action, Roll, RollOff, Score
from fivedice.dice import parse_dice
from fivedice.errors import FiveDiceError
from fivedice.i18n import N_, _, box_label, format_decimal
from fivedice.state import Phase
from fivedice.tui.session import HintLine, Session, describe_action, greedy_reasoning
from fivedice.tui.widgets import CardLine, DiceBar, Die, I18nFooter, ScoreCardView

if TYPE_CHECKING:
    from fivedice.tui.app import FiveDiceApp

__all__ = ["HELP", "DiceEntry", "GameScreen", "HelpScreen"]

HELP = N_("""[b]Keys[/b]

  [b]1[/b]-[b]5[/b]         keep or release a die (or click it)
  [b]Space[/b] [b]r[/b]     roll the dice not kept
  [b]↑[/b] [b]↓[/b] [b]j[/b] [b]k[/b]     move between the boxes open to you
  [b]Enter[/b]       score the highlighted box (or click a box)
  [b]u[/b]           undo (also takes back the computer's moves since)
  [b]Ctrl+R[/b]      redo
  [b]h[/b]           hint: the advisor's ranked options, values and losses
  [b]c[/b]           show or hide the computer's reasoning
  [b]+[/b] [b]-[/b]         computer pace faster / slower
  [b]s[/b]           save;  [b]q[/b] save and quit (resume from the start screen)
  [b]t[/b]           dark or light theme
  [b]l[/b]           next language (the game goes on; the choice is remembered)
  [b]?[/b] [b]F1[/b]        this help

Points in (brackets): what the dice showing score in each box you may
fill now, by the engine's rules (Joker, fill order). Press any key.""")

PACES = (0.0, 0.15, 0.3, 0.5, 0.8, 1.2, 2.0)


class HelpScreen(ModalScreen[None]):
    """The keys, over the game."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Static { width: 80; max-width: 100%; height: auto; border: round $accent; padding: 0 1;
                          background: $surface; }
    """

    def compose(self) -> ComposeResult:
        """The help text."""
        yield Static(_(HELP))

    def on_key(self) -> None:
        """Any key closes the help."""
        self.dismiss()

    def on_click(self) -> None:
        """A click closes the help."""
        self.dismiss()


class DiceEntry(ModalScreen[tuple[int, ...] | None]):
    """Asks for the faces of the dice rolled at a real table (``--physical``)."""

    DEFAULT_CSS = """
    DiceEntry { align: center middle; }
    DiceEntry > Vertical { width: 50; height: auto; border: round $accent; padding: 0 1; background: $surface; }
    DiceEntry #entry-error { color: $error; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", N_("Cancel"))]

    def __init__(self, count: int) -> None:
        super().__init__()
        self.count = count

    def compose(self) -> ComposeResult:
        """A prompt, an input and an error line."""
        with Vertical():
            example = " ".join("35126"[: self.count])
            yield Static(_("Type the {n} dice rolled, e.g. {example}:", n=self.count, example=example))
            yield Input(compact=True, id="entry")
            yield Static("", id="entry-error")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Check the dice and return them."""
        try:
            self.dismiss(parse_dice(event.value, self.count).values)
        except FiveDiceError as exc:
            self.query_one("#entry-error", Static).update(escape(str(exc)))

    def action_cancel(self) -> None:
        """Roll nothing."""
        self.dismiss(None)


class GameScreen(Screen[None]):
    """A game in progress. Every rule is the engine's; this screen reads states and sends intents."""

    DEFAULT_CSS = """
    GameScreen #main { height: 1fr; }
    GameScreen #card-scroll { width: auto; height: 100%; overflow: auto auto; scrollbar-size: 1 1; }
    GameScreen #side { width: 1fr; padding: 0 0 0 1; }
    GameScreen #turn { height: 1; }
    GameScreen #roll { height: 1; color: $accent; text-style: bold; }
    GameScreen #keys { height: 1; color: $foreground 60%; }
    GameScreen #events { height: 3; color: $foreground 85%; }
    GameScreen #status { height: 1; color: $warning; }
    GameScreen #panel { height: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(str(n), f"keep({n - 1})", N_("Keep"), show=False) for n in range(1, 10)),
        Binding("space,r", "roll", N_("Roll")),
        Binding("up,k", "cursor(-1)", N_("Box up"), show=False),
        Binding("down,j", "cursor(1)", N_("Box down"), show=False),
        Binding("enter", "score", N_("Score")),
        Binding("u", "undo", N_("Undo")),
        Binding("ctrl+r", "redo", N_("Redo"), show=False),
        Binding("h", "hint", N_("Hint")),
        Binding("c", "toggle_reasoning", N_("Reasoning"), show=False),
        Binding("plus,equals_sign", "pace(-1)", N_("Faster"), show=False),
        Binding("minus", "pace(1)", N_("Slower"), show=False),
        Binding("s", "save", N_("Save"), show=False),
        Binding("q", "save_quit", N_("Save+quit")),
        Binding("question_mark,f1", "help", N_("Help")),
    ]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.kept: set[int] = set()
        self.cursor: tuple[int, str] | None = None
        self.events: list[Callable[[], str]] = []
        self.status = ""
        self.panel: Callable[[], str] = str
        self.timer: Timer | None = None
        self.pending: Action | None = None
        self.thinking = False
        self.best: int | None = None
        self._cursor_moves = -1

    @property
    def fd_app(self) -> FiveDiceApp:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        """Score cards on the left; dice, turn, events and hints on the right."""
        state = self.session.state
        with Horizontal(id="main"):
            with ScrollableContainer(id="card-scroll"):
                yield ScoreCardView(state, room=max(24, self.app.size.width - 42), id="card")
            with Vertical(id="side"):
                yield Static("", id="turn")
                yield Static("", id="roll")
                yield DiceBar(state.rules.dice)
                yield Static("", id="keys")
                yield Static("", id="status")
                yield Static("", id="events")
                yield Static("", id="panel")
        yield I18nFooter()

    def on_mount(self) -> None:
        """Look up the solo player's best, draw, and let a computer start if it is its turn."""
        session = self.session
        store = self.fd_app.store
        if len(session.seats) == 1 and not session.seats[0].is_computer and store is not None:
            try:
                self.best = store.best(session.seats[0].name, session.game.rules)
            except FiveDiceError:
                self.best = None
        self.redraw()
        self.schedule()

    # -- drawing -------------------------------------------------------------------------------
    @property
    def pace(self) -> float:
        """Seconds between computer actions."""
        return float(self.fd_app.settings.get("pace", 0.8))

    def _turn_text(self) -> tuple[str, str]:
        state = self.session.state
        rules = state.rules
        if state.phase is Phase.ROLLOFF:
            return _("[b]{rules}[/b] · roll-off to decide who starts", rules=rules.title), ""
        name = escape(state.players[state.current])
        who = _("[b]{name}[/b] (computer)", name=name) if self.session.is_computer(state.current) else f"[b]{name}[/b]"
        turn = _(
            "[b]{rules}[/b] · round {round}/{rounds} · {player} to play",
            rules=rules.title,
            round=state.round,
            rounds=rules.rounds,
            player=who,
        )
        if state.rolls == 0:
            roll = _("Roll 1 of {rolls} next", rolls=rules.rolls)
        elif state.rolls_left == 0:
            roll = _("Roll {roll} of {rolls} · score a box", roll=state.rolls, rolls=rules.rolls)
        else:
            roll = _("Roll {roll} of {rolls}", roll=state.rolls, rolls=rules.rolls)
        return turn, roll

    def _keys_text(self) -> str:
        state = self.session.state
        faces = " ".join(str(state.dice[p]) for p in sorted(self.kept)) if state.dice is not None else ""
        if self.session.computer_to_move:
            if faces:
                return _("Computer keeps {dice} · +/- pace · c reasoning · u undo", dice=faces)
            return _("Computer playing · +/- pace · c reasoning · u undo")
        if state.dice is None:
            return _("Space: roll · ? help")
        if faces:
            return _("Keeping {dice} · Space rolls the other {n}", dice=faces, n=state.rules.dice - len(self.kept))
        return _("1-{n} keep · Space roll · ↑↓ Enter score", n=state.rules.dice)

    def _best_text(self) -> str:
        if self.best is None:
            return ""
        total = self.session.state.total(0)
        if total > self.best:
            return _("New best: {total} (was {best})", total=total, best=self.best)
        return _("Beat your best: {best}", best=self.best)

    def redraw(self) -> None:
        """Show the current state."""
        session = self.session
        state = session.state
        options = sorted(state.options().items(), key=lambda kv: (state.rules.box_index(kv[0][1]), kv[0][0]))
        keys = [k for k, _points in options]
        moves = len(session.game.log)
        if session.computer_to_move or not keys:
            self.cursor = None
        elif self.cursor not in keys or self._cursor_moves != moves:
            self.cursor = max(options, key=lambda kv: kv[1])[0]  # new dice: start on the most points
        self._cursor_moves = moves
        turn, roll = self._turn_text()
        self.query_one("#turn", Static).update(turn)
        best = self._best_text()
        self.query_one("#roll", Static).update(roll + (f"   [dim]{best}[/]" if best else ""))
        self.query_one(DiceBar).show(state.dice, self.kept)
        self.query_one("#keys", Static).update(self._keys_text())
        self.query_one("#status", Static).update(escape(self.status))
        self.query_one("#events", Static).update("\n".join(escape(e()) for e in self.events[-3:]))
        self.query_one("#panel", Static).update(self.panel())
        self.query_one(ScoreCardView).show(state, self.cursor)
        self._follow_current()

    def relabel(self) -> None:
        """Show everything again in the current language (after a switch); the game is untouched."""
        self.status = ""
        self.redraw()
        self.refresh_bindings()  # the footer writes its keys again

    def _follow_current(self) -> None:
        """Keep the columns of the player to move in view when the cards are wider than their space."""
        scroll = self.query_one("#card-scroll", ScrollableContainer)
        state = self.session.state
        cards = len(state.rules.cards)
        label_width, cell_width = self.query_one(ScoreCardView).widths
        left = cell_width * cards * state.current
        width = scroll.size.width - label_width
        if width <= 0:
            return
        if left < scroll.scroll_x or left + cell_width * cards > scroll.scroll_x + width:
            scroll.scroll_to(x=left, animate=False)

    def on_resize(self) -> None:
        """Leave the dice their room; the cards scroll sideways if they need more."""
        self.query_one("#card-scroll", ScrollableContainer).styles.max_width = max(24, self.size.width - 42)

    def say(self, status: str) -> None:
        """Show a one-line message (an error or a note)."""
        self.status = status
        self.redraw()

    # -- doing -------------------------------------------------------------------------------------
    def _event(self, record: Action, seat: int) -> Callable[[], str]:
        """The line telling what happened, written when shown (so it follows the language)."""
        state = self.session.state
        name = state.players[seat]
        starter = state.players[state.starter] if state.phase is Phase.PLAY and state.starter is not None else None
        rules = state.rules

        def text() -> str:
            if isinstance(record, RollOff):
                dice = record.dice or ()
                faces = " ".join(map(str, dice))
                if starter is not None:
                    return _(
                        "{name} rolls off {dice} ({sum}); {starter} starts",
                        name=name,
                        dice=faces,
                        sum=sum(dice),
                        starter=starter,
                    )
                return _("{name} rolls off {dice} ({sum})", name=name, dice=faces, sum=sum(dice))
            if isinstance(record, Roll):
                faces = " ".join(map(str, record.dice or ()))
                if record.held:
                    return _("{name} rolls {dice}, keeping {n}", name=name, dice=faces, n=len(record.held))
                return _("{name} rolls {dice}", name=name, dice=faces)
            assert isinstance(record, Score)
            return _("{name}: {points} in {box}", name=name, points=record.points, box=box_label(rules.box(record.box)))

        return text

    def play(self, action: Action) -> bool:
        """Carry out an intent for whoever is to move; show the engine's reason if it is illegal."""
        session = self.session
        seat = session.state.current
        try:
            record = session.game.play(action)
        except FiveDiceError as exc:
            self.say(str(exc))
            return False
        self.status = ""
        self.events.append(self._event(record, seat))
        if isinstance(record, Score):
            self.kept.clear()
        if not session.is_computer(seat):
            self.panel = str
        if session.state.is_over:
            self._finish()
            return True
        self.redraw()
        self.schedule()
        return True

    def _finish(self) -> None:
        from fivedice.tui.end import EndScreen

        self.cancel_computer()
        self.app.switch_screen(EndScreen(self.session))

    # -- human actions ---------------------------------------------------------------------------
    def _human(self) -> bool:
        if self.session.computer_to_move:
            self.say(_("Please wait: the computer is playing."))
            return False
        return True

    def action_keep(self, index: int) -> None:
        """Keep or release die ``index``."""
        state = self.session.state
        if not self._human() or index >= state.rules.dice:
            return
        if state.dice is None:
            self.say(_("Roll first; then choose the dice to keep."))
            return
        self.kept ^= {index}
        self.status = ""
        self.redraw()

    def on_die_toggled(self, message: Die.Toggled) -> None:
        """A click on a die."""
        self.action_keep(message.index)

    def action_roll(self) -> None:
        """Roll the dice not kept (asking for their faces with physical dice)."""
        if not self._human():
            return
        state = self.session.state
        held = tuple(sorted(self.kept)) if state.dice is not None else ()
        try:
            self.session.game.verify_roll(held)
        except FiveDiceError as exc:
            self.say(str(exc))
            return
        if not self.fd_app.config.physical:
            self.play(Roll(held))
            return

        def entered(values: tuple[int, ...] | None) -> None:
            if values is None:
                return
            it = iter(values)
            current = state.dice or ()
            self.play(Roll(held, tuple(current[p] if p in held else next(it) for p in range(state.rules.dice))))

        self.app.push_screen(DiceEntry(state.rules.dice - len(held)), entered)

    def action_cursor(self, step: int) -> None:
        """Move the highlight to the previous or next open box."""
        state = self.session.state
        keys = sorted(state.options(), key=lambda k: (state.rules.box_index(k[1]), k[0]))
        if not keys or self.session.computer_to_move:
            return
        i = keys.index(self.cursor) if self.cursor in keys else 0
        self.cursor = keys[(i + step) % len(keys)]
        self.redraw()

    def action_score(self) -> None:
        """Score the highlighted box."""
        if not self._human():
            return
        if self.cursor is None:
            self.say(_("Roll first: there are no dice to score.") if self.session.state.dice is None else "")
            return
        card, box = self.cursor
        self.play(Score(box, card))

    def on_card_line_clicked(self, message: CardLine.Clicked) -> None:
        """A click on a box: score it on the clicked card (or the first card where it is open)."""
        if not self._human():
            return
        state = self.session.state
        box = state.rules.boxes[message.box].name
        cards = [k for (k, b) in state.options() if b == box]
        where = self.query_one(ScoreCardView).column_seat_card(message.column)
        if where is not None and where[0] == state.current and where[1] in cards:
            cards = [where[1]]
        if not cards:
            card = where[1] if where is not None and where[0] == state.current else 0
            self.play(Score(box, card))  # the engine explains why not
            return
        self.cursor = (cards[0], box)
        self.play(Score(box, cards[0]))

    def action_undo(self) -> None:
        """Take back the last human move (and the computer moves after it)."""
        self.cancel_computer()
        try:
            self.session.undo()
        except FiveDiceError as exc:
            self.say(str(exc))
            self.schedule()
            return
        undone = self.session.game.redo_stack[-1]
        self.kept = set(undone.held) if isinstance(undone, Roll) else set()
        rules, dice = self.session.game.rules, self.session.state.dice
        self.events.append(lambda: _("Undone: {action}", action=describe_action(rules, undone, dice)))
        self.status = ""
        self.panel = str
        self.redraw()
        self.schedule()

    def action_redo(self) -> None:
        """Replay what was undone."""
        self.cancel_computer()
        try:
            self.session.redo()
        except FiveDiceError as exc:
            self.say(str(exc))
            self.schedule()
            return
        self.kept = set()
        self.events.append(lambda: _("Redone"))
        if self.session.state.is_over:
            self._finish()
            return
        self.redraw()
        self.schedule()

    def action_save(self) -> None:
        """Save the game; it can be resumed from the start screen."""
        path = self.fd_app.save_path(self.session)
        try:
            saved = self.session.save(path)
        except OSError as exc:
            self.say(_("The game could not be saved to {path}: {reason}.", path=str(path), reason=exc.strerror))
            return
        self.say(_("Saved to {path}", path=str(saved)))

    def action_save_quit(self) -> None:
        """Save and leave."""
        self.cancel_computer()
        self.action_save()
        if self.session.save_path is not None:
            self.app.exit(0)

    def action_help(self) -> None:
        """Show the keys."""
        self.app.push_screen(HelpScreen())

    def action_toggle_reasoning(self) -> None:
        """Show or hide the computer's reasoning."""
        on = not self.fd_app.settings.get("reasoning", False)
        self.fd_app.save_setting("reasoning", on)
        self.say(_("Computer reasoning shown.") if on else _("Computer reasoning hidden."))

    def action_pace(self, step: int) -> None:
        """Make the computer faster (-1) or slower (+1)."""
        now = min(PACES, key=lambda p: abs(p - self.pace))
        new = PACES[max(0, min(len(PACES) - 1, PACES.index(now) + step))]
        self.fd_app.save_setting("pace", new)
        self.say(_("Computer pace: {seconds} s a move.", seconds=format_decimal(new, 2)))

    # -- hints -------------------------------------------------------------------------------------
    def action_hint(self) -> None:
        """Ask the advisor, in a worker so the screen never freezes."""
        if not self._human():
            return
        state = self.session.state
        if state.dice is None:
            self.say(_("Roll first: hints are for the dice showing."))
            return
        self.panel = lambda: "[dim]" + _("Thinking…") + "[/]"
        self.redraw()
        self._hint_worker(len(self.session.game.log))

    @work(thread=True, exclusive=True, group="hint")
    def _hint_worker(self, move: int) -> None:
        state = self.session.state
        try:
            lines: list[HintLine] | str = self.session.hint_lines(state)
        except FiveDiceError as exc:
            lines = str(exc)
        except Exception as exc:  # a failing advisor must not end the game
            lines = _("The advisor failed: {error}: {message}", error=type(exc).__name__, message=str(exc))
        self.app.call_from_thread(self._show_hint, move, state.current, lines)

    def _show_hint(self, move: int, seat: int, lines: list[HintLine] | str) -> None:
        if move != len(self.session.game.log):
            return
        if isinstance(lines, str):
            text = lines
            self.panel = lambda: f"[dim]{escape(text)}[/]"
        else:
            self.session.record_hint(move, seat, lines)
            hint = lines
            self.panel = lambda: "[b]" + _("Hint") + "[/b]\n" + format_lines(hint)
        self.redraw()

    # -- computer turns ----------------------------------------------------------------------------
    def cancel_computer(self) -> None:
        """Stop any computer move in preparation."""
        if self.timer is not None:
            self.timer.stop()
        self.timer = None
        self.pending = None

    def schedule(self) -> None:
        """If a computer is to move, let it move after the pace delay."""
        if self.timer is not None or self.thinking or not self.session.computer_to_move:
            return
        self.timer = self.set_timer(max(self.pace, 0.001), self._computer_step)

    def _computer_step(self) -> None:
        self.timer = None
        if not self.session.computer_to_move:
            return
        self.thinking = True
        reasoning = bool(self.fd_app.settings.get("reasoning")) and self.session.state.phase is Phase.PLAY
        self._computer_worker(len(self.session.game.log), reasoning)

    @work(thread=True, exclusive=True, group="computer")
    def _computer_worker(self, move: int, reasoning: bool) -> None:
        state = self.session.state
        error = ""
        action: Action | None = None
        lines: list[HintLine] = []
        label = N_("to come")
        try:
            action = self.session.computer_action()
            if reasoning and state.dice is not None:
                try:
                    lines = self.session.hint_lines(state)
                except Exception:  # reasoning is optional: fall back to the points on offer
                    lines, label = greedy_reasoning(state), N_("points")
        except FiveDiceError as exc:
            error = str(exc)
        except Exception as exc:  # a failing computer player must not end the game
            error = f"{type(exc).__name__}: {exc}"
        self.app.call_from_thread(self._computer_chose, move, action, (lines, label), error)

    def _computer_chose(
        self, move: int, action: Action | None, reasoning: tuple[list[HintLine], str], error: str
    ) -> None:
        self.thinking = False
        if move != len(self.session.game.log) or not self.session.computer_to_move:
            self.schedule()
            return
        if action is None:
            self.say(_("The computer player failed: {error} Save with s; undo with u.", error=error))
            return
        state = self.session.state
        lines, label = reasoning
        if lines:
            name = escape(state.players[state.current])
            chosen, rules, dice = action, state.rules, state.dice
            self.panel = lambda: (
                _(
                    "[b]{name} weighs[/b] (chose: {action})",
                    name=name,
                    action=escape(describe_action(rules, chosen, dice)),
                )
                + "\n"
                + format_lines(lines, label=label)
            )
        if isinstance(action, Roll) and action.held and self.pace > 0 and set(action.held) != self.kept:
            self.kept = set(action.held)
            self.pending = action
            self.redraw()
            self.timer = self.set_timer(self.pace, self._play_pending)
            return
        self.play(action)

    def _play_pending(self) -> None:
        self.timer = None
        action, self.pending = self.pending, None
        if action is not None:
            self.play(action)


def format_lines(lines: list[HintLine], top: int = 5, label: str = N_("to come")) -> str:
    """Ranked options as markup: what, its value (by default the expected points still to come), loss;
    headings in the current language (``label`` is translated here), numbers in its format."""
    value, loss = _(label)[:10], _("loss")[:9]
    vw, lw = max(7, len(value)), max(6, len(loss))
    ow = 26 - (vw - 7) - (lw - 6)  # longer headings take room from the option column
    option = _("option")[:ow]
    rows = [f"[dim]{option:<{ow}} {value:>{vw}} {loss:>{lw}}[/]"]
    for line in lines[:top]:
        value_text, loss_text = format_decimal(line.value, 2), format_decimal(line.loss, 2)
        rows.append(f"{escape(line.text[:ow]):<{ow}} {value_text:>{vw}} {loss_text:>{lw}}")
    return "\n".join(rows)
