"""The start screen: rule set and options, players (remembered), pace, theme, resume a saved game."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.markup import escape
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from fivedice import i18n
from fivedice import rules as rules_mod
from fivedice.errors import FiveDiceError, RuleSetError
from fivedice.i18n import N_, _
from fivedice.players import LEVELS
from fivedice.rules import RuleSet, parse_options
from fivedice.table.challenge import challenge_code
from fivedice.table.seat import Seat, SeatKind
from fivedice.tui.help import HelpScreen
from fivedice.tui.session import delete_save, saved_games
from fivedice.tui.themes import MUTED
from fivedice.tui.widgets import I18nFooter, language_cycle

if TYPE_CHECKING:
    from fivedice.tui.app import FiveDiceApp

__all__ = ["MAX_SEATS", "ScoresScreen", "StartScreen", "options_text", "rules_from_form"]

MAX_SEATS = 4
PACE_CHOICES = [(N_("instant"), 0.0), (N_("fast"), 0.3), (N_("normal"), 0.8), (N_("slow"), 1.5)]


def rules_from_form(name: str, options: str) -> RuleSet:
    """The rule set chosen: a built-in name and ``key=value`` options separated by spaces."""
    return rules_mod.get(name, **parse_options(tuple(options.replace(",", " ").split())))


def options_text(name: str) -> str:
    """A built-in rule set's description and each of its options in a sentence (markup; wraps).

    >>> print(options_text("yacht").splitlines()[1])
    [$fd-muted]Option [b]four_kind[/b] (all_dice | four_dice): Four of a Kind counts all five dice or the four alike.[/]
    """
    builtin = rules_mod.BUILTINS[name]
    lines = [escape(_(builtin.description))]
    for o in builtin.options:
        lines.append(
            f"[${MUTED}]"
            + _(
                "Option [b]{name}[/b] ({choices}): {help}.",
                name=escape(o.name),
                choices=escape(" | ".join(o.choices)),
                help=escape(_(o.help)),
            )
            + "[/]"
        )
    if not builtin.options:
        lines.append(f"[${MUTED}]" + _("No options.") + "[/]")
    return "\n".join(lines)


class ScoresScreen(ModalScreen[None]):
    """The high-score tables (solo and multiplayer) of a rule set, over the start screen."""

    DEFAULT_CSS = """
    ScoresScreen { align: center middle; }
    ScoresScreen > VerticalScroll { width: auto; max-width: 100%; height: auto; max-height: 100%;
                                    border: round $accent; padding: 0 1; background: $surface; overflow-x: auto; }
    ScoresScreen #scores-text { width: auto; text-wrap: nowrap; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,f2", "close", N_("Close"))]

    def __init__(self, rules_name: str | None) -> None:
        super().__init__()
        self.rules_name = rules_name

    def compose(self) -> ComposeResult:
        """Both tables, or why there are none."""
        from fivedice.storage.text import scores_text, scores_title

        app: FiveDiceApp = self.app  # type: ignore[assignment]
        if app.store is None:
            text = _("No high scores: {why}", why=app.store_error or _("no score database is in use"))
        else:
            try:
                solo = app.store.high_scores(self.rules_name, 8, solo=True)
                multi = app.store.high_scores(self.rules_name, 8, solo=False)
                text = scores_text(solo, scores_title(True, self.rules_name)) + "\n\n"
                text += scores_text(multi, scores_title(False, self.rules_name))
            except FiveDiceError as exc:
                text = str(exc)
        with VerticalScroll():
            yield Static(escape(text), id="scores-text")
            yield Static("[dim]" + _("Esc closes") + "[/]")

    def action_close(self) -> None:
        """Back to the start screen."""
        self.dismiss()

    def on_click(self) -> None:
        """A click closes the tables."""
        self.dismiss()


class StartScreen(Screen[None]):
    """Choose the rules and the players, or resume a saved game."""

    DEFAULT_CSS = """
    StartScreen { padding: 0 1; }
    StartScreen #form { height: 1fr; scrollbar-size-vertical: 1; }
    StartScreen #title { height: 1; text-style: bold; color: $accent; }
    StartScreen .row { height: 1; margin-bottom: 1; }
    StartScreen .seat { height: 1; }
    StartScreen .lbl { width: 11; }
    StartScreen #rules { width: 16; }
    StartScreen #options { width: 1fr; margin-left: 1; }
    StartScreen .name { width: 22; }
    StartScreen .kind { width: 32; margin-left: 1; }
    StartScreen #pace { width: 14; }
    StartScreen #reasoning { margin-left: 1; }
    StartScreen #theme { width: 16; margin-left: 1; }
    StartScreen #language { width: 20; }
    StartScreen #saved { width: 1fr; }
    StartScreen #challenge { width: 1fr; }
    StartScreen #rules-info { height: auto; color: $foreground 80%; margin-bottom: 1; }
    StartScreen SelectOverlay { background: $panel; color: $foreground; border: tall $accent; }
    StartScreen SelectOverlay > .option-list--option-highlighted { background: $accent 40%; }
    StartScreen #buttons { height: 1; }
    StartScreen Button { margin-right: 1; width: auto; min-width: 10; }
    StartScreen #message { height: auto; max-height: 3; color: $warning; }
    StartScreen Input > .input--placeholder { color: $fd-muted; }
    StartScreen SelectCurrent .arrow { color: $fd-muted; }
    StartScreen #start { background: $primary-darken-1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "start", N_("Start")),
        Binding("escape", "app.quit", N_("Quit")),
        Binding("f1", "help", N_("Help")),
        Binding("f2", "scores", N_("Scores")),
    ]

    def __init__(self, message: str = "") -> None:
        super().__init__()
        self.message = message
        self.kept_form: dict[str, Any] = {}
        self.confirm_delete: str | None = None

    if TYPE_CHECKING:
        app: FiveDiceApp  # the app it runs in, typed (its settings, config and store)

    def _lineup(self) -> list[Seat]:
        cfg = self.app.config
        if cfg.seats:
            return list(cfg.seats)
        store = self.app.store
        if store is not None:
            try:
                last = store.last_players()
            except FiveDiceError:
                last = []
            if last:
                return list(last)
        return [Seat(_("Player")), Seat(_("Computer"), SeatKind.COMPUTER, "medium")]

    def _challenge_default(self) -> str:
        cfg = self.app.config
        return cfg.challenge if cfg.challenge is not None else str(self.app.settings.get("challenge") or "")

    def _rules_default(self) -> tuple[str, str]:
        cfg = self.app.config
        spec = cfg.rules.spec if cfg.rules is not None else str(self.app.settings.get("rules", "yahtzee"))
        name, _sep, options = spec.partition(" ")
        return (name if name in rules_mod.BUILTINS else "yahtzee"), options

    def compose(self) -> ComposeResult:
        """The form."""
        levels = LEVELS
        kinds = [(_("Human"), "human")] + [(_("Computer · {level}", level=lv), f"computer:{lv}") for lv in levels]
        rule_name, rule_options = self._rules_default()
        seats = self._lineup()
        form = self.kept_form
        yield Static(_("fivedice · Yahtzee and its family of five-dice games"), id="title")
        with VerticalScroll(id="form"):
            with Horizontal(classes="row"):
                yield Label(_("Rules"), classes="lbl")
                choices = [(b.name.title(), b.name) for b in rules_mod.BUILTINS.values()]
                yield Select(choices, value=form.get("rules", rule_name), allow_blank=False, compact=True, id="rules")
                yield Input(form.get("options", rule_options), placeholder=_("options, e.g. joker=free"), compact=True,
                            id="options")  # fmt: skip
            yield Static("", id="rules-info")
            yield Label(_("Players (an empty name leaves the seat out)"))
            for i in range(MAX_SEATS):
                seat = seats[i] if i < len(seats) else None
                kind = "human"
                if seat is not None and seat.is_computer:
                    kind = f"computer:{seat.level}" if seat.level in levels else kinds[1][1]
                name = form.get(f"name-{i}", seat.name if seat else "")
                with Horizontal(classes="seat"):
                    yield Label(f"  {i + 1}.", classes="lbl")
                    yield Input(name, max_length=20, compact=True, id=f"name-{i}", classes="name")
                    yield Select(kinds, value=form.get(f"kind-{i}", kind), allow_blank=False, compact=True,
                                 id=f"kind-{i}", classes="kind")  # fmt: skip
            yield Static("")
            with Horizontal(classes="row"):
                yield Label(_("Computer"), classes="lbl")
                pace = float(form.get("pace", self.app.settings.get("pace", 0.8)))
                paces = [(_(text), value) for text, value in PACE_CHOICES]
                if pace not in [p for _text, p in paces]:
                    paces.append((f"{pace:g} s", pace))
                yield Select(paces, value=pace, allow_blank=False, compact=True, id="pace")
                reasoning = bool(form.get("reasoning", self.app.settings.get("reasoning", False)))
                yield Checkbox(_("show its reasoning"), reasoning, compact=True, id="reasoning")
                theme = str(self.app.settings.get("theme", "dark"))
                themes = [(_("dark theme"), "dark"), (_("light theme"), "light")]
                yield Select(themes, value=theme if theme in ("dark", "light") else "dark", allow_blank=False,
                             compact=True, id="theme")  # fmt: skip
            with Horizontal(classes="row"):
                yield Label(_("Challenge"), classes="lbl")
                challenge = form.get("challenge", self._challenge_default())
                yield Input(challenge, placeholder=_("daily, or any code: everyone meets the same dice"),
                            compact=True, id="challenge", max_length=64)  # fmt: skip
            with Horizontal(classes="row"):
                yield Label(_("Resume"), classes="lbl")
                saved = [(escape(text), str(path)) for path, text in saved_games(self.app.config.saves)][:20]
                chosen = form.get("saved", saved[0][1] if saved else Select.NULL)
                yield Select(saved, prompt=_("no saved game") if not saved else _("choose a saved game"), compact=True,
                             id="saved", value=chosen)  # fmt: skip
            with Horizontal(classes="row"):
                yield Label(_("Language"), classes="lbl")
                names = i18n.available_languages()
                languages = [(names[code], code) for code in language_cycle()]
                yield Select(languages, value=i18n.current_language(), allow_blank=False, compact=True, id="language")
        with Horizontal(id="buttons"):
            yield Button(_("Start"), id="start", variant="primary", compact=True)
            yield Button(_("Resume"), id="resume", compact=True, disabled=not saved)
            yield Button(_("Delete"), id="delete", compact=True, disabled=not saved)
            yield Button(_("Scores"), id="scores", compact=True)
            yield Button(_("Quit"), id="quit", compact=True)
        yield Static(escape(self.message), id="message")
        yield I18nFooter()

    def on_mount(self) -> None:
        """Describe the chosen rule set."""
        self._describe()
        self.query_one("#name-0", Input).focus()

    def _form(self) -> dict[str, Any]:
        """What the form holds now (to keep it when the screen is written again in another language)."""
        form: dict[str, Any] = {
            "options": self.query_one("#options", Input).value,
            "challenge": self.query_one("#challenge", Input).value,
        }
        for key in ("rules", "pace", "saved", *(f"kind-{i}" for i in range(MAX_SEATS))):
            form[key] = self.query_one(f"#{key}", Select).value
        for i in range(MAX_SEATS):
            form[f"name-{i}"] = self.query_one(f"#name-{i}", Input).value
        form["reasoning"] = self.query_one("#reasoning", Checkbox).value
        return form

    def relabel(self) -> None:
        """Write the screen again in the current language, keeping what the form holds."""
        self.kept_form = self._form()
        self.call_later(self._rebuild)

    async def _rebuild(self, focus: str = "#language") -> None:
        await self.recompose()
        self._describe()
        self.query_one(focus).focus()

    def _describe(self) -> None:
        name = self.query_one("#rules", Select).value
        if not isinstance(name, str):
            return
        self.query_one("#rules-info", Static).update(options_text(name))

    def on_select_changed(self, event: Select.Changed) -> None:
        """Follow the rule-set and theme choices."""
        if event.select.id == "rules":
            self._describe()
        elif event.select.id == "theme" and event.value != self.app.settings.get("theme"):
            self.app.action_toggle_theme()
        elif event.select.id == "language" and isinstance(event.value, str) and event.value != i18n.current_language():
            self.app.switch_language(event.value)

    def on_input_submitted(self) -> None:
        """Enter in a text field starts the game."""
        self.action_start()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Start, resume or quit."""
        if event.button.id == "start":
            self.action_start()
        elif event.button.id == "resume":
            self.action_resume()
        elif event.button.id == "delete":
            self.action_delete()
        elif event.button.id == "scores":
            self.action_scores()
        elif event.button.id == "quit":
            self.app.exit(0)

    def action_scores(self) -> None:
        """The high scores of the rule set chosen."""
        name = self.query_one("#rules", Select).value
        self.app.push_screen(ScoresScreen(name if isinstance(name, str) else None))

    def say(self, text: str) -> None:
        """Show a message under the form."""
        self.query_one("#message", Static).update(escape(text))

    def seats(self) -> list[Seat]:
        """The players entered, in seat order."""
        out = []
        for i in range(MAX_SEATS):
            name = self.query_one(f"#name-{i}", Input).value.strip()
            kind = self.query_one(f"#kind-{i}", Select).value
            if not name:
                continue
            if isinstance(kind, str) and kind.startswith("computer:"):
                out.append(Seat(name, SeatKind.COMPUTER, kind.partition(":")[2]))
            else:
                out.append(Seat(name))
        return out

    def _remember(self) -> None:
        app = self.app
        pace = self.query_one("#pace", Select).value
        if isinstance(pace, float | int):
            app.save_setting("pace", float(pace))
        app.save_setting("reasoning", self.query_one("#reasoning", Checkbox).value)
        app.save_setting("challenge", self.query_one("#challenge", Input).value.strip())

    def action_start(self) -> None:
        """Check the form and start a new game."""
        app = self.app
        name = self.query_one("#rules", Select).value
        try:
            if not isinstance(name, str):
                raise RuleSetError(_("Choose a rule set."))
            rules = rules_from_form(name, self.query_one("#options", Input).value)
            seats = self.seats()
            if not seats:
                raise FiveDiceError(_("Enter at least one player's name."))
            typed = self.query_one("#challenge", Input).value.strip()
            session = app.new_session(rules, seats, challenge_code(typed) if typed else None)
        except FiveDiceError as exc:
            self.say(str(exc))
            return
        self._remember()
        app.save_setting("rules", rules.spec)
        if app.store is not None:
            try:
                app.store.remember_players(seats)
            except FiveDiceError as exc:
                app.store_error = str(exc)
        app.show_game(session)

    def action_resume(self) -> None:
        """Resume the saved game chosen."""
        value = self.query_one("#saved", Select).value
        if not isinstance(value, str):
            self.say(_("There is no saved game to resume."))
            return
        try:
            session = self.app.load_session(Path(value))
        except FiveDiceError as exc:
            self.say(str(exc))
            return
        self._remember()
        self.app.show_game(session)

    def action_delete(self) -> None:
        """Delete the saved game chosen (a second press confirms)."""
        value = self.query_one("#saved", Select).value
        if not isinstance(value, str):
            self.say(_("There is no saved game to delete."))
            return
        if self.confirm_delete != value:
            self.confirm_delete = value
            self.say(_("Press Delete again to delete {path} for good.", path=value))
            return
        delete_save(Path(value))
        self.confirm_delete = None
        self.kept_form = self._form()
        self.kept_form.pop("saved", None)
        self.message = _("Deleted {path}.", path=value)
        self.call_later(self._rebuild, "#saved")

    def action_help(self) -> None:
        """The keys of the game."""
        self.app.push_screen(HelpScreen())
