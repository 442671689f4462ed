"""The plain line mode: a whole game in lines of text on stdin/stdout.

Usable from a pipe and a screen reader: numbered prompts, one line per event, the score cards
after each turn, no colour and no cursor movement. It is a thin view over a
:class:`~fivedice.table.Table`: the table rolls (from its dice tape), plays the computer seats,
decides what undo may take back and tells what happened; this module reads commands, passes them
on and prints the table's events in the reader's language.

When the input ends before the game does (end of a file, a terminal closed), or SIGHUP or
SIGTERM arrives, a game the player moved in is saved to the saves folder (or back to the
file it was loaded from) and the session says where; ``quit`` leaves without saving.
"""

from __future__ import annotations

import difflib
import signal
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TextIO

from fivedice import hangup
from fivedice.dice import parse_dice
from fivedice.engine import saves
from fivedice.engine.render import score_table, standings_text
from fivedice.engine.state import Phase
from fivedice.errors import FiveDiceError
from fivedice.i18n import (
    N_,
    SOURCE_LANGUAGE,
    _,
    box_label,
    current_language,
    fold,
    format_decimal,
    format_percent,
    ngettext,
    pgettext,
)
from fivedice.rules import RuleSet
from fivedice.services import chancejobs
from fivedice.services.advice import describe
from fivedice.table import By, Table
from fivedice.table.challenge import NO_HINTS, AimKind, aim_for, report, report_lines
from fivedice.table.driver import Driver
from fivedice.table.events import Event, Rolled, Scored, narrate
from fivedice.table.seat import Seat, parse_seats
from fivedice.table.steps import Automatic, HumanTurn, Prepare, Step

__all__ = ["HELP", "PlainSession", "ask_players", "play_plain"]

HELP = N_("""Commands:
  roll            roll every die again (Enter rolls a turn's first roll)
  keep 3 3 5      keep dice showing these faces, roll the others
  hold 1 4        keep dice by position (1 = first die), roll the others
  BOX             fill a box, e.g. 'full house' or 'score chance' (card N: '2 chance')
  options         list the boxes you may fill now and their points
  hint            the advisor's best options, with what each would cost
  card            show the score cards
  undo / redo     take back / replay your last decision (a roll once seen stays)
  save FILE       save the game as JSON (resume with --load FILE)
  help            this list
  quit            stop (the game is not saved unless you saved it)""")
"""The command list (English; show it as ``_(HELP)``)."""


_QUIT = ("quit", "exit", "q")
_ENGLISH_WORDS = frozenset({"", "roll", "r", "keep", "k", "hold", "h", "help", "?", "options", "o", "card", "undo"})
_ENGLISH_WORDS |= {"redo", "save", "score", "hint", *_QUIT}
_COMMANDS = ("roll", "keep", "hold", "score", "options", "hint", "card", "undo", "redo", "save", "help", "quit")

FAR_BELOW = 20
"""A box scoring this many points less than the best box now is confirmed, like a zero."""


def local_commands() -> dict[str, str]:
    """The command words of the current language (folded) -> the English command.

    The English words work in every language; a local word that is also a box's name names the box."""
    words = {
        pgettext("command", "roll"): "roll",
        pgettext("command", "keep"): "keep",
        pgettext("command", "hold"): "hold",
        pgettext("command", "score"): "score",
        pgettext("command", "options"): "options",
        pgettext("command", "hint"): "hint",
        pgettext("command", "card"): "card",
        pgettext("command", "undo"): "undo",
        pgettext("command", "redo"): "redo",
        pgettext("command", "save"): "save",
        pgettext("command", "help"): "help",
        pgettext("command", "quit"): "quit",
    }
    return {fold(word): command for word, command in words.items() if fold(word) not in _ENGLISH_WORDS}


class _Quit(Exception):
    """The player asked to stop."""


class _EndOfInput(Exception):
    """Input ended."""


class _Stopped(Exception):
    """A signal asked the session to stop, or the terminal went away (``signum`` None)."""

    def __init__(self, signum: int | None) -> None:
        super().__init__(signum)
        self.signum = signum


class PlainSession:
    """Drives a :class:`Table` from text commands; ``physical`` asks for the dice rolled at a real table.

    With ``confirm``, a box that would score zero, or :data:`FAR_BELOW` points less than the best box
    now, is filled only after the player answers yes (against a computer a score cannot be taken back).

    If the game stops unfinished other than by ``quit``, it is saved to ``save_to`` (the file it
    was loaded from), else to a new file in :func:`fivedice.engine.saves.saves_dir`, if the player
    moved in it."""

    def __init__(
        self,
        table: Table,
        out: TextIO,
        read: Callable[[str], str | None],
        physical: bool = False,
        save_to: Path | None = None,
        best: Callable[[str, RuleSet], int | None] | None = None,
        confirm: bool = True,
    ) -> None:
        self.table = table
        self.best = best
        """Looks up a player's best total (the score store's): alone, the player plays to beat it."""
        self.confirm = confirm
        self.out = out
        self.read = read
        self.physical = physical
        self.save_to = save_to
        self.prompts = 0
        self.played = False
        self.signum: int | None = None
        self._waiting = False
        table.listen(self._on_event)

    def say(self, text: str = "") -> None:
        """Print a line (or lines)."""
        try:
            print(text, file=self.out, flush=True)
        except OSError:  # the terminal is gone
            raise _Stopped(None) from None

    def ask(self, label: str) -> str:
        """A numbered prompt; raises at end of input."""
        self.prompts += 1
        self._waiting = True
        try:
            if self.signum is not None:
                raise _Stopped(self.signum)
            line = self.read(f"[{self.prompts}] {label}> ")
        except OSError:  # the terminal is gone
            raise _Stopped(None) from None
        finally:
            self._waiting = False
        if line is None:
            raise _EndOfInput
        return line

    def stop(self, signum: int) -> None:
        """Stop because of signal ``signum`` (call it from the signal's handler): at once while
        waiting for input, else before the next prompt, so no command is ever cut in half."""
        self.signum = signum
        if self._waiting:
            raise _Stopped(signum)

    # -- what the table tells -------------------------------------------------------------
    def _on_event(self, event: Event) -> None:
        table = self.table
        self.say(narrate(event, table.rules))
        if isinstance(event, Rolled) and table.human_to_move:
            self.say(self._options_line())
        elif isinstance(event, Scored) and not table.is_over:
            self.say(score_table(table.state))

    # -- the loop -------------------------------------------------------------------------
    def run(self) -> int:
        """Play until the game ends (0), the player quits (0), input ends (1) or a signal stops
        it (128 + the signal's number); an unfinished game is saved as :meth:`save_unfinished` says."""
        table = self.table
        who = ", ".join(s.name + (f" ({s.level})" if s.is_computer else "") for s in table.seats)
        self.say(
            _(
                "{title} ({spec}) for {players}. Type 'help' for commands.",
                title=_(table.rules.title),
                spec=table.rules.spec,
                players=who,
            )
        )
        if table.challenge is not None:
            self.say(_("Challenge {code}: every player of it meets the same dice.", code=table.challenge))
        aim = aim_for(table, self.best)  # a resumed game plays to the same goal as before its save
        if aim is not None:
            table.goal = aim.total
            if aim.kind is AimKind.BENCHMARK:
                self.say(
                    _(
                        "Your goal: beat {total}, what the {level} player scored on these dice.",
                        total=aim.total,
                        level=aim.level,
                    )
                )
            else:
                self.say(_("Beat your best: {best}", best=aim.total))
        try:
            while not table.is_over:
                self._turn()
        except _Quit:
            self.say(_("Goodbye."))
            return 0
        except _EndOfInput:
            return self._leave(_("Input ended before the game finished."), 1)
        except KeyboardInterrupt:  # Ctrl+C: the player stops the game; it is kept like any other stop
            return self._leave(_("Stopped by {signal}.", signal="SIGINT"), hangup.exit_code(signal.SIGINT))
        except _Stopped as stop:
            note = None
            if stop.signum is not None:
                note = _("Stopped by {signal}.", signal=signal.Signals(stop.signum).name)
            return self._leave(note, hangup.exit_code(stop.signum))
        self.say(score_table(table.state))
        self.say(standings_text(table.state))
        if table.challenge is not None:
            for line in report_lines(report(table)):
                self.say(line)
        for line in split_lines(table):
            self.say(line)
        return 0

    def _leave(self, note: str | None, code: int) -> int:
        """Save the unfinished game, say so (if the output still works) and return ``code``."""
        lines = [note] if note else []
        try:
            path = self.save_unfinished()
        except OSError as exc:
            lines.append(_("The game could not be saved: {reason}.", reason=exc.strerror or str(exc)))
        else:
            if path is not None:
                command = saves.resume_command(path, plain=True)
                lines.append(_("The game is saved in {path}; resume it with: {command}", path=path, command=command))
        try:
            for line in lines:
                self.say(line)
        except _Stopped:
            pass
        return code

    def save_unfinished(self) -> Path | None:
        """Save the game if it is unfinished and the player moved in it: to ``save_to``, else to a
        new file in the saves folder. Returns where the game is saved (also when it was loaded from
        a file and not moved since), None if it is not. Raises OSError if it cannot be written."""
        if self.table.is_over:
            return None
        if not self.played:
            return self.save_to
        path = self.save_to or saves.new_save_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        self.table.save(path)
        return path

    def _turn(self) -> None:
        """One step: the table's automatic and computer actions (the driver), or one command of the player to act."""
        table = self.table
        step = _PlainDriver(self).run_sync()
        if isinstance(step, Automatic):  # a turn's first roll of physical dice: their faces are asked
            self._roll((), by=By.AUTO)
            return
        if not isinstance(step, HumanTurn):
            return
        state = table.state
        if state.dice is None:
            label = _("{player}, Enter rolls (roll 1 of {rolls})", player=state.current_player, rolls=state.rules.rolls)
        else:
            label = _(
                "{player}, roll {roll} of {rolls}",
                player=state.current_player,
                roll=state.rolls,
                rolls=state.rules.rolls,
            )
        line = self.ask(label)
        try:
            self.command(line.strip())
        except FiveDiceError as exc:
            self.say(_("Error: {message}", message=exc))

    def _roll(self, held: tuple[int, ...], by: By = By.SEAT) -> None:
        table = self.table
        table.verify_roll(held)
        typed = None
        if self.physical and (count := table.dice_needed(held)):
            typed = self._typed_dice(count)
            if typed is None:
                return
            self.played = True
        table.roll(held, typed, by)

    def _typed_dice(self, count: int) -> tuple[int, ...] | None:
        """Ask for the faces of ``count`` physical dice, again after a typo; the usual commands work
        here too (None: one ran)."""
        while True:
            line = self.ask(ngettext("type the {n} die rolled", "type the {n} dice rolled", count, n=count)).strip()
            word = self._word(line)
            if word in ("undo", "redo", "save", "card", "help", "options", "hint", "quit"):
                self.command(line)
                return None
            try:
                return parse_dice(line, count).values
            except FiveDiceError as exc:  # a typo at a real table: say so and ask again
                self.say(_("Error: {message}", message=exc))

    def _word(self, line: str) -> str:
        word = line.partition(" ")[0].lower()
        if word not in _ENGLISH_WORDS and not self._names_box(line):
            word = local_commands().get(fold(word), word)
        return _QUIT[0] if word in _QUIT else word

    def command(self, line: str) -> None:
        """Carry out one command line; raises on bad input, changing nothing."""
        game = self.table.game
        moves = (game.log, game.redo_stack)
        try:
            self._command(line)
        finally:
            self.played = self.played or moves != (game.log, game.redo_stack)

    def _command(self, line: str) -> None:
        table = self.table
        word = self._word(line)
        rest = line.partition(" ")[2]
        if word in ("", "roll", "r"):
            if not line and table.state.dice is not None:
                self.say(_("Type 'roll', 'keep' dice, or a box to score; 'help' lists every command."))
                return
            self._roll(())
        elif word in ("keep", "k"):
            _say_which(rest, _("Say which dice to keep, e.g. 'keep 3 3 5'; 'roll' rolls them all."))
            self._roll(table.state.positions_of(list(parse_dice(rest, None).values)))
        elif word in ("hold", "h"):
            _say_which(rest, _("Say which dice to hold by position, e.g. 'hold 1 4'; 'roll' rolls them all."))
            self._roll(tuple(sorted(p - 1 for p in _positions(rest, table.rules.dice))))
        elif word in ("help", "?"):
            self.say(_(HELP))
        elif word in ("options", "o"):
            self.say(self._options_line())
        elif word == "hint":
            self._hint()
        elif word == "card":
            self.say(score_table(table.state))
        elif word == "undo":
            table.undo()
            self._show_position()
        elif word == "redo":
            table.redo()
            self._show_position()
        elif word == "save":
            self._save(rest.strip())
        elif word == "quit":
            raise _Quit
        else:
            self._score(line)

    def _save(self, path: str) -> None:
        if not path:
            self.say(_("Error: say where to save, e.g. 'save game.json'."))
            return
        self.table.save(path)  # a SaveError (one sentence, nothing written) is shown like any bad input
        self.say(_("Saved to {path}.", path=path))

    def _hint(self) -> None:
        if self.table.challenge is not None:
            raise FiveDiceError(_(NO_HINTS))
        advice = self.table.hint()
        rules = self.table.rules
        for option in advice.options[:5]:
            if advice.source == "solver":
                text = _(
                    "{option}: {value} points to come, loses {loss}",
                    option=describe(option, rules),
                    value=format_decimal(option.value, 2),
                    loss=format_decimal(option.loss, 2),
                )
                if option.win is not None:
                    text += "; " + _("chance to win {chance}", chance=format_percent(option.win, 1))
                elif option.beat is not None:
                    chance = format_percent(option.beat, 1)
                    text += "; " + _("chance to beat {goal}: {chance}", goal=advice.goal, chance=chance)
            else:
                points = option.points or 0
                text = ngettext(
                    "{option}: {points} point now",
                    "{option}: {points} points now",
                    points,
                    option=describe(option, rules),
                    points=points,
                )
            self.say(text)
        note = self.table.chances_note()
        if note is not None:
            self.say(note)

    def _options_line(self) -> str:
        state = self.table.state
        multi = len(state.rules.cards) > 1
        parts = [f"{f'{k + 1} ' if multi else ''}{self._typed(box)} {pts}" for (k, box), pts in state.options().items()]
        return _("Options: {options}", options=", ".join(parts))

    def _typed(self, name: str) -> str:
        """What a player types for a box: its name in English, its label in other languages."""
        return name if current_language() == SOURCE_LANGUAGE else box_label(self.table.rules.box(name)).lower()

    def _show_position(self) -> None:
        state = self.table.state
        if state.dice is not None and state.phase is Phase.PLAY:
            self.say(
                _(
                    "{player}, roll {roll} of {rolls}: {dice}",
                    player=state.current_player,
                    roll=state.rolls,
                    rolls=state.rules.rolls,
                    dice=" ".join(map(str, state.dice)),
                )
            )

    def _names_box(self, line: str) -> bool:
        try:
            self.table.rules.box(line)
        except FiveDiceError:
            return False
        return True

    def _score(self, line: str) -> None:
        table = self.table
        text = line[6:] if line.lower().startswith("score ") else line
        first, _sep, rest = text.partition(" ")
        if rest and not self._names_box(text) and local_commands().get(fold(first)) == "score":
            text = rest
        card = 0
        first, _sep, rest = text.partition(" ")
        if len(table.rules.cards) > 1 and first.isdigit() and rest:
            card, text = int(first) - 1, rest
        if not self._names_box(text):
            self._suggest_command(line)
        table.verify_score(text, card)
        if self.confirm and not self._confirmed(text, card):
            self.say(_("Not scored."))
            return
        table.score(text, card)

    def _suggest_command(self, line: str) -> None:
        """Raise "did you mean" if the line's first word is a misspelt command (``kep 5``)."""
        word = fold(line.partition(" ")[0])
        words = {command: command for command in _COMMANDS} | local_commands()
        close = difflib.get_close_matches(word, list(words), n=1, cutoff=0.7)
        if close and word not in words:
            raise FiveDiceError(
                _("Command {word!r} is unknown; did you mean {close!r}?", word=line.partition(" ")[0], close=close[0])
            )

    def _confirmed(self, box: str, card: int) -> bool:
        """Whether the player means to fill ``box``: asked only if it scores zero or far below the best."""
        table = self.table
        rules = table.rules
        name = rules.boxes[rules.box_index(box)].name
        options = table.state.options()
        points = options[(card, name)]
        best = max(options.values())
        if points > 0 and best - points < FAR_BELOW:
            return True
        label = box_label(rules.box(name))
        answer = self.ask(_("Score {points} in {box}? yes or no", points=points, box=label))
        return fold(answer.strip()) in {"yes", "y", fold(pgettext("answer", "yes")), fold(pgettext("answer", "y"))}


def _say_which(rest: str, message: str) -> None:
    """Refuse ``keep``/``hold`` without dice: rolling every die is what ``roll`` says."""
    if not rest.strip():
        raise FiveDiceError(message)


def split_lines(table: Table) -> list[str]:
    """Each player's score split into the optimal mean, luck and decisions (none where the solver cannot
    rate the rules)."""
    if table.rules.solver_refusal() is not None:
        return []
    from fivedice.services.analysis import analyze, split_line  # the solver: only when a game ends

    try:
        analysis = analyze(table.game)
    except FiveDiceError:
        return []
    return [_("Luck and decisions:"), *(split_line(p) for p in analysis.players)]


class _PlainDriver(Driver):
    """The driver of the line mode: it says what a computer waits for, and hands over a turn's first roll
    of physical dice (whose faces the player types)."""

    def __init__(self, session: PlainSession) -> None:
        super().__init__(session.table)
        self.session = session

    def hands_over(self, step: Step) -> bool:
        """A person's turn, the end, and an automatic roll of physical dice never seen."""
        physical = self.session.physical and isinstance(step, Automatic) and self.session.table.dice_needed() > 0
        return physical or super().hands_over(step)

    async def prepare(self, step: Prepare) -> None:
        """Say what the computer waits for (its chances, prepared once: a few minutes), then wait."""
        self.session.say(chancejobs.describe(step.job))
        await super().prepare(step)


def _positions(text: str, dice: int) -> list[int]:
    """Die positions as players say them (1 = the first die), checked to be whole numbers."""
    out = []
    for word in text.replace(",", " ").split():
        if not word.isdigit():
            raise FiveDiceError(
                _("Die position {position!r} is not a die; expected 1 to {last}.", position=word, last=dice)
            )
        out.append(int(word))
    return out


def ask_players(read: Callable[[str], str | None], say: Callable[[str], None]) -> tuple[Seat, ...] | None:
    """Ask for the players (comma-separated; ``Max:optimal`` is a computer); None at end of input."""
    while True:
        default = _("Player")
        line = read(_("Players (names separated by commas; Name:level for a computer) [{default}]> ", default=default))
        if line is None:
            return None
        try:
            seats = parse_seats(line) or (Seat(default),)
        except FiveDiceError as exc:
            say(_("Error: {message}", message=exc))
            continue
        if len({s.name.lower() for s in seats}) == len(seats):
            return seats
        say(_("Error: each player needs a different name."))


def play_plain(
    rules: RuleSet,
    players: str | None,
    out: TextIO,
    read: Callable[[str], str | None],
    *,
    seed: int | None = None,
    physical: bool = False,
    load: str | None = None,
    challenge: str | None = None,
    on_finish: Callable[[Table], None] | None = None,
    stop_signals: Iterable[int] = (),
    best: Callable[[str, RuleSet], int | None] | None = None,
    chances: bool = True,
    confirm: bool = True,
) -> int:
    """Run a whole plain-mode game; returns the exit code. ``players`` is ``"Ann,Max:optimal"`` (None: ask);
    ``on_finish`` receives the table if the game ends (e.g. to store it with the high scores). Each of
    ``stop_signals`` (the command line gives SIGHUP and SIGTERM) saves the game in progress and ends.
    ``best`` looks up a player's best total (the score store's): alone, the player then plays to beat it,
    and hints give each option's chance of that (``chances=False``: hints without chances). With ``confirm``
    a zero, or a box far below the best, is filled only after a yes."""
    if load is not None:
        table = Table.load(load)
    else:
        seats = parse_seats(players) if players is not None else ask_players(read, lambda s: print(s, file=out))
        if seats is None:
            print(_("Input ended before the game started."), file=out)
            return 1
        table = Table(rules, seats, seed=seed, challenge=challenge)
    table.chances = chances
    save_to = Path(load) if load is not None else None
    session = PlainSession(table, out, read, physical, save_to=save_to, best=best, confirm=confirm)
    with hangup.on_signals(session.stop, stop_signals):
        code = session.run()
    if table.is_over and on_finish is not None:
        on_finish(table)
    return code
