"""The command line (:mod:`~fivedice.cli.app`), its subcommands and the plain line mode
(:mod:`~fivedice.cli.plain`): views over the table and the services."""

from __future__ import annotations

from fivedice.cli.app import main

__all__ = ["main"]
