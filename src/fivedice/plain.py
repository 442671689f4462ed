"""The plain line mode: a whole game in lines of text on stdin/stdout.

Usable from a pipe and a screen reader: numbered prompts, one line per event, the
score card after each turn, no colour and no cursor movement. Every rule is the
engine's; this module only reads commands and prints states.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from fivedice import saves
from fivedice.actions import Roll, RollOff, Score
from fivedice.dice import parse_dice
from fivedice.errors import FiveDiceError
from fivedice.game import Game
from fivedice.i18n import N_, SOURCE_LANGUAGE, _, box_label, current_language, fold, ngettext, pgettext
from fivedice.render import score_table, standings_text
from fivedice.rules import RuleSet
from fivedice.state import Phase

__all__ = ["HELP", "PlainSession", "ask_players"]

HELP = N_("""Commands:
  roll            roll every die again
  keep 3 3 5      keep dice showing these faces, roll the others
  hold 1 4        keep dice by position (1 = first die), roll the others
  BOX             fill a box, e.g. 'full house' or 'score chance' (card N: '2 chance')
  options         list the boxes you may fill now and their points
  card            show the score cards
  undo / redo     take back / replay the last action
  save FILE       save the game as JSON (resume with --load FILE)
  help            this list
  quit            stop (the game is not saved unless you saved it)""")
"""The command list (English; show it as ``_(HELP)``)."""


_QUIT = ("quit", "exit", "q")
_ENGLISH_WORDS = frozenset({"", "roll", "r", "keep", "k", "hold", "h", "help", "?", "options", "o", "card", "undo"})
_ENGLISH_WORDS |= {"redo", "save", "score", *_QUIT}


def local_commands() -> dict[str, str]:
    """The command words of the current language (folded) -> the English command.

    The English words work in every language; a local word that is also a box's name names the box."""
    words = {
        pgettext("command", "roll"): "roll",
        pgettext("command", "keep"): "keep",
        pgettext("command", "hold"): "hold",
        pgettext("command", "score"): "score",
        pgettext("command", "options"): "options",
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


class PlainSession:
    """Drives a :class:`Game` from text commands; ``physical`` asks for typed-in dice."""

    def __init__(self, game: Game, out: TextIO, read: Callable[[str], str | None], physical: bool = False) -> None:
        self.game = game
        self.out = out
        self.read = read
        self.physical = physical
        self.prompts = 0

    def say(self, text: str = "") -> None:
        """Print a line (or lines)."""
        print(text, file=self.out, flush=True)

    def ask(self, label: str) -> str | None:
        """A numbered prompt; None at end of input."""
        self.prompts += 1
        return self.read(f"[{self.prompts}] {label}> ")

    # -- the loop -----------------------------------------------------------------------
    def run(self) -> int:
        """Play until the game ends (0), the player quits (0) or input ends (1)."""
        try:
            return self._run()
        except _Quit:
            self.say(_("Goodbye."))
            return 0

    def _run(self) -> int:
        g = self.game
        self.say(
            _(
                "{title} ({spec}) for {players}. Type 'help' for commands.",
                title=_(g.rules.title),
                spec=g.rules.spec,
                players=", ".join(g.players),
            )
        )
        while not g.is_over:
            state = g.state
            if state.phase is Phase.ROLLOFF or state.dice is None:
                if not self._auto_roll():
                    return 1
                continue
            line = self.ask(
                _(
                    "{player}, roll {roll} of {rolls}",
                    player=state.current_player,
                    roll=state.rolls,
                    rolls=g.rules.rolls,
                )
            )
            if line is None:
                self.say(_("Input ended before the game finished."))
                return 1
            try:
                self.command(line.strip())
            except FiveDiceError as exc:
                self.say(_("Error: {message}", message=exc))
        self.say(_("Game over."))
        self.say(score_table(g.state))
        self.say(standings_text(g.state))
        return 0

    def _outcome(self, count: int) -> tuple[int, ...] | None:
        while True:
            line = self.ask(ngettext("type the {n} die rolled", "type the {n} dice rolled", count, n=count))
            if line is None:
                return None
            if line.strip().lower() in _QUIT or local_commands().get(fold(line)) == "quit":
                raise _Quit
            try:
                return parse_dice(line, count).values
            except FiveDiceError as exc:
                self.say(_("Error: {message}", message=exc))

    def _roll(self, held: tuple[int, ...]) -> bool:
        g = self.game
        g.verify_roll(held)
        dice = None
        if self.physical:
            rolled = self._outcome(g.rules.dice - len(held))
            if rolled is None:
                return False
            it = iter(rolled)
            current = g.state.dice or ()
            dice = tuple(current[p] if p in held else next(it) for p in range(g.rules.dice))
        record = g.roll(held, dice)
        self._report(record)
        return True

    def _auto_roll(self) -> bool:
        """Roll-off rolls and each turn's first roll need no decision."""
        g = self.game
        state = g.state
        if state.phase is Phase.PLAY and state.rolls == 0 and state.dice is None:
            self.say(_("Round {round}: {player} to play.", round=state.round, player=state.current_player))
        if not self._roll(()):
            self.say(_("Input ended before the game finished."))
            return False
        return True

    def _report(self, record: object, who: str = "") -> None:
        g = self.game
        state = g.state
        if isinstance(record, RollOff):
            assert record.dice is not None
            self.say(
                _(
                    "Roll-off: {player} rolls {dice} ({total}).",
                    player=g.players[record.seat],
                    dice=" ".join(map(str, record.dice)),
                    total=sum(record.dice),
                )
            )
            if state.phase is Phase.PLAY and state.starter is not None:
                self.say(_("{player} starts.", player=g.players[state.starter]))
            elif not state.rolloff and len(state.contenders) < len(g.players):
                names = ", ".join(g.players[s] for s in state.contenders)
                self.say(_("Tie: {players} roll off again.", players=names))
        elif isinstance(record, Roll):
            assert record.dice is not None
            dice = " ".join(map(str, record.dice))
            self.say(_("Roll {roll} of {rolls}: {dice}", roll=state.rolls, rolls=g.rules.rolls, dice=dice))
            self.say(self._options_line())
        elif isinstance(record, Score):
            label = box_label(g.rules.box(record.box))
            if len(g.rules.cards) > 1:
                text = _(
                    "{player} scores {points} in {box} on card {card}.",
                    player=who,
                    points=record.points,
                    box=label,
                    card=record.card + 1,
                )
            else:
                text = _("{player} scores {points} in {box}.", player=who, points=record.points, box=label)
            self.say(text)
            if not state.is_over:
                self.say(score_table(state))

    def _options_line(self) -> str:
        state = self.game.state
        multi = len(self.game.rules.cards) > 1
        parts = [f"{f'{k + 1} ' if multi else ''}{self._typed(box)} {pts}" for (k, box), pts in state.options().items()]
        return _("Options: {options}", options=", ".join(parts))

    def _typed(self, name: str) -> str:
        """What a player types for a box: its name in English, its label in other languages."""
        return name if current_language() == SOURCE_LANGUAGE else box_label(self.game.rules.box(name)).lower()

    def command(self, line: str) -> None:
        """Carry out one command line; raises on bad input, changing nothing."""
        g = self.game
        word, _sep, rest = line.partition(" ")
        word = word.lower()
        if word not in _ENGLISH_WORDS and not self._names_box(line):
            word = local_commands().get(fold(word), word)
        if word in ("", "roll", "r"):
            if not line:
                self.say(_("Type 'roll', 'keep' dice, or a box to score; 'help' lists every command."))
                return
            self._roll(())
        elif word in ("keep", "k"):
            self._roll(g.keep_values(list(parse_dice(rest, None).values)))
        elif word in ("hold", "h"):
            self._roll(tuple(sorted(int(p) - 1 for p in parse_dice(rest, None).values)))
        elif word in ("help", "?"):
            self.say(_(HELP))
        elif word in ("options", "o"):
            self.say(self._options_line())
        elif word == "card":
            self.say(score_table(g.state))
        elif word == "undo":
            self.say(_("Undone: {action}.", action=g.undo()))
            self._show_position()
        elif word == "redo":
            self.say(_("Redone: {action}.", action=g.redo()))
            self._show_position()
        elif word == "save":
            if not rest.strip():
                self.say(_("Error: say where to save, e.g. 'save game.json'."))
                return
            saves.save(g, rest.strip())
            self.say(_("Saved to {path}.", path=rest.strip()))
        elif word in _QUIT:
            raise _Quit
        else:
            self._score(line)

    def _show_position(self) -> None:
        state = self.game.state
        if state.dice is not None:
            self.say(
                _(
                    "{player}, roll {roll} of {rolls}: {dice}",
                    player=state.current_player,
                    roll=state.rolls,
                    rolls=self.game.rules.rolls,
                    dice=" ".join(map(str, state.dice)),
                )
            )

    def _names_box(self, line: str) -> bool:
        try:
            self.game.rules.box(line)
        except FiveDiceError:
            return False
        return True

    def _score(self, line: str) -> None:
        g = self.game
        text = line[6:] if line.lower().startswith("score ") else line
        first, _sep, rest = text.partition(" ")
        if rest and not self._names_box(text) and local_commands().get(fold(first)) == "score":
            text = rest
        card = 0
        first, _sep, rest = text.partition(" ")
        if len(g.rules.cards) > 1 and first.isdigit() and rest:
            card, text = int(first) - 1, rest
        g.verify_score(text, card)
        who = g.state.current_player or ""
        self._report(g.score(text, card), who)


def ask_players(read: Callable[[str], str | None], say: Callable[[str], None]) -> list[str] | None:
    """Ask for the players' names (comma-separated); None at end of input."""
    while True:
        default = _("Player")
        line = read(_("Players (names separated by commas) [{default}]> ", default=default))
        if line is None:
            return None
        names = [n.strip() for n in line.split(",") if n.strip()] or [default]
        if len({n.lower() for n in names}) == len(names):
            return names
        say(_("Error: each player needs a different name."))


def play_plain(
    rules: RuleSet,
    players: list[str] | None,
    out: TextIO,
    read: Callable[[str], str | None],
    *,
    seed: int | None = None,
    physical: bool = False,
    load: str | None = None,
    on_finish: Callable[[Game], None] | None = None,
) -> int:
    """Run a whole plain-mode game; returns the exit code. ``on_finish`` receives the game
    if it ends (e.g. to store it with the high scores)."""
    if load is not None:
        game = saves.load(load)
    else:
        if players is None:
            players = ask_players(read, lambda s: print(s, file=out))
            if players is None:
                print(_("Input ended before the game started."), file=out)
                return 1
        game = Game(rules, players, seed=seed)
    code = PlainSession(game, out, read, physical).run()
    if game.is_over and on_finish is not None:
        on_finish(game)
    return code
