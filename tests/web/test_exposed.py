"""The server as a stranger on the internet meets it (issue 23): a fresh install starts, bad ports and
busy ports are one sentence, rule sets are names (never paths), requests cannot order unbounded work,
and every refusal is ``{"error": ...}``."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.web.conftest import Server


def fresh_env(home: Path) -> dict[str, str]:
    """The environment of a new machine: a home and user folders that are empty, no database named."""
    return {
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "FIVEDICE_DB": "",
    }


def test_a_fresh_install_serves(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    server = Server(None, "--no-chances", env=fresh_env(home)).start()
    try:
        r = httpx.get(server.url + "/api/rules", timeout=10)
        assert r.status_code == 200
        made = httpx.post(server.url + "/api/rooms", json={"name": "Ann"}, timeout=10)
        assert made.status_code == 201, made.text
    finally:
        server.stop()
    assert (home / ".local" / "share" / "fivedice" / "fivedice.db").is_file()
