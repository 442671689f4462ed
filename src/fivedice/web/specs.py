"""Rule sets named over the network: a built-in name with options, never a file.

The terminal takes a ``.toml`` path as a rule set; a visitor must not, or any file the server can read
would be opened for them (``/etc/shadow``, a FIFO that blocks, ``/dev/zero`` that never ends). Every
name that is not a built-in rule set gets the same sentence, so the answer says nothing about the
server's files.

>>> network_rules("yacht  four_kind=four_dice").spec
'yacht four_kind=four_dice'
>>> network_rules("/etc/passwd")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
fivedice.errors.RuleSetError: Rule set '/etc/passwd' is unknown; expected one of: yahtzee, yacht, ...
"""

from __future__ import annotations

from fivedice.errors import RuleSetError
from fivedice.i18n import _
from fivedice.rules import BUILTINS, RuleSet, get, parse_options
from fivedice.rules.ruleset import normalize_name

__all__ = ["SPEC_MAX", "network_rules", "unknown_rules"]

SPEC_MAX = 200
"""The longest rule-set spec read from a request (a name and a few options)."""


def unknown_rules(name: str) -> RuleSetError:
    """The one sentence for any rule-set name that is not a built-in one."""
    return RuleSetError(
        _("Rule set {rules!r} is unknown; expected one of: {known}.", rules=name[:40], known=", ".join(BUILTINS))
    )


def network_rules(spec: str) -> RuleSet:
    """The built-in rule set ``spec`` names (``"NAME [key=value ...]"``), or :class:`RuleSetError` in one
    sentence; no file is ever looked at."""
    name, *pairs = spec[:SPEC_MAX].split() or [""]
    key = normalize_name(name)
    if key not in BUILTINS:
        raise unknown_rules(name)
    return get(key, **parse_options(pairs))
