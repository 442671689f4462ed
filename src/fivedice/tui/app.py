"""The Textual application: opens the store, reads settings, shows the start or game screen.

The language: ``--lang`` (``Config.language``) wins; else the one chosen last time in the game
(the store's ``language`` setting); else the environment's (already set by the command line).
Key ``l`` (or the start screen's selector) switches it at any time and remembers it.

When the terminal goes away (window closed, ssh connection lost) or SIGHUP or SIGTERM arrives,
the game in progress is saved as ``q`` saves it and the app ends (see :mod:`fivedice.tui.terminal`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import App
from textual.binding import Binding, BindingType
from textual.driver import Driver

from fivedice import i18n
from fivedice.engine import saves
from fivedice.engine.game import Game
from fivedice.errors import FiveDiceError
from fivedice.i18n import N_, _
from fivedice.rules import RuleSet
from fivedice.table.seat import Seat
from fivedice.tui.end import GameAnalysis, analyse
from fivedice.tui.session import Session, new_table, saves_dir
from fivedice.tui.themes import MUTED, MUTED_DEFAULT, THEME_OBJECTS, THEMES
from fivedice.tui.widgets import language_cycle

if TYPE_CHECKING:
    from fivedice.storage import Store
    from fivedice.tui.terminal import TerminalGone

__all__ = ["Config", "FiveDiceApp"]


@dataclass
class Config:
    """How the app starts and plays; the command line fills it, tests inject fakes."""

    rules: RuleSet | None = None
    seats: Sequence[Seat] | None = None
    seed: int | None = None
    physical: bool = False
    load: Path | None = None
    session: Session | None = None
    db: str | None = None
    use_store: bool = True
    saves: Path = field(default_factory=saves_dir)
    pace: float | None = None
    reasoning: bool | None = None
    chances: bool | None = None
    """Whether hints show their chances to win or to beat one's best (prepared once in the background)."""
    theme: str | None = None
    language: str | None = None
    challenge: str | None = None
    """The challenge code for the start screen; ``daily`` stays the word (it is the day's date when a game starts)."""
    analyser: Callable[[Game], GameAnalysis | str] = analyse
    rng: object = None


class FiveDiceApp(App[int]):
    """fivedice in the terminal: a start screen, the game, the end-of-game analysis."""

    TITLE = "fivedice"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", N_("Quit"), show=False, priority=True),
        Binding("t", "toggle_theme", N_("Theme"), show=False),
        Binding("l", "cycle_language", N_("Language"), show=False),
    ]

    def __init__(self, config: Config | None = None) -> None:
        super().__init__()
        self.config = config or Config()
        self.store: Store | None = None
        self.store_error: str | None = None
        self.settings: dict[str, Any] = {
            "pace": 0.8,
            "reasoning": False,
            "chances": True,
            "theme": "dark",
            "language": None,
            "rules": "yahtzee",
            "challenge": "",
        }
        self.farewell: str | None = None
        """A line to print after the app ended (where the game was saved and how to resume it), if any."""

    def get_theme_variable_defaults(self) -> dict[str, str]:
        """fivedice's own theme variables, for any theme that lacks them (CSS is parsed before ours is set)."""
        return {**super().get_theme_variable_defaults(), MUTED: MUTED_DEFAULT}

    # -- the store (optional: the game plays without it) -----------------------------------------
    def open_store(self) -> None:
        """Open the score database; on failure remember why and play on without it."""
        if not self.config.use_store:
            return
        try:
            from fivedice.storage import Store

            self.store = Store(self.config.db)
            for key in self.settings:
                self.settings[key] = self.store.get_setting(key, self.settings[key])
        except FiveDiceError as exc:
            self.store = None
            self.store_error = str(exc)

    def save_setting(self, key: str, value: Any) -> None:
        """Change a setting and remember it (if the store works)."""
        self.settings[key] = value
        if self.store is not None:
            try:
                self.store.set_setting(key, value)
            except FiveDiceError as exc:
                self.store_error = str(exc)

    def on_mount(self) -> None:
        """Open the store, apply the settings and show the first screen."""
        from fivedice.tui.end import EndScreen
        from fivedice.tui.play import GameScreen
        from fivedice.tui.start import StartScreen

        self.open_store()
        cfg = self.config
        for key in ("pace", "reasoning", "chances", "theme"):
            value = getattr(cfg, key)
            if value is not None:
                self.settings[key] = value
        for theme in THEME_OBJECTS:
            self.register_theme(theme)
        self.theme = THEMES.get(str(self.settings["theme"]), THEMES["dark"])
        chosen = cfg.language or i18n.resolve(str(self.settings.get("language") or ""))
        if chosen is not None:
            i18n.set_language(chosen)
        if self.store_error:
            self.notify(_("Scores will not be kept: {why}", why=self.store_error), severity="warning", timeout=8)
        if cfg.session is not None:
            self.push_screen(EndScreen(cfg.session) if cfg.session.state.is_over else GameScreen(cfg.session))
            return
        if cfg.load is not None:
            try:
                session = Session.load(cfg.load)
            except FiveDiceError as exc:
                self.push_screen(StartScreen(message=str(exc)))
                return
            self.push_screen(EndScreen(session, record=False) if session.state.is_over else GameScreen(session))
            return
        self.push_screen(StartScreen())

    def show_start(self, message: str = "") -> None:
        """Show the start screen in place of the current one."""
        from fivedice.tui.start import StartScreen

        self.switch_screen(StartScreen(message=message))

    def show_game(self, session: Session) -> None:
        """Show ``session``'s game in place of the current screen."""
        from fivedice.tui.play import GameScreen

        self.switch_screen(GameScreen(session))

    def show_end(self, session: Session, record: bool = True) -> None:
        """Show the end of ``session``'s game (stored unless ``record`` is false) in place of the current screen."""
        from fivedice.tui.end import EndScreen

        self.switch_screen(EndScreen(session, record))

    def new_session(self, rules: RuleSet, seats: Sequence[Seat], challenge: str | None = None) -> Session:
        """A fresh game with the app's seed and dice (a challenge's dice come from its code)."""
        cfg = self.config
        return Session(new_table(rules, seats, seed=cfg.seed, rng=cfg.rng, challenge=challenge))

    def load_session(self, path: Path) -> Session:
        """A saved game."""
        return Session.load(path)

    # -- saving, and ending when the terminal goes away -----------------------------------------
    def save_path(self, session: Session) -> Path:
        """Where ``session`` is saved: its file, else a new one in the saves folder (Resume lists it)."""
        return session.save_path or saves.new_save_path(self.config.saves)

    def game_in_progress(self) -> Session | None:
        """The unfinished game shown (under any dialog over it) with at least one move, if any."""
        for screen in reversed(self.screen_stack):
            session = getattr(screen, "session", None)
            if isinstance(session, Session):
                game = session.game
                return session if not game.is_over and (game.log or game.redo_stack) else None
        return None

    def save_game_in_progress(self) -> Path | None:
        """Save the game in progress as ``q`` does; returns where (None: no game to save).
        Raises OSError if it cannot be written; the save is written whole or not at all."""
        session = self.game_in_progress()
        if session is None:
            return None
        return session.save(self.save_path(session))

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver; on Linux and macOS one that notices a terminal that went away."""
        driver = super().get_driver_class()
        if driver.__module__ == "textual.drivers.linux_driver" and driver.__name__ == "LinuxDriver":
            from fivedice.tui.terminal import GuardedDriver

            return GuardedDriver
        return driver

    def on_terminal_gone(self, message: TerminalGone) -> None:
        """The terminal went away, or SIGHUP or SIGTERM came: save the game in progress and end
        (exit status 128 + the signal's number); :attr:`farewell` says where the game is, for a
        terminal still there (the command line prints it once the screen is restored)."""
        note = None
        try:
            path = self.save_game_in_progress()
        except OSError as exc:
            note = _("The game could not be saved: {reason}.", reason=exc.strerror or str(exc))
        else:
            if path is not None:
                note = _("The game is saved in {path}; resume it from the start screen.", path=str(path))
        code = message.exit_code
        self.farewell = None if message.lost else note
        self.exit(code, return_code=code)

    def action_toggle_theme(self) -> None:
        """Switch between the dark and the light theme."""
        name = "light" if self.settings.get("theme") == "dark" else "dark"
        self.theme = THEMES[name]
        self.save_setting("theme", name)

    def switch_language(self, code: str) -> str:
        """Show every text in language ``code`` from now on (every screen written again; the game is
        untouched) and remember the choice; returns the code."""
        code = i18n.set_language(code)
        self.save_setting("language", code)
        for screen in self.screen_stack:
            relabel = getattr(screen, "relabel", None)
            if callable(relabel):
                relabel()
        self.notify(_("Language: {name}", name=i18n.available_languages()[code]), timeout=3)
        return code

    def action_cycle_language(self) -> None:
        """Switch to the next language (English, Italian, Croatian, Sundanese, Corsican, ...)."""
        codes = language_cycle()
        now = i18n.current_language()
        self.switch_language(codes[(codes.index(now) + 1) % len(codes)] if now in codes else codes[0])

    def on_unmount(self) -> None:
        """Close the store."""
        if self.store is not None:
            self.store.close()
