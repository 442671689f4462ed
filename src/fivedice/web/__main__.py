"""``python -m fivedice.web`` runs the server, like ``fivedice serve``."""

from fivedice.cli.serve import serve_cmd

serve_cmd()
