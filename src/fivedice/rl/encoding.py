"""The observation and action mask of :mod:`fivedice.rl.spaces`, written in place from a rule set's tables.

:meth:`~fivedice.rl.spaces.ObservationLayout.encode` and :meth:`~fivedice.rl.spaces.ActionCodec.mask` build
them from an engine state, at a cost an environment step cannot afford; they stay the reference the tests
compare every step with. An :class:`Encoder` writes the same numbers (scaled or not) from the
:class:`~fivedice.rl.fast.Tables`: the dice part by roll and multiset of dice; the scores and the mask from the
:class:`~fivedice.rl.fast.Turn` of the filled boxes (the engine's options where five alike show); a card's
part from its upper total; the round, the filled boxes and the totals. The Solitaire environment keeps its one
observation up to date with it, field by field as the game changes; the AEC environment writes each seat's
view with it.

>>> from fivedice import rules
>>> from fivedice.rl.spaces import ObservationLayout
>>> encoder = Encoder.of(ObservationLayout.of(rules.get("yacht")), scaled=False)
>>> t = encoder.tables
>>> out = np.zeros(encoder.size, dtype=np.float32)
>>> m = t.multiset((6, 6, 6, 2, 2))
>>> encoder.show_dice(out, 1, m)
>>> encoder.show_scores(out, 1, m, t.turn(0), None)
>>> out[encoder.at["scores"] + rules.get("yacht").box_index("full_house")]
np.float32(22.0)
>>> int(encoder.mask(1, t.turn(0), None).sum())   # 31 reroll masks and 12 boxes
43
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache

import numpy as np
from numpy.typing import NDArray

from fivedice.rl.fast import Tables, Turn
from fivedice.rl.spaces import ObservationLayout

__all__ = ["Encoder", "InPlace"]


class Encoder:
    """Writes the observation of ``layout`` (scaled to [0, 1] when ``scaled``) and builds the action mask from
    the rule set's :class:`~fivedice.rl.fast.Tables`, as ``layout.encode`` and ``ActionCodec.mask`` would.

    Every ``show_*`` method writes its fields of an observation ``out`` in place. ``special`` is the engine's
    options where five alike show (``{card * boxes + box: points}``: the Joker rule depends on the card's
    history), None otherwise: the :class:`~fivedice.rl.fast.Turn` of the filled boxes then answers."""

    def __init__(self, layout: ObservationLayout, scaled: bool) -> None:
        rules = layout.rules
        t = self.tables = Tables.of(rules)
        self.layout = layout
        self.size = layout.size
        self.at = {f.name: f.start for f in layout.fields}
        """Each field's offset."""
        scale = layout.scales() if scaled else np.ones(layout.size, dtype=np.float32)
        self.scale = {f.name: float(scale[f.start]) for f in layout.fields}
        """Each field's factor: multiplying a whole number by it in float64 is exact, so it gives the float32
        product exactly (what ``layout.scale`` gives)."""
        self.rolls = rules.rolls
        self.rounds = rules.rounds
        self.rerolls = t.rerolls
        self.actions = t.rerolls + t.cards * t.boxes
        live = self.live = self.at["round"]
        """Where the dice part (counts, dice, roll) ends."""
        rows = np.array(
            [[[*t.counts[m], *t.sets[m], r] for m in range(len(t.sets))] for r in range(1, rules.rolls + 1)],
            dtype=np.float32,
        )
        rows *= scale[:live]
        self.dice_rows = [list(by_set) for by_set in rows]
        """The counts, dice and roll fields (the observation up to ``round``), by roll and multiset."""
        points = np.array(t.flat, dtype=np.float32) * np.float32(self.scale["scores"])
        self.points = [list(by_set) for by_set in points]
        """The points of every score action (scaled), by roll and multiset."""
        self.scores = slice(self.at["scores"], self.at["scores"] + t.cards * t.boxes)
        self.empty = np.zeros(self.actions, dtype=np.int8)
        """The mask with no legal action (read-only by convention: hand over copies)."""
        self._bonus = rules.upper_bonus_for
        self._ready = t.yahtzee if rules.yahtzee_bonus else -1

    def bind(self, out: NDArray[np.float32]) -> InPlace:
        """Observation ``out`` kept up to date in place by this encoder, a roll or a score in one call."""
        return InPlace(self, out)

    @classmethod
    def of(cls, layout: ObservationLayout, scaled: bool) -> Encoder:
        """The encoder of ``layout``, built once per process (many environments share it)."""
        return _encoder_of(layout, scaled)

    def show_dice(self, out: NDArray[np.float32], rolls: int, multiset: int) -> None:
        """The counts, dice and roll fields: multiset ``multiset`` showing on roll ``rolls`` (1 or more)."""
        out[: self.live] = self.dice_rows[rolls - 1][multiset]

    def show_scores(
        self, out: NDArray[np.float32], rolls: int, multiset: int, turn: Turn, special: Mapping[int, int] | None
    ) -> None:
        """The scores field of the player to act, for those dice."""
        scores = out[self.scores]
        if special is None:
            np.multiply(self.points[rolls - 1][multiset], turn.open, scores)
            return
        scores[:] = 0
        s = self.scale["scores"]
        for j, points in special.items():
            scores[j] = points * s

    def hide_roll(self, out: NDArray[np.float32]) -> None:
        """No dice showing (the game is over): the dice part and the scores are 0."""
        out[: self.live] = 0
        out[self.scores] = 0

    def mask(self, rolls: int, turn: Turn, special: Mapping[int, int] | None) -> NDArray[np.int8]:
        """The action mask of the player to act after roll ``rolls`` (the tables' own array where five alike do
        not show: never change it, hand over copies)."""
        if special is None:
            return turn.mask_roll if rolls < self.rolls else turn.mask_last
        mask = np.zeros(self.actions, dtype=np.int8)
        if rolls < self.rolls:
            mask[1 : self.rerolls] = 1
        for j in special:
            mask[self.rerolls + j] = 1
        return mask

    def show_round(self, out: NDArray[np.float32], filled: int) -> None:
        """The round field of a player with ``filled`` boxes filled."""
        out[self.at["round"]] = min(filled + 1, self.rounds) * self.scale["round"]

    def show_filled(self, out: NDArray[np.float32], bits: int) -> None:
        """The filled field from a bit set of filled boxes (:func:`~fivedice.rl.fast.filled_bits`)."""
        start, size = self.at["filled"], self.actions - self.rerolls
        out[start : start + size] = [bits >> j & 1 for j in range(size)]

    def show_card(self, out: NDArray[np.float32], k: int, upper_total: int, yahtzee: int | None) -> None:
        """Card ``k``'s upper total, upper bonus and extra-Yahtzee readiness: ``yahtzee`` is what its Yahtzee box
        holds (None while open; five alike earn the bonus once it holds points)."""
        at, scale = self.at, self.scale
        out[at["upper_total"] + k] = upper_total * scale["upper_total"]
        out[at["upper_bonus"] + k] = self._bonus(upper_total) * scale["upper_bonus"]
        out[at["bonus_ready"] + k] = 1.0 if self._ready >= 0 and yahtzee else 0.0

    def yahtzee_of(self, entries: Iterable[int | None]) -> int | None:
        """What a card's Yahtzee box holds, from its entries in box order (None: open, or no such box)."""
        if self._ready < 0:
            return None
        return list(entries)[self._ready]

    def show_totals(self, out: NDArray[np.float32], totals: Iterable[int]) -> None:
        """The totals field: this seat's grand total first, then the following seats'."""
        start, s = self.at["totals"], self.scale["totals"]
        for j, total in enumerate(totals):
            out[start + j] = total * s


class InPlace:
    """One observation ``out`` kept up to date in place by an :class:`Encoder`, as one player's game changes
    (the Solitaire environment's, whose every step calls one of these)."""

    __slots__ = ("_filled", "_live", "_points", "_rolls", "_round", "_rows", "_totals", "encoder", "out", "scores")

    def __init__(self, encoder: Encoder, out: NDArray[np.float32]) -> None:
        self.encoder, self.out = encoder, out
        self.scores = out[encoder.scores]
        """The scores field (a view of ``out``)."""
        self._rows, self._points, self._rolls = encoder.dice_rows, encoder.points, encoder.rolls
        self._live = encoder.live
        self._filled, self._round, self._totals = encoder.at["filled"], encoder.at["round"], encoder.at["totals"]

    def roll(self, rolls: int, multiset: int, turn: Turn, special: Mapping[int, int] | None) -> NDArray[np.int8]:
        """The dice shown and the player's scores for them (:meth:`Encoder.show_dice`, :meth:`Encoder.show_scores`);
        returns the :meth:`Encoder.mask`."""
        self.out[: self._live] = self._rows[rolls - 1][multiset]
        if special is None:
            np.multiply(self._points[rolls - 1][multiset], turn.open, self.scores)
            return turn.mask_roll if rolls < self._rolls else turn.mask_last
        self.encoder.show_scores(self.out, rolls, multiset, turn, special)
        return self.encoder.mask(rolls, turn, special)

    def score(self, j: int, card: int, upper_total: int, yahtzee: int | None, total: int, filled: int) -> None:
        """Score action ``j`` filled a box of card ``card`` (its upper total and Yahtzee box now as given),
        the player's grand total now ``total`` with ``filled`` boxes filled (and the dice still shown)."""
        out, encoder = self.out, self.encoder
        out[self._filled + j] = 1.0
        encoder.show_card(out, card, upper_total, yahtzee)
        out[self._totals] = total * encoder.scale["totals"]
        out[self._round] = min(filled + 1, encoder.rounds) * encoder.scale["round"]


@cache
def _encoder_of(layout: ObservationLayout, scaled: bool) -> Encoder:
    return Encoder(layout, scaled)
