"""``python -m fivedice.web`` runs the server, like ``fivedice serve``."""

from fivedice.web.cli import serve_cmd

serve_cmd()
