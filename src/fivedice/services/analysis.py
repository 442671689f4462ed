"""Game analysis: rate every decision of a played game against the solver.

This is Tom Verhoeff's "proficiency test" idea: after each roll (but the turn's first
roll of all five dice, which is no choice) the player chose a keep or a box; the advisor
knows every option's expected final score, so each decision loses ``best - chosen``
points of expectation (0 for a best move). A player's total and mean loss give a grade.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from fivedice.engine.actions import Roll, Score
from fivedice.engine.game import Game
from fivedice.engine.state import GameState, Phase
from fivedice.errors import FiveDiceError
from fivedice.i18n import _, box_label, format_decimal, format_percent
from fivedice.players.solved import solver_for
from fivedice.services.grades import GRADES, grade

__all__ = [
    "BY",
    "GRADES",
    "Analysis",
    "AnalysisError",
    "Decision",
    "PlayerSummary",
    "RoundPoint",
    "analyze",
    "grade",
    "split_line",
    "win_split_line",
]


class AnalysisError(FiveDiceError):
    """A game that cannot be analysed (e.g. its rules are beyond the solver)."""


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision: who, when (round and rolls made), the dice, what was chosen, what was
    best, both expected final scores and the expected points lost."""

    seat: int
    player: str
    round: int
    roll: int
    dice: tuple[int, ...]
    chosen: str
    best: str
    chosen_value: float
    best_value: float
    loss: float
    luck: float = 0.0
    """The luck of the roll that made these dice: the best option's value minus what was expected
    before the roll (points; by the chance to win, everything since the player's previous decision)."""


@dataclass(frozen=True, slots=True)
class PlayerSummary:
    """A player's whole game: decisions, mistakes (decisions with a loss), losses, grade, score."""

    seat: int
    player: str
    decisions: int
    mistakes: int
    total_loss: float
    mean_loss: float
    grade: str
    score: int
    luck: float = 0.0
    """Points the dice gave (or took, if negative) against the expectation: with ``total_loss`` it splits the
    final score exactly, ``score - optimal = luck - total_loss`` (``optimal`` the rule set's optimal mean)."""
    optimal: float = 0.0
    """The rule set's optimal expected final score (where every player started)."""
    points_loss: float = 0.0
    """Expected points lost by decisions (``total_loss`` itself unless rating by the chance to win)."""
    win_start: float | None = None
    """Rating by the chance to win: the chance before any dice (``1 / players``), else None."""
    win_outcome: float | None = None
    """Rating by the chance to win, of a finished game: the share of first place (1, 1/k on a k-way tie, 0)."""
    win_luck: float | None = None
    """Rating by the chance to win: how much everything between the player's own decisions (their rolls and the
    rivals' turns) moved their chance; ``win_outcome - win_start = win_luck - total_loss`` exactly."""


@dataclass(frozen=True, slots=True)
class RoundPoint:
    """A player's standing after ``round`` boxes (0: before the first): the points on the card and the
    final score an optimal player would expect from there (those points plus the solver's value of the card).

    The first point expects the rule set's optimal mean; the last one's ``expected`` is the final score,
    so the line shows where luck and decisions moved the outlook.
    """

    round: int
    score: int
    expected: float
    luck: float = 0.0
    """The dice's luck so far (points; 0 when rating by the chance to win)."""
    loss: float = 0.0
    """Expected points lost by decisions so far: ``expected - optimal = luck - loss``."""


@dataclass(frozen=True, slots=True)
class Analysis:
    """Every decision of a game, rated, a summary per player and each player's score round by round."""

    rules: str
    decisions: tuple[Decision, ...]
    players: tuple[PlayerSummary, ...]
    progress: tuple[tuple[RoundPoint, ...], ...] = ()
    """Per seat, one :class:`RoundPoint` before the first round and one after each box filled."""
    by: str = "points"
    """What the values and losses are: expected points, or (``"win"``) chances to win."""

    def to_json(self) -> dict[str, Any]:
        """The analysis as JSON-ready data."""
        return {
            "rules": self.rules,
            "by": self.by,
            "decisions": [asdict(d) | {"dice": list(d.dice)} for d in self.decisions],
            "players": [asdict(p) for p in self.players],
            "progress": [[asdict(p) for p in seat] for seat in self.progress],
        }


def _signed(value: float) -> str:
    """``+12.3`` or ``−4.5`` (one decimal, in the current language's format)."""
    text = format_decimal(abs(value), 1)
    return ("−" if value < -0.05 else "+") + text


def split_line(p: PlayerSummary) -> str:
    """A player's score split into the optimal mean, the dice's luck and the decisions' cost, in words:
    ``Ann: 409 = 254.6 expected + 180.7 luck − 26.3 decisions``."""
    return _(
        "{player}: {score} = {optimal} expected {luck} luck − {loss} decisions",
        player=p.player,
        score=p.score,
        optimal=format_decimal(p.optimal, 1),
        luck=_signed(p.luck).replace("+", "+ ").replace("−", "− "),
        loss=format_decimal(p.points_loss, 1),
    )


def win_split_line(p: PlayerSummary) -> str | None:
    """By the chance to win: ``Ann: won 100% = 50.0% at the start + 62.0% luck − 12.0% decisions`` (None
    without that rating or before the game ends)."""
    if p.win_outcome is None or p.win_start is None or p.win_luck is None:
        return None
    sign = "−" if p.win_luck < 0 else "+"
    return _(
        "{player}: won {outcome} = {start} at the start {sign} {luck} luck − {loss} decisions",
        player=p.player,
        outcome=format_percent(p.win_outcome),
        start=format_percent(p.win_start),
        sign=sign,
        luck=format_percent(abs(p.win_luck)),
        loss=format_percent(p.total_loss),
    )


def describe(option: Any, rules_labels: dict[str, str]) -> str:
    """An advisor option in words: ``keep 6 6 4`` or ``score Sixes (18)``."""
    if option.action == "keep":
        kept = " ".join(map(str, option.dice))
        return _("keep {dice}", dice=kept) if kept else _("reroll all")
    return _("score {box} ({points})", box=rules_labels.get(option.box, option.box), points=option.points)


def _chosen(options: list[Any], record: Roll | Score, state: GameState) -> Any:
    assert state.dice is not None
    if isinstance(record, Roll):
        kept = tuple(sorted(state.dice[p] for p in record.held))
        match = [o for o in options if o.action == "keep" and tuple(sorted(o.dice)) == kept]
    else:
        box = state.rules.boxes[state.rules.box_index(record.box)].name
        match = [o for o in options if o.action == "score" and o.box == box]
    if not match:
        raise AnalysisError(_("The advisor has no option for {move!r} with dice {dice}.", move=record, dice=state.dice))
    return match[0]


BY = ("points", "win")
"""What decisions can be rated by: expected points, or the chance to win (games with rivals)."""


def _add_luck(decisions: list[Decision], seat: int, extra: float) -> None:
    """Count ``extra`` points of luck in ``seat``'s last decision (so that a player's decisions sum to their luck)."""
    if not extra:
        return
    for i in range(len(decisions) - 1, -1, -1):
        if decisions[i].seat == seat:
            decisions[i] = replace(decisions[i], luck=decisions[i].luck + extra)
            return


def analyze(game: Game, by: str = "points") -> Analysis:
    """Rate every decision of ``game`` (finished or not) as the advisor would have.

    ``by="win"`` rates them by the chance to finish first instead (games of two or more players; the
    ``win`` level's rating, :func:`fivedice.players.win.option_chances`): ``chosen_value`` and
    ``best_value`` are chances and ``loss`` their difference; grades read it in percentage points.
    """
    rules = game.rules
    if by not in BY:
        raise AnalysisError(_("Rating {by!r} is unknown; expected one of: {known}.", by=by, known=", ".join(BY)))
    if by == "win" and len(game.initial.players) < 2:
        raise AnalysisError(_("Rating by the chance to win needs a game of two or more players."))
    try:
        solver = solver_for(rules)
    except FiveDiceError as exc:
        raise AnalysisError(
            _("Game of {rules!r} cannot be analysed: {reason}", rules=rules.spec, reason=str(exc))
        ) from None
    rate: Any = None
    if by == "win":
        from fivedice.players.win import prepare_win, rated_options

        prepare_win(rules)
        rate = rated_options
    labels = {b.name: box_label(b) for b in rules.boxes}
    state = game.initial
    decisions: list[Decision] = []
    optimal = float(solver.expected_score)
    start = RoundPoint(0, 0, optimal)
    progress: list[list[RoundPoint]] = [[start] for _seat in state.players]
    # Per seat: the points the solver expects to come before the next roll (from the card, or from the keep
    # chosen), and the luck and loss so far (points). Each roll moves the expectation by its luck, each choice
    # by its loss; a score moves points from "to come" onto the card, so the sum telescopes exactly.
    ahead = [optimal] * len(state.players)
    luck = [0.0] * len(state.players)
    lost = [0.0] * len(state.players)
    # by the chance to win: the chance after each player's last decision, and what moved it in between
    win_ahead = [1.0 / len(state.players)] * len(state.players)
    win_luck = [0.0] * len(state.players)
    for record in game.log:
        seat = state.current
        if state.phase is Phase.PLAY and state.dice is not None and isinstance(record, Roll | Score):
            card = state.cards[seat][0]
            points_options = solver.advise(card, state.dice, state.rolls_left)
            options = points_options if rate is None else rate(state)
            chosen, best = _chosen(options, record, state), options[0]
            loss = max(0.0, float(best.value) - float(chosen.value))
            mine = _chosen(points_options, record, state)
            rolled = float(points_options[0].value) - ahead[seat]
            luck[seat] += rolled
            lost[seat] += float(points_options[0].value) - float(mine.value)
            ahead[seat] = float(mine.value)
            if rate is not None:
                rolled = float(best.value) - win_ahead[seat]
                win_luck[seat] += rolled
                win_ahead[seat] = float(best.value) - loss
            decisions.append(
                Decision(
                    seat=seat,
                    player=state.players[seat],
                    round=state.round,
                    roll=state.rolls,
                    dice=tuple(state.dice),
                    chosen=describe(chosen, labels),
                    best=describe(best, labels),
                    chosen_value=float(chosen.value),
                    best_value=float(best.value),
                    loss=loss,
                    luck=rolled,
                )
            )
        before = state
        state = state.apply(record)
        if isinstance(record, Score) and before.phase is Phase.PLAY:
            card = state.cards[seat][0]
            left = 0.0 if card.is_full or state.is_over else solver.state_value(card)  # over: won at once
            # What scoring put on the card beyond the option's value (an extra-Yahtzee bonus the value leaves
            # out) is the dice's doing: count it as luck so the split stays exact.
            extra = state.total(seat) + left - (before.total(seat) + ahead[seat])
            luck[seat] += extra
            _add_luck(decisions, seat, extra)
            ahead[seat] = left
            progress[seat].append(
                RoundPoint(len(progress[seat]), state.total(seat), state.total(seat) + left, luck[seat], lost[seat])
            )
    if state.is_over:  # a roll that won at once (a served Generala) ended the game with others' cards open
        for seat, still in enumerate(ahead):
            if still:  # what they expected from their open boxes will never come: the dice's doing too
                luck[seat] -= still
                _add_luck(decisions, seat, -still)
                ahead[seat] = 0.0
                total = state.total(seat)
                progress[seat].append(RoundPoint(len(progress[seat]), total, total, luck[seat], lost[seat]))
    players = []
    firsts = [s.seat for s in state.standings() if s.place == 1] if state.is_over else []
    for seat, name in enumerate(state.players):
        outcome = (1.0 / len(firsts) if seat in firsts else 0.0) if state.is_over else None
        if rate is not None and outcome is not None:
            win_luck[seat] += outcome - win_ahead[seat]
        mine = [d for d in decisions if d.seat == seat]
        total = sum(d.loss for d in mine)
        mean = total / len(mine) if mine else 0.0
        scale = 100.0 if by == "win" else 1.0  # a chance lost grades in percentage points
        players.append(
            PlayerSummary(
                seat=seat,
                player=name,
                decisions=len(mine),
                mistakes=sum(1 for d in mine if d.loss > 0),
                total_loss=total,
                mean_loss=mean,
                grade=grade(mean * scale),
                score=state.total(seat),
                luck=luck[seat],
                optimal=optimal,
                points_loss=lost[seat],
                win_start=None if rate is None else 1.0 / len(state.players),
                win_outcome=None if rate is None else outcome,
                win_luck=None if rate is None else win_luck[seat],
            )
        )
    return Analysis(rules.spec, tuple(decisions), tuple(players), tuple(tuple(p) for p in progress), by)
