"""The engine: actions, score cards, the immutable :class:`~fivedice.engine.state.GameState` with every
rule check, the :class:`~fivedice.engine.game.Game` history over it, notation, saves and text rendering.

Nothing here knows about seats, computers, hints or any front end (those are :mod:`fivedice.table`
and above).
"""
