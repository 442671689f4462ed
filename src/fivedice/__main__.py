"""``python -m fivedice`` is the ``fivedice`` command."""

from fivedice.cli import main

main()
