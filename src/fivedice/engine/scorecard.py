"""Score cards: which boxes are filled with what, and the rules that decide legality.

A :class:`Scorecard` is immutable; :meth:`Scorecard.fill` returns a new card. Totals,
the upper bonus and the extra-Yahtzee bonus are computed from the entries, never stored.

>>> from fivedice import rules
>>> card = Scorecard.empty(rules.get("yahtzee"))
>>> card = card.fill("yahtzee", (5, 5, 5, 5, 5))
>>> card = card.fill("fives", (2, 3, 5, 5, 1))
>>> card.options((5, 5, 5, 5, 5))["large_straight"]   # the seeds' Joker example
40
>>> card.fill("large_straight", (5, 5, 5, 5, 5)).total
200
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from fivedice.dice import Dice, counts_of
from fivedice.errors import IllegalActionError
from fivedice.i18n import _, box_name, ngettext
from fivedice.rules.ruleset import FillOrder, Joker, RuleSet

__all__ = ["Scorecard"]

DiceLike = Dice | Sequence[int]
MEMO = 4
"""Answers of :meth:`Scorecard.option_indices` a card keeps (the same dice are asked about in a row)."""


def _counts(dice: DiceLike) -> tuple[int, ...]:
    return counts_of(dice.values if isinstance(dice, Dice) else dice)


@dataclass(frozen=True, slots=True)
class Scorecard:
    """One score card: ``entries[i]`` is the points in box ``i`` (None while open)."""

    rules: RuleSet
    order: FillOrder = FillOrder.FREE
    entries: tuple[int | None, ...] = field(default=())
    yahtzee_bonuses: int = 0
    _open: tuple[int, ...] = field(default=(), init=False, repr=False, compare=False)
    """The positions of the open boxes (:attr:`open_indices`, asked for by every option and round)."""
    _memo: dict[tuple[tuple[int, ...], int], dict[int, int]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    """The last few :meth:`option_indices` answers (a move is verified, completed and applied, and its options
    shown, with the same dice: each was computed again)."""

    def __post_init__(self) -> None:
        if not self.entries:
            object.__setattr__(self, "entries", (None,) * len(self.rules.boxes))
        elif len(self.entries) != len(self.rules.boxes):
            raise IllegalActionError(
                ngettext(
                    "A score card of {rules} needs one entry per box ({boxes}); {entries} was given.",
                    "A score card of {rules} needs one entry per box ({boxes}); {entries} were given.",
                    len(self.entries),
                    entries=len(self.entries),
                    rules=self.rules.name,
                    boxes=len(self.rules.boxes),
                )
            )
        object.__setattr__(self, "_open", tuple(i for i, e in enumerate(self.entries) if e is None))

    @classmethod
    def empty(cls, rules: RuleSet, order: FillOrder | None = None) -> Scorecard:
        """A fresh card (its fill order defaults to the rule set's first card's)."""
        return cls(rules, rules.cards[0] if order is None else order)

    # -- totals -----------------------------------------------------------------------
    @property
    def open_indices(self) -> tuple[int, ...]:
        """Positions of the open boxes."""
        return self._open

    @property
    def is_full(self) -> bool:
        """Whether every box is filled."""
        return None not in self.entries

    @property
    def upper_total(self) -> int:
        """Points in the upper section."""
        return sum(self.entries[i] or 0 for i in self.rules.upper_indices)

    @property
    def upper_bonus(self) -> int:
        """The upper bonus earned so far."""
        return self.rules.upper_bonus_for(self.upper_total)

    @property
    def lower_total(self) -> int:
        """Points in the lower section (without the extra-Yahtzee bonus)."""
        upper = set(self.rules.upper_indices)
        return sum(e or 0 for i, e in enumerate(self.entries) if i not in upper)

    @property
    def yahtzee_bonus(self) -> int:
        """Points from extra Yahtzees."""
        return self.yahtzee_bonuses * self.rules.yahtzee_bonus

    @property
    def total(self) -> int:
        """The grand total: both sections and every bonus."""
        return self.upper_total + self.upper_bonus + self.lower_total + self.yahtzee_bonus

    def get(self, box: str) -> int | None:
        """The points in a box by name, or None while it is open."""
        return self.entries[self.rules.box_index(box)]

    # -- legality ---------------------------------------------------------------------
    def allowed_by_order(self) -> tuple[int, ...]:
        """The open boxes this card's fill order lets the player fill now."""
        open_ = self.open_indices
        if not open_ or self.order is FillOrder.FREE:
            return open_
        if self.order is FillOrder.TOP_DOWN:
            return open_[:1]
        if self.order is FillOrder.BOTTOM_UP:
            return open_[-1:]
        upper = [i for i in open_ if i in self.rules.upper_indices]
        return tuple(upper) or open_

    def _joker_face(self, counts: tuple[int, ...]) -> int | None:
        """The face of five alike when the Joker rule is in force, else None."""
        rules = self.rules
        if rules.joker is Joker.NONE or rules.yahtzee_box is None:
            return None
        if self.entries[rules.box_index(rules.yahtzee_box)] is None:
            return None
        return counts.index(rules.dice) + 1 if rules.dice in counts else None

    def is_extra_yahtzee(self, dice: DiceLike) -> bool:
        """Whether filling any box with these dice earns an extra-Yahtzee bonus."""
        rules = self.rules
        if not rules.yahtzee_bonus or rules.yahtzee_box is None:
            return False
        held = self.entries[rules.box_index(rules.yahtzee_box)]
        return bool(held) and rules.dice in _counts(dice)

    def options(self, dice: DiceLike, roll: int = 3) -> dict[str, int]:
        """Every box that may be filled with these dice, and the points it would score."""
        return {self.rules.boxes[i].name: p for i, p in self.option_indices(_counts(dice), roll).items()}

    def holds_alike(self) -> bool:
        """Whether the Yahtzee box (the rule set's first box of all dice alike) holds points."""
        ybox = self.rules.yahtzee_box
        return ybox is not None and bool(self.entries[self.rules.box_index(ybox)])

    def option_indices(self, counts: tuple[int, ...], roll: int = 3) -> dict[int, int]:
        """Like :meth:`options`, by box position and from face counts."""
        known = self._memo.get((counts, roll))
        if known is not None:
            return dict(known)
        found = self._option_indices(counts, roll)
        seconds = [i for i in self.rules.second_indices if i in found]
        if seconds:  # all dice alike once more score only while the first such box holds points
            again = self.rules.dice in counts and self.holds_alike()
            for i in seconds:
                found[i] = self.rules.boxes[i].full_value(counts, roll) if again else 0
        if len(self._memo) >= MEMO:
            self._memo.clear()
        self._memo[(counts, roll)] = found
        return dict(found)

    def _option_indices(self, counts: tuple[int, ...], roll: int) -> dict[int, int]:
        boxes = self.rules.boxes
        allowed = self.allowed_by_order()
        face = self._joker_face(counts)
        if face is None:
            return {i: boxes[i].score(counts, roll) for i in allowed}
        face_box = self.rules.face_box(face)
        lower = [i for i in allowed if boxes[i].section == "lower"]
        if self.rules.joker is Joker.FORCED:
            if face_box in allowed:
                return {face_box: boxes[face_box].score(counts, roll)}
            if lower:
                return {i: boxes[i].full_value(counts, roll) for i in lower}
            return {i: boxes[i].score(counts, roll) for i in allowed}
        # Joker.FREE: lower boxes at full value only once the matching upper box is filled.
        full = face_box is None or self.entries[face_box] is not None
        return {i: boxes[i].full_value(counts, roll) if full and i in lower else boxes[i].score(counts, roll)
                for i in allowed}  # fmt: skip

    def why_not(self, box: int, counts: tuple[int, ...], roll: int = 3) -> str | None:
        """Why box ``box`` may not be filled with these dice (a clause), or None if it may."""
        rules = self.rules
        name = box_name(rules.boxes[box])
        if self.entries[box] is not None:
            return _("box {box!r} is already filled", box=name)
        allowed = self.allowed_by_order()
        if box not in allowed:
            if self.order is FillOrder.UPPER_FIRST:
                return _("box {box!r} must wait until every upper box is filled (upper-first card)", box=name)
            after = box_name(rules.boxes[allowed[0]])
            if self.order is FillOrder.TOP_DOWN:
                return _(
                    "box {box!r} is not next on this top-down card, which must fill {next!r}", box=name, next=after
                )
            return _("box {box!r} is not next on this bottom-up card, which must fill {next!r}", box=name, next=after)
        options = self.option_indices(counts, roll)
        if box not in options:
            face = self._joker_face(counts)
            must = ", ".join(repr(box_name(rules.boxes[i])) for i in options)
            return _(
                "box {box!r} is not allowed: the Joker rule sends five {face}s to {boxes}",
                box=name,
                face=face,
                boxes=must,
            )
        return None

    # -- filling ----------------------------------------------------------------------
    def forfeit_top(self) -> Scorecard:
        """A new card with a zero in its topmost open box (another player's second Kismet; see
        :attr:`~fivedice.rules.RuleSet.extra_alike_penalty`); the card itself when it is full."""
        if self.is_full:
            return self
        entries = list(self.entries)
        entries[self.open_indices[0]] = 0
        return Scorecard(self.rules, self.order, tuple(entries), self.yahtzee_bonuses)

    def fill(self, box: str | int, dice: DiceLike, roll: int = 3) -> Scorecard:
        """A new card with ``box`` filled by ``dice`` made on roll ``roll``.

        Raises :class:`~fivedice.errors.IllegalActionError` if the rules forbid it.
        """
        index = box if isinstance(box, int) else self.rules.box_index(box)
        counts = _counts(dice)
        reason = self.why_not(index, counts, roll)
        if reason is not None:
            raise IllegalActionError(_("{reason}.", reason=reason[0].upper() + reason[1:]))
        points = self.option_indices(counts, roll)[index]
        entries = list(self.entries)
        entries[index] = points
        bonuses = self.yahtzee_bonuses + (1 if self.is_extra_yahtzee(dice) else 0)
        return Scorecard(self.rules, self.order, tuple(entries), bonuses)
