"""The end of a game: ranking, every card, the per-decision analysis with grades, and storing it."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.markup import escape
from textual.screen import Screen
from textual.widgets import Static

from fivedice.engine.game import Game
from fivedice.errors import FiveDiceError
from fivedice.i18n import N_, _, format_decimal, ngettext
from fivedice.storage.finished import record_finished
from fivedice.table.challenge import RANKED, ChallengeReport, benchmark_level, report, report_lines
from fivedice.tui.session import Session
from fivedice.tui.widgets import I18nFooter, ScoreCardView

if TYPE_CHECKING:
    from fivedice.tui.app import FiveDiceApp

__all__ = ["EndScreen", "GameAnalysis", "analyse", "ranking_text"]

DIM = "[dim]{}[/]"
"""Markup for a note (fill with escaped text)."""


@dataclass(frozen=True, slots=True)
class GameAnalysis:
    """What the end screen shows of an analysis: text lines, and per seat ``(total loss, decisions)``;
    ``render`` writes the text again in the current language (after a switch)."""

    text: str
    losses: dict[int, tuple[float, int]]
    render: Callable[[], str] | None = None

    def shown(self) -> str:
        """The text in the current language."""
        return self.render() if self.render is not None else self.text


def analyse(game: Game) -> GameAnalysis | str:
    """The game analysis from :mod:`fivedice.services.analysis` (slow: run it in a worker), or why there is none."""
    from fivedice.services.analysis import analyze, split_line  # the solver: only when a game ends

    try:
        result = analyze(game)
    except FiveDiceError as exc:
        return _("No analysis for this game: {error}", error=str(exc))
    losses = {p.seat: (float(p.total_loss), int(p.decisions)) for p in result.players}

    def render() -> str:
        lines: list[str] = []
        for p in result.players:
            decisions = ngettext("{n} decision", "{n} decisions", p.decisions, n=p.decisions)
            mistakes = ngettext("{n} mistake", "{n} mistakes", p.mistakes, n=p.mistakes)
            lines.append(
                _(
                    "[b]{player}[/b]: grade [b]{grade}[/b] · lost {loss} points over {decisions} ({mean} each, "
                    "{mistakes})",
                    player=escape(p.player),
                    grade=escape(p.grade),
                    loss=format_decimal(p.total_loss, 1),
                    decisions=decisions,
                    mean=format_decimal(p.mean_loss, 2),
                    mistakes=mistakes,
                )
            )
        lines.append("")
        lines.append("[b]" + _("Luck and decisions") + "[/b]")
        lines.extend(escape(split_line(p)) for p in result.players)
        costly = [d for d in result.decisions if d.loss > 0.005]
        lines.append("")
        if costly:
            who, when = _("who")[:8], _("round.roll")[:10]
            lines.append(f"[dim]{who:<8} {when:<10} " + _("chosen → best (points lost)") + "[/]")
        else:
            lines.append(_("Every decision was the best one."))
        for d in costly:
            lines.append(
                f"{escape(d.player[:8]):<8} {d.round:>5}.{d.roll:<4} {escape(d.chosen)} → {escape(d.best)} "
                f"[b]−{format_decimal(d.loss, 2)}[/b]"
            )
        return "\n".join(lines)

    return GameAnalysis(render(), losses, render)


def ranking_text(session: Session) -> str:
    """The final ranking as markup."""
    state = session.state
    lines = ["[b]" + _("Game over") + "[/b]"]
    for s in state.standings():
        who = escape(s.name)
        seat = session.seats[s.seat]
        if seat.is_computer:
            who = _("{name} (computer · {level})", name=who, level=escape(seat.level or ""))
        line = f"{s.place}. [b]{who}[/b] {s.total}"
        if s.seat == state.instant_winner:
            line += " · " + _("instant win")
        lines.append(line)
    return "\n".join(lines)


class EndScreen(Screen[None]):
    """Ranking, cards, analysis and a challenge's comparison; the game is stored (or offered as JSON if the
    store fails). The keys scroll the ranking and analysis."""

    DEFAULT_CSS = """
    EndScreen #end-main { height: 1fr; }
    EndScreen #end-card { width: auto; max-width: 60%; }
    EndScreen #end-side { width: 1fr; padding: 0 1; }
    EndScreen #stored { color: $foreground 70%; margin: 1 0; }
    EndScreen #stored.problem { color: $warning; }
    EndScreen #challenge { margin: 0 0 1 0; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "new_game", N_("New game")),
        Binding("s", "save_json", N_("Save log as JSON")),
        Binding("q", "quit", N_("Quit")),
        Binding("down,j", "scroll(1)", N_("Scroll"), show=False),
        Binding("up,k", "scroll(-1)", N_("Scroll"), show=False),
        Binding("pagedown,space", "scroll(10)", N_("Scroll"), show=False),
        Binding("pageup", "scroll(-10)", N_("Scroll"), show=False),
        Binding("home", "scroll_edge(0)", N_("Scroll"), show=False),
        Binding("end", "scroll_edge(1)", N_("Scroll"), show=False),
        Binding("question_mark,f1", "help", N_("Help"), show=False),
    ]

    def __init__(self, session: Session, record: bool = True) -> None:
        super().__init__()
        self.session = session
        self.table = session.table
        self.record = record
        self.game_id: int | None = None
        self.problem = ""
        self.analysis: GameAnalysis | str | None = None
        self.challenge: ChallengeReport | str | None = None
        self.stored_text: Callable[[], str] = str

    if TYPE_CHECKING:
        app: FiveDiceApp  # the app it runs in, typed (its settings, config and store)

    def compose(self) -> ComposeResult:
        """Ranking and analysis beside the cards."""
        with Horizontal(id="end-main"):
            with VerticalScroll(id="end-card"):
                yield ScoreCardView(self.session.state, preview=False, room=max(24, self.app.size.width * 6 // 10))
            with VerticalScroll(id="end-side"):
                yield Static(ranking_text(self.session), id="ranking")
                yield Static("", id="stored")
                challenge = Static(self._challenge_text(), id="challenge")
                challenge.display = self.table.challenge is not None
                yield challenge
                yield Static("[dim]" + _("Analysing the game…") + "[/]", id="analysis")
        yield I18nFooter()

    def on_mount(self) -> None:
        """Store the game, drop its save file, and start the analysis (and a challenge's comparison)."""
        self._store()
        path = self.session.save_path
        if self.record and path is not None and path.parent == self.app.config.saves:
            self.session.remove_save()
        self._analysis_worker()

    def _store(self) -> None:
        app = self.app
        stored = self.query_one("#stored", Static)
        if not self.record:
            self._stored(lambda: _("This game was over when it was loaded; it is not stored again."))
            return
        problem: Callable[[], str] | None = None
        note = ""
        if app.store is None:
            error = app.store_error
            problem = lambda: _(  # noqa: E731
                "The game is not in the high scores: {why}. Press s to save its log as JSON.",
                why=error or _("no score database is in use"),
            )
        else:
            try:
                recorded = record_finished(app.store, self.table, "terminal")
            except FiveDiceError as exc:
                failure = str(exc)
                problem = lambda: _(  # noqa: E731
                    "The game could not be stored: {error} Press s to save its log as JSON.", error=failure
                )
            else:
                self.game_id = recorded.game_id
                note = N_("A new personal best!") if recorded.new_best else ""
        if problem is not None:
            self.problem = problem()
            self._stored(problem)
            stored.add_class("problem")
            return
        game_id = self.game_id
        self._stored(
            lambda: _("Stored as game {id}; see 'fivedice scores'.", id=game_id) + (" " + _(note) if note else "")
        )

    def _stored(self, text: Callable[[], str]) -> None:
        """Show (and remember, to show again after a language switch) what became of the game."""
        self.stored_text = text
        self.query_one("#stored", Static).update(escape(text()))

    def _challenge_text(self) -> str:
        """The challenge's comparison (each player next to the benchmark on the same dice) and leaderboard."""
        code = self.table.challenge
        if code is None:
            return ""
        if self.challenge is None:
            level = benchmark_level(self.table.rules)
            note = _("Replaying the challenge's dice for the {level} player…", level=level)
            return DIM.format(escape(note))
        if isinstance(self.challenge, str):
            return DIM.format(escape(self.challenge))
        text = "\n".join(escape(line) for line in report_lines(self.challenge))
        store = self.app.store
        if store is not None:
            from fivedice.storage.text import scores_text

            try:
                board = store.challenge_board(self.table.rules, code, limit=10)  # the fair board, as the web's
            except FiveDiceError as exc:
                return text + "\n" + escape(str(exc))
            text += "\n\n" + escape(scores_text(board, _("Challenge {code}", code=code)))
            text += "\n" + DIM.format(escape(_(RANKED)))
        return text

    def relabel(self) -> None:
        """Show everything again in the current language (after a switch)."""
        self.query_one("#ranking", Static).update(ranking_text(self.session))
        self.query_one("#stored", Static).update(escape(self.stored_text()))
        self.query_one("#challenge", Static).update(self._challenge_text())
        if self.analysis is not None:
            self._show_analysis(self.analysis, store=False)
        else:
            self.query_one("#analysis", Static).update("[dim]" + _("Analysing the game…") + "[/]")
        self.query_one(ScoreCardView).show(self.session.state)
        self.refresh_bindings()  # the footer writes its keys again

    @work(thread=True, exclusive=True, group="analysis")
    def _analysis_worker(self) -> None:
        if self.table.challenge is not None:
            try:
                challenge: ChallengeReport | str = report(self.table)
            except Exception as exc:  # the comparison is a nicety: report, never crash the end screen
                challenge = _("The challenge comparison failed: {error}: {message}", error=type(exc).__name__,
                              message=str(exc))  # fmt: skip
            self.app.call_from_thread(self._show_challenge, challenge)
        try:
            result = self.app.config.analyser(self.session.game)
        except Exception as exc:  # the analysis is optional: report, never crash the end screen
            result = _("The analysis failed: {error}: {message}", error=type(exc).__name__, message=str(exc))
        self.app.call_from_thread(self._show_analysis, result)

    def _show_challenge(self, result: ChallengeReport | str) -> None:
        self.challenge = result
        self.query_one("#challenge", Static).update(self._challenge_text())

    def _show_analysis(self, result: GameAnalysis | str, store: bool = True) -> None:
        self.analysis = result
        if isinstance(result, str):
            self.query_one("#analysis", Static).update(f"[dim]{escape(result)}[/]")
            return
        self.query_one("#analysis", Static).update(result.shown())
        db = self.app.store
        if store and db is not None and self.game_id is not None and result.losses:
            with contextlib.suppress(FiveDiceError):
                db.record_analysis(self.game_id, result.losses)

    def action_scroll(self, lines: int) -> None:
        """Scroll the ranking and analysis by ``lines``."""
        side = self.query_one("#end-side", VerticalScroll)
        side.scroll_to(y=side.scroll_y + lines, animate=False)

    def action_scroll_edge(self, end: int) -> None:
        """Scroll to the top (0) or the bottom (1)."""
        side = self.query_one("#end-side", VerticalScroll)
        if end:
            side.scroll_end(animate=False)
        else:
            side.scroll_home(animate=False)

    def action_save_json(self) -> None:
        """Save the finished game as JSON (the table's save: every tool loads it)."""
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        path = self.app.config.saves / f"finished-{stamp}.json"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.table.save(path)
        except OSError as exc:
            self.notify(_("Could not write {path}: {reason}", path=str(path), reason=exc.strerror), severity="error")
            return
        self._stored(lambda: _("Saved the move log to {path}", path=str(path)))

    def action_new_game(self) -> None:
        """Back to the start screen."""
        self.app.show_start()

    def action_quit(self) -> None:
        """Leave."""
        self.app.exit(0)

    def action_help(self) -> None:
        """The keys."""
        self.notify(_("n: new game · s: save the log as JSON · ↑↓ j k: scroll · q: quit · t: theme · l: language"))
