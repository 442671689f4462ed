"""The immutable :class:`GameState` and the pure transition ``state.apply(action)``.

Every rule check happens here, once: :meth:`GameState.verify` raises a one-sentence
:class:`~fivedice.errors.IllegalActionError` naming the value and why, and
:meth:`GameState.apply` returns the next state for a completed action record.
"""

from __future__ import annotations

import enum
import itertools
from dataclasses import dataclass, replace
from functools import cached_property

from fivedice.dice import FACES, DiceRoller, counts_of, multisets
from fivedice.engine.actions import Action, Roll, RollOff, Score
from fivedice.engine.scorecard import Scorecard
from fivedice.errors import FiveDiceError, IllegalActionError
from fivedice.i18n import _, box_name, ngettext
from fivedice.rules.ruleset import RuleSet

__all__ = ["GameState", "Phase", "Standing"]


class Phase(enum.Enum):
    """Where a game is: deciding who starts, playing turns, or over."""

    ROLLOFF = "rolloff"
    PLAY = "play"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's final place (shared on ties), seat, name and total."""

    place: int
    seat: int
    name: str
    total: int


@dataclass(frozen=True)
class GameState:
    """Everything about a game at one moment; immutable, compared by value.

    ``current`` is the seat to act (the next roller during the roll-off);
    ``dice`` is None until the turn's first roll; ``rolls`` counts this turn's rolls.
    """

    rules: RuleSet
    players: tuple[str, ...]
    cards: tuple[tuple[Scorecard, ...], ...]
    phase: Phase
    current: int
    starter: int | None = None
    contenders: tuple[int, ...] = ()
    rolloff: tuple[tuple[int, int], ...] = ()
    dice: tuple[int, ...] | None = None
    rolls: int = 0
    turns: int = 0
    instant_winner: int | None = None

    @classmethod
    def new(cls, rules: RuleSet, players: tuple[str, ...], starter: int | None = None) -> GameState:
        """A fresh game; with several players and no ``starter`` it opens with a roll-off."""
        if not players:
            raise IllegalActionError(_("A game needs at least one player; none were given."))
        seen: set[str] = set()
        for name in players:
            if not isinstance(name, str) or not name.strip():
                raise IllegalActionError(_("Player name {name!r} is empty; expected some text.", name=name))
            if name.strip().lower() in seen:
                raise IllegalActionError(_("Player name {name!r} is given twice; expected distinct names.", name=name))
            seen.add(name.strip().lower())
        cards = tuple(tuple(Scorecard.empty(rules, o) for o in rules.cards) for _seat in players)
        if starter is not None and not 0 <= starter < len(players):
            raise IllegalActionError(
                _("Starter seat {seat!r} is not a seat; expected 0 to {last}.", seat=starter, last=len(players) - 1)
            )
        if starter is None and len(players) == 1:
            starter = 0
        if starter is not None:
            return cls(rules, tuple(players), cards, Phase.PLAY, starter, starter=starter)
        seats = tuple(range(len(players)))
        return cls(rules, tuple(players), cards, Phase.ROLLOFF, 0, contenders=seats)

    # -- reading ------------------------------------------------------------------------
    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.phase is Phase.OVER

    @property
    def current_player(self) -> str | None:
        """The name of the player to act, or None when the game is over."""
        return None if self.is_over else self.players[self.current]

    @property
    def rolls_left(self) -> int:
        """Rolls the current player may still make this turn."""
        return self.rules.rolls - self.rolls

    def filled(self, seat: int) -> int:
        """How many boxes the player at ``seat`` has filled on all their cards."""
        return sum(len(c.entries) - len(c.open_indices) for c in self.cards[seat])

    def round_of(self, seat: int) -> int:
        """The round (1-based) of the player's current or next turn."""
        return min(self.filled(seat) + 1, self.rules.rounds)

    @property
    def round(self) -> int:
        """The current round (1-based)."""
        return self.round_of(self.current)

    def total(self, seat: int) -> int:
        """The player's grand total over all their cards."""
        return sum(c.total for c in self.cards[seat])

    @property
    def totals(self) -> tuple[int, ...]:
        """Every player's grand total, by seat."""
        return tuple(self.total(s) for s in range(len(self.players)))

    @cached_property
    def counts(self) -> tuple[int, ...]:
        """Face counts of the current dice (all zero before the first roll)."""
        return counts_of(self.dice or ())

    def options(self) -> dict[tuple[int, str], int]:
        """Every legal ``(card, box)`` for the current dice and the points it would score."""
        if self.phase is not Phase.PLAY or self.dice is None:
            return {}
        out: dict[tuple[int, str], int] = {}
        for k, card in enumerate(self.cards[self.current]):
            for i, points in card.option_indices(self.counts, self.rolls).items():
                out[(k, self.rules.boxes[i].name)] = points
        return out

    def standings(self) -> list[Standing]:
        """Players by place, best first; equal totals share a place (an instant win is first)."""
        totals = self.totals
        order = sorted(range(len(self.players)), key=lambda s: (s != self.instant_winner, -totals[s], s))
        out: list[Standing] = []
        for i, seat in enumerate(order):
            prev = out[-1] if out else None
            tied = prev is not None and prev.total == totals[seat] and prev.seat != self.instant_winner
            place = prev.place if tied and prev is not None else i + 1
            out.append(Standing(place, seat, self.players[seat], totals[seat]))
        return out

    def positions_of(self, values: tuple[int, ...] | list[int]) -> tuple[int, ...]:
        """Positions (0-based) of dice showing ``values``, e.g. to keep them by face."""
        if self.dice is None:
            raise IllegalActionError(_("No dice are showing yet; roll first."))
        free = list(range(len(self.dice)))
        out = []
        for v in values:
            match = next((p for p in free if self.dice[p] == v), None)
            if match is None:
                shown = " ".join(map(str, self.dice))
                want = " ".join(map(str, values))
                raise IllegalActionError(
                    _("Dice {want!r} are not all showing; the dice are {shown}.", want=want, shown=shown)
                )
            free.remove(match)
            out.append(match)
        return tuple(sorted(out))

    def legal_actions(self) -> list[Action]:
        """Every decision open to the current player, as intents: one roll per distinct
        keep (by face values) while rolls remain, and one score per legal box."""
        if self.phase is Phase.OVER:
            return []
        if self.phase is Phase.ROLLOFF:
            return [RollOff(self.current)]
        if self.dice is None:
            return [Roll()]
        actions: list[Action] = []
        if self.rolls_left > 0:
            n = len(self.dice)
            for size in range(n):
                for keep in sorted(set(multisets(size)) & _sub_multisets(self.dice, size)):
                    actions.append(Roll(self.positions_of(keep)))
        actions.extend(Score(box, card) for (card, box) in self.options())
        return actions

    # -- checking -----------------------------------------------------------------------
    def why_not(self, action: Action) -> str | None:
        """Why ``action`` is illegal now (a full sentence), or None if it is legal."""
        who = self.players[self.current]
        if self.phase is Phase.OVER:
            return _("The game is over; no more actions can be taken.")
        if isinstance(action, RollOff):
            if self.phase is not Phase.ROLLOFF:
                return _("The roll-off is over; the turns have begun.")
            if action.seat != self.current:
                return _(
                    "Seat {seat} cannot roll off now; it is {who}'s (seat {current}) roll.",
                    seat=action.seat,
                    who=who,
                    current=self.current,
                )
            return self._bad_dice(action.dice, None, self.rules.starting_dice)
        if self.phase is Phase.ROLLOFF:
            return _("The roll-off is under way; {who} must roll off first.", who=who)
        if isinstance(action, Roll):
            return self._why_not_roll(action, who)
        return self._why_not_score(action, who)

    def _bad_dice(self, dice: tuple[int, ...] | None, held: tuple[int, ...] | None, n: int | None = None) -> str | None:
        if dice is None:
            return None
        n = self.rules.dice if n is None else n
        if len(dice) != n or any(isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= FACES for v in dice):
            return ngettext(
                "Dice {dice!r} are not {n} whole number from 1 to {faces}.",
                "Dice {dice!r} are not {n} whole numbers from 1 to {faces}.",
                n,
                dice=" ".join(map(str, dice)),
                n=n,
                faces=FACES,
            )
        if held and self.dice is not None:
            for p in held:
                if dice[p] != self.dice[p]:
                    return _(
                        "Die {die} is kept at {kept} but the outcome shows {shown}.",
                        die=p + 1,
                        kept=self.dice[p],
                        shown=dice[p],
                    )
        return None

    def _why_not_roll(self, action: Roll, who: str) -> str | None:
        n = self.rules.dice
        if self.rolls_left <= 0:
            return ngettext(
                "{who} has used the {rolls} roll of this turn (round {round}); score a box.",
                "{who} has used all {rolls} rolls this turn (round {round}); score a box.",
                self.rules.rolls,
                who=who,
                rolls=self.rules.rolls,
                round=self.round,
            )
        for p in action.held:  # positions are 0-based in records, spoken 1-based to players
            if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p < n:
                spoken = p + 1 if isinstance(p, int) and not isinstance(p, bool) else p
                return _("Die position {position!r} is not a die; expected 1 to {last}.", position=spoken, last=n)
        if len(set(action.held)) != len(action.held):
            return _(
                "Die positions {positions} name a die twice; expected distinct positions.",
                positions=" ".join(str(p + 1) for p in action.held),
            )
        if action.held and self.dice is None:
            return _("{who} cannot keep dice before the turn's first roll.", who=who)
        if len(action.held) == n:
            return ngettext(
                "Keeping the {n} die is the same as stopping; {who} should score a box instead.",
                "Keeping all {n} dice is the same as stopping; {who} should score a box instead.",
                n,
                n=n,
                who=who,
            )
        return self._bad_dice(action.dice, action.held)

    def _why_not_score(self, action: Score, who: str) -> str | None:
        if self.dice is None:
            return _("{who} must roll before scoring (round {round}).", who=who, round=self.round)
        cards = self.cards[self.current]
        if isinstance(action.card, bool) or not isinstance(action.card, int) or not 0 <= action.card < len(cards):
            spoken = (
                action.card + 1 if isinstance(action.card, int) and not isinstance(action.card, bool) else action.card
            )
            return _(
                "Card {card!r} is not one of {who}'s cards; expected 1 to {last}.",
                card=spoken,
                who=who,
                last=len(cards),
            )
        card = cards[action.card]
        try:
            index = self.rules.box_index(action.box)
        except FiveDiceError as exc:
            return str(exc)
        reason = card.why_not(index, self.counts, self.rolls)
        if reason is not None:
            reason = reason[0].upper() + reason[1:]
            if len(cards) > 1:
                return _(
                    "{reason} for {who} on card {card} (round {round}).",
                    reason=reason,
                    who=who,
                    card=action.card + 1,
                    round=self.round,
                )
            return _("{reason} for {who} (round {round}).", reason=reason, who=who, round=self.round)
        points = card.option_indices(self.counts, self.rolls)[index]
        if action.points is not None and action.points != points:
            box = box_name(self.rules.boxes[index])
            return _(
                "Score {score!r} in {box!r} does not match the {points} that {dice} make there.",
                score=action.points,
                box=box,
                points=points,
                dice=self.dice,
            )
        return None

    def verify(self, action: Action) -> None:
        """Raise :class:`~fivedice.errors.IllegalActionError` unless ``action`` is legal."""
        reason = self.why_not(action)
        if reason is not None:
            raise IllegalActionError(reason)

    def can(self, action: Action) -> bool:
        """Whether ``action`` is legal now."""
        return self.why_not(action) is None

    # -- moving -------------------------------------------------------------------------
    def complete(self, action: Action, rolled: tuple[int, ...] | None) -> Action:
        """The record of an intent: the dice outcome (``rolled`` are the faces of the dice
        not held, in position order) and the points filled in."""
        if isinstance(action, Score):
            if action.points is not None:
                return action
            index = self.rules.box_index(action.box)
            points = self.cards[self.current][action.card].option_indices(self.counts, self.rolls)[index]
            return Score(self.rules.boxes[index].name, action.card, points)
        if action.dice is not None:
            return action
        if rolled is None:
            raise IllegalActionError(_("A roll needs its outcome; none was given."))
        if isinstance(action, RollOff):
            return RollOff(action.seat, tuple(rolled))
        new = iter(rolled)
        base = self.dice or (0,) * self.rules.dice
        dice = tuple(base[p] if p in action.held else next(new) for p in range(self.rules.dice))
        return Roll(tuple(sorted(action.held)), dice)

    def rolled_count(self, action: Action) -> int:
        """How many dice ``action`` rolls: the rule set's starting dice for a roll-off (all of them, or
        Kismet's one), the dice not held for a roll, 0 otherwise."""
        if isinstance(action, RollOff):
            return self.rules.starting_dice
        if isinstance(action, Roll):
            return self.rules.dice - len(action.held)
        return 0

    def step(self, action: Action, roller: DiceRoller | None = None) -> tuple[GameState, Action]:
        """The pure transition: verify ``action``, roll its free dice with ``roller`` if it is an intent
        without an outcome, and return the next state with the completed record.

        >>> from fivedice import rules
        >>> from fivedice.dice import RandomRoller
        >>> import random
        >>> state = GameState.new(rules.get("yacht"), ("Ann",))
        >>> state, record = state.step(Roll(), RandomRoller(random.Random(7)))
        >>> record
        Roll(held=(), dice=(3, 2, 4, 6, 1))
        >>> state.step(Score("ones"))[1]
        Score(box='ones', card=0, points=1)
        """
        self.verify(action)
        rolled = None
        if isinstance(action, RollOff | Roll) and action.dice is None:
            if roller is None:
                raise IllegalActionError(_("A roll needs its outcome; none was given."))
            rolled = roller.roll(self.rolled_count(action))
        record = self.complete(action, rolled)
        return self.apply(record), record

    def apply(self, action: Action) -> GameState:
        """The state after a completed action record (verified first)."""
        self.verify(action)
        if isinstance(action, RollOff):
            if action.dice is None:
                raise IllegalActionError(_("A roll-off record needs its dice."))
            return self._after_rolloff(action.seat, sum(action.dice))
        if isinstance(action, Roll):
            if action.dice is None:
                raise IllegalActionError(_("A roll record needs its dice."))
            return replace(self, dice=action.dice, rolls=self.rolls + 1)
        return self._after_score(action)

    def _after_rolloff(self, seat: int, total: int) -> GameState:
        rolled = (*self.rolloff, (seat, total))
        if len(rolled) < len(self.contenders):
            return replace(self, rolloff=rolled, current=self.contenders[len(rolled)])
        best = max(t for _seat, t in rolled)
        tied = tuple(s for s, t in rolled if t == best)
        if len(tied) > 1:
            return replace(self, rolloff=(), contenders=tied, current=tied[0])
        return replace(self, phase=Phase.PLAY, rolloff=(), contenders=(), current=tied[0], starter=tied[0])

    def _after_score(self, action: Score) -> GameState:
        assert self.dice is not None
        seat = self.current
        cards = list(self.cards[seat])
        before = cards[action.card]
        cards[action.card] = before.fill(action.box, self.dice, self.rolls)
        all_cards = list(self.cards)
        all_cards[seat] = tuple(cards)
        if self.rules.extra_alike_penalty and self.rules.dice in self.counts and before.holds_alike():
            for other in range(len(self.players)):  # a second Kismet: every other player loses a box
                if other != seat:
                    all_cards[other] = _forfeit(all_cards[other])
        turns = self.turns + 1
        instant = None
        if (
            self.rules.instant_win
            and self.rolls == 1
            and self.rules.box_index(action.box) == self.rules.box_index(self.rules.instant_win)
        ):
            box = self.rules.box(self.rules.instant_win)
            instant = seat if box.kind.qualifies(self.counts) else None
        left = [s for s in range(len(self.players)) if any(not c.is_full for c in all_cards[s])]
        over = instant is not None or not left
        following = min(left, key=lambda s: (s - seat - 1) % len(self.players)) if left else seat
        return replace(
            self,
            cards=tuple(all_cards),
            dice=None,
            rolls=0,
            turns=turns,
            current=seat if over else following,
            phase=Phase.OVER if over else Phase.PLAY,
            instant_winner=instant,
        )


def _forfeit(cards: tuple[Scorecard, ...]) -> tuple[Scorecard, ...]:
    """A player's cards with a zero in the topmost open box of the first card that has one."""
    for k, card in enumerate(cards):
        if not card.is_full:
            return (*cards[:k], card.forfeit_top(), *cards[k + 1 :])
    return cards


def _sub_multisets(dice: tuple[int, ...], size: int) -> set[tuple[int, ...]]:
    return {tuple(sorted(c)) for c in itertools.combinations(dice, size)}
