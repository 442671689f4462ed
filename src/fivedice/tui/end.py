"""The end of a game: ranking, every card, the per-decision analysis with grades, and storing it."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.markup import escape
from textual.screen import Screen
from textual.widgets import Footer, Static

from fivedice import saves
from fivedice.errors import FiveDiceError
from fivedice.game import Game
from fivedice.tui.session import Session, optional
from fivedice.tui.widgets import ScoreCardView

if TYPE_CHECKING:
    from fivedice.tui.app import FiveDiceApp

__all__ = ["EndScreen", "GameAnalysis", "analyse", "ranking_text"]


@dataclass(frozen=True, slots=True)
class GameAnalysis:
    """What the end screen shows of an analysis: text lines, and per seat ``(total loss, decisions)``."""

    text: str
    losses: dict[int, tuple[float, int]]


def analyse(game: Game) -> GameAnalysis | str:
    """The game analysis from ``fivedice.analysis`` (slow: run it in a worker), or why there is none."""
    analyze = optional("fivedice.analysis", "analyze")
    if analyze is None:
        return "The per-decision analysis needs fivedice.analysis and the solver, which are not installed."
    try:
        result = analyze(game)
    except FiveDiceError as exc:
        return f"No analysis for this game: {exc}"
    lines: list[str] = []
    losses: dict[int, tuple[float, int]] = {}
    for p in result.players:
        losses[p.seat] = (float(p.total_loss), int(p.decisions))
        lines.append(
            f"[b]{escape(p.player)}[/b]: grade [b]{escape(p.grade)}[/b] · lost {p.total_loss:.1f} points "
            f"over {p.decisions} decisions ({p.mean_loss:.2f} each, {p.mistakes} mistakes)"
        )
    costly = [d for d in result.decisions if d.loss > 0.005]
    lines.append("")
    if costly:
        lines.append(f"[dim]{'who':<8} {'round.roll':<10} chosen → best (points lost)[/]")
    else:
        lines.append("Every decision was the best one.")
    for d in costly:
        lines.append(
            f"{escape(d.player[:8]):<8} {d.round:>5}.{d.roll:<4} {escape(d.chosen)} → {escape(d.best)} "
            f"[b]−{d.loss:.2f}[/b]"
        )
    return GameAnalysis("\n".join(lines), losses)


def ranking_text(session: Session) -> str:
    """The final ranking as markup."""
    state = session.state
    lines = ["[b]Game over[/b]"]
    for s in state.standings():
        who = escape(s.name) + (" (computer)" if session.is_computer(s.seat) else "")
        note = " · instant win" if s.seat == state.instant_winner else ""
        lines.append(f"{s.place}. [b]{who}[/b] {s.total}{note}")
    return "\n".join(lines)


class EndScreen(Screen[None]):
    """Ranking, cards and analysis; the game is stored (or offered as JSON if the store fails)."""

    DEFAULT_CSS = """
    EndScreen #end-main { height: 1fr; }
    EndScreen #end-card { width: auto; max-width: 60%; }
    EndScreen #end-side { width: 1fr; padding: 0 1; }
    EndScreen #stored { color: $foreground 70%; margin: 1 0; }
    EndScreen #stored.problem { color: $warning; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "new_game", "New game"),
        Binding("j", "save_json", "Save log as JSON"),
        Binding("q", "quit", "Quit"),
        Binding("question_mark,f1", "help", "Help", show=False),
    ]

    def __init__(self, session: Session, record: bool = True) -> None:
        super().__init__()
        self.session = session
        self.record = record
        self.game_id: int | None = None
        self.problem = ""
        self.analysis: GameAnalysis | str | None = None

    @property
    def fd_app(self) -> FiveDiceApp:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        """Ranking and analysis beside the cards."""
        with Horizontal(id="end-main"):
            with VerticalScroll(id="end-card"):
                yield ScoreCardView(self.session.state, preview=False, room=max(24, self.app.size.width * 6 // 10))
            with VerticalScroll(id="end-side"):
                yield Static(ranking_text(self.session), id="ranking")
                yield Static("", id="stored")
                yield Static("[dim]Analysing the game…[/]", id="analysis")
        yield Footer()

    def on_mount(self) -> None:
        """Store the game, drop its save file, and start the analysis."""
        self._store()
        path = self.session.save_path
        if self.record and path is not None and path.parent == self.fd_app.config.saves:
            self.session.remove_save()
        self._analysis_worker()

    def _store(self) -> None:
        app = self.fd_app
        stored = self.query_one("#stored", Static)
        if not self.record:
            stored.update("This game was over when it was loaded; it is not stored again.")
            return
        if app.store is None:
            why = app.store_error or "no score database is in use"
            self.problem = f"The game is not in the high scores: {why}. Press j to save its log as JSON."
        else:
            try:
                self.game_id = app.store.record_game(
                    self.session.game, source="terminal", computer=self.session.computer, hints=self.session.hint_counts
                )
            except FiveDiceError as exc:
                self.problem = f"The game could not be stored: {exc} Press j to save its log as JSON."
        if self.problem:
            stored.update(escape(self.problem))
            stored.add_class("problem")
        else:
            note = ""
            solo = self.session.seats[0]
            if len(self.session.seats) == 1 and not solo.is_computer and app.store is not None:
                try:
                    best = app.store.best(solo.name, self.session.game.rules)
                except FiveDiceError:
                    best = None
                if best == self.session.state.total(0):
                    note = " A new personal best!"
            stored.update(f"Stored as game {self.game_id}; see 'fivedice scores'.{note}")

    @work(thread=True, exclusive=True, group="analysis")
    def _analysis_worker(self) -> None:
        try:
            result = self.fd_app.config.analyser(self.session.game)
        except Exception as exc:  # the analysis is optional: report, never crash the end screen
            result = f"The analysis failed: {type(exc).__name__}: {exc}"
        self.app.call_from_thread(self._show_analysis, result)

    def _show_analysis(self, result: GameAnalysis | str) -> None:
        self.analysis = result
        if isinstance(result, str):
            self.query_one("#analysis", Static).update(f"[dim]{escape(result)}[/]")
            return
        self.query_one("#analysis", Static).update(result.text)
        store = self.fd_app.store
        if store is not None and self.game_id is not None and result.losses:
            with contextlib.suppress(FiveDiceError):
                store.record_analysis(self.game_id, result.losses)

    def action_save_json(self) -> None:
        """Save the finished game's log as JSON (a standard save, loadable by every tool)."""
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        path = self.fd_app.config.saves / f"finished-{stamp}.json"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            saves.save(self.session.game, path)
        except OSError as exc:
            self.notify(f"Could not write {path}: {exc.strerror}", severity="error")
            return
        self.query_one("#stored", Static).update(escape(f"Saved the move log to {path}"))

    def action_new_game(self) -> None:
        """Back to the start screen."""
        from fivedice.tui.start import StartScreen

        self.app.switch_screen(StartScreen())

    def action_quit(self) -> None:
        """Leave."""
        self.app.exit(0)

    def action_help(self) -> None:
        """The keys."""
        self.notify("n: new game · j: save the log as JSON · q: quit · t: theme")
