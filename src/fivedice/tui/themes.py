"""The terminal game's two themes: Textual's own, with the colours text is drawn in made dark (or
light) enough for WCAG AA, 4.5:1 against the background and the surface.

Textual's light theme draws the accent and the warning in orange (#FFA62B, 1.5:1 on its grey
background) and success in green (#4EBF71, 1.8:1); its dark theme's error red is 3.4:1. Those
colours draw text here (the roll line, previews, status, red Kismet faces, footer keys), so these
themes replace them. ``fd-muted`` is the colour of secondary text (what ``dim`` drew at 2.9:1).
"""

from __future__ import annotations

from dataclasses import replace

from textual.theme import BUILTIN_THEMES, Theme

__all__ = ["MUTED", "MUTED_DEFAULT", "TEXT_ALPHAS", "TEXT_COLOURS", "THEMES", "THEME_OBJECTS"]

MUTED = "fd-muted"
"""The theme variable for secondary text (markup ``[$fd-muted]``)."""
MUTED_DEFAULT = "#A8A8A8"
"""Its value in a theme that does not set it (Textual's dark ones)."""

DARK = replace(
    BUILTIN_THEMES["textual-dark"],
    name="fivedice-dark",
    error="#E35A7A",
    variables={**BUILTIN_THEMES["textual-dark"].variables, MUTED: MUTED_DEFAULT},
)
LIGHT = replace(
    BUILTIN_THEMES["textual-light"],
    name="fivedice-light",
    accent="#8A4500",
    warning="#8A4500",
    success="#1A6B30",
    error="#A02040",
    variables={**BUILTIN_THEMES["textual-light"].variables, "footer-key-foreground": "#005A9E", MUTED: "#555555"},
)

THEME_OBJECTS: tuple[Theme, ...] = (DARK, LIGHT)
THEMES = {"dark": DARK.name, "light": LIGHT.name}
"""The setting's value -> the registered theme's name."""

TEXT_COLOURS = ("foreground", "accent", "warning", "success", "error", MUTED, "footer-key-foreground")
"""The theme variables that colour text in the terminal game."""
TEXT_ALPHAS = (0.7, 0.75, 0.8, 0.85)
"""The fractions of the foreground colour text is drawn in (CSS ``$foreground 70%`` and so on)."""
