"""A player's stored games as the profile reads them (:func:`fivedice.services.profile.profile`): the
figures of ``fivedice history PLAYER --json``."""

from __future__ import annotations

import contextlib
import functools
from dataclasses import dataclass

from sqlalchemy import select

from fivedice.engine import saves
from fivedice.errors import FiveDiceError
from fivedice.rules import RuleSet, parse_spec
from fivedice.services.profile import PlayedGame, count_yahtzees
from fivedice.storage.schema import games, results
from fivedice.storage.store import Store, _utc

__all__ = ["played_games"]


@dataclass(frozen=True, slots=True)
class _Facts:
    bonus: bool
    optimal: float | None
    benchmark: int | None


@functools.lru_cache(maxsize=256)
def _facts(spec: str, challenge: str | None, analysed: bool) -> _Facts:
    """What a profile needs of a rule set (and a challenge): whether it has an upper bonus, its optimal mean
    (only for analysed games: it loads the solver) and the challenge's benchmark total."""
    optimal = benchmark = None
    try:
        rules = parse_spec(spec)
    except FiveDiceError:
        return _Facts(True, None, None)
    if analysed and rules.solver_refusal() is None:
        from fivedice.players.solved import solver_for

        optimal = float(solver_for(rules).expected_score)
    if challenge is not None:
        from fivedice.table.challenge import goal

        with contextlib.suppress(FiveDiceError):
            benchmark = goal(rules, challenge).total
    return _Facts(bool(rules.upper_bonus), optimal, benchmark)


def played_games(store: Store, player: str, rules: str | RuleSet | None = None) -> list[PlayedGame]:
    """A player's games, oldest first, as :func:`fivedice.services.profile.profile` reads them: with
    the rule set's optimal mean (for the luck) where the game was analysed, the opponents' places, the
    Yahtzees from the move log and a challenge's benchmark total."""
    query = (
        select(
            games.c.id, games.c.played_at, games.c.rules_spec, games.c.players, results.c.seat,
            results.c.total, results.c.place, results.c.upper_bonus, results.c.loss, results.c.decisions,
            games.c.challenge, games.c.save_json,
        )
        .join(games, games.c.id == results.c.game_id)
        .where(results.c.name_key == player.strip().casefold())
        .order_by(games.c.played_at, games.c.id)
    )  # fmt: skip
    clause = store._rules_clause(rules)
    if clause is not None:
        query = query.where(clause)
    with store._guard(), store.engine.connect() as conn:
        found = conn.execute(query).all()
        ids = [row[0] for row in found]
        others = conn.execute(
            select(results.c.game_id, results.c.seat, results.c.name, results.c.place).where(results.c.game_id.in_(ids))
        ).all()
    rivals: dict[int, list[tuple[int, str, int]]] = {}
    for gid, seat, name, place in others:
        rivals.setdefault(gid, []).append((seat, name, place))
    out = []
    for gid, played, spec, players, seat, total, place, ub, loss, decisions, code, save in found:
        facts = _facts(spec, code, loss is not None)
        game = saves.loads(save)
        out.append(
            PlayedGame(
                str(gid), _utc(played).timestamp(), spec, players, total, place, ub, facts.bonus,
                count_yahtzees(game, seat), decisions, loss, facts.optimal,
                tuple((n, p) for s, n, p in sorted(rivals.get(gid, [])) if s != seat), code, facts.benchmark,
            )
        )  # fmt: skip
    return out
