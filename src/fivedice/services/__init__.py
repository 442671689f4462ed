"""Services over the engine and the players: hints (:mod:`~fivedice.services.advice`), the background
preparation of chance tables (:mod:`~fivedice.services.chancejobs`), game analysis
(:mod:`~fivedice.services.analysis`) and simulation (:mod:`~fivedice.services.sim`)."""
