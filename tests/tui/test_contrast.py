"""Text in both themes meets WCAG AA, 4.5:1 (issue 28: the light theme's roll line was 1.5:1, "Beat
your best" 1.3:1 and the box previews 1.8:1): the themes' text colours, and every character drawn."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.color import Color as RichColor
from textual.color import Color

from fivedice.table.seat import Seat
from fivedice.tui import Config, FiveDiceApp
from fivedice.tui.end import EndScreen
from fivedice.tui.start import StartScreen
from fivedice.tui.themes import TEXT_ALPHAS, TEXT_COLOURS, THEME_OBJECTS
from tests.tui.helpers import app_with_a_best, finish, no_analysis, session_of, wait_for_human

AA = 4.5
GRAPHICS = 3.0
"""WCAG's ratio for text, and for graphics (the dice's borders, a drop-down's arrow)."""
CHECKBOX = {"▐", "▌", "X"}
"""A check box's drawing: its ends and, unticked, a faint X (not text)."""


def luminance(rgb: tuple[float, float, float]) -> float:
    """WCAG 2's relative luminance of an sRGB colour (0-255 channels)."""

    def channel(value: float) -> float:
        v = value / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = rgb
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    """WCAG 2's contrast ratio of two colours."""
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def rgb(color: Color) -> tuple[float, float, float]:
    return (color.r, color.g, color.b)


@pytest.mark.parametrize("theme", THEME_OBJECTS, ids=lambda t: t.name)
def test_every_text_colour_of_the_themes_is_aa_on_the_background_and_the_surface(theme: object) -> None:
    variables = theme.to_color_system().generate() | theme.variables  # type: ignore[attr-defined]
    failing = []
    for ground in ("background", "surface"):
        back = Color.parse(variables[ground])
        shades = {name: Color.parse(variables[name]) for name in TEXT_COLOURS}
        foreground = Color.parse(variables["foreground"])
        shades |= {f"foreground {a:.0%}": foreground.with_alpha(a) for a in TEXT_ALPHAS}
        for name, shade in shades.items():
            ratio = contrast(rgb(back + shade), rgb(back))
            if ratio < AA:
                failing.append(f"{name} on {ground}: {ratio:.2f}")
    assert not failing


def _low(app: FiveDiceApp) -> dict[str, float]:
    """The texts (and glyphs) drawn below their WCAG AA ratio."""
    drawn = _drawn_contrasts(app)
    return {
        k: round(v, 2)
        for k, v in drawn.items()
        if k.removeprefix("glyphs ") not in CHECKBOX and v < (GRAPHICS if k.startswith("glyphs ") else AA)
    }


def _drawn_contrasts(app: FiveDiceApp) -> dict[str, float]:
    """The lowest contrast of each piece of text on the screen as drawn (dim taken as halfway to the
    background, as Textual's dim filter and most terminals draw it); box-drawing glyphs apart."""
    out: dict[str, float] = {}
    for strip in app.screen._compositor.render_strips():
        for segment in strip:
            text, style = segment.text.strip(), segment.style
            if not text or style is None:
                continue
            fore = (style.color or RichColor.default()).get_truecolor()
            back = (style.bgcolor or RichColor.default()).get_truecolor()
            if style.reverse:
                fore, back = back, fore
            if style.dim:
                fore = type(fore)(*((f + b) // 2 for f, b in zip(fore, back, strict=True)))
            glyphs = all(0x2500 <= ord(c) <= 0x259F or c == "▼" for c in text)
            key = ("glyphs " if glyphs else "") + text
            out[key] = min(out.get(key, 99.0), contrast(tuple(fore), tuple(back)))  # type: ignore[arg-type]
    return out


@pytest.mark.asyncio
@pytest.mark.parametrize("theme", ["light", "dark"])
async def test_the_game_screen_draws_every_text_at_aa(tmp_path: Path, theme: str) -> None:
    app, best = app_with_a_best(tmp_path)
    app.config.theme = theme
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for_human(pilot, app)
        assert "?" in _drawn_contrasts(app)  # the dice before the turn's first roll
        assert not _low(app)
        await pilot.press("space", "1")  # the roll line, a kept die, previews and "Beat your best"
        await pilot.pause()
        drawn = _drawn_contrasts(app)
        assert f"Beat your best: {best}" in drawn
        assert any(key.startswith("(") for key in drawn)  # a box's preview
        assert not _low(app)


@pytest.mark.asyncio
@pytest.mark.parametrize("theme", ["light", "dark"])
async def test_the_start_and_end_screens_draw_every_text_at_aa(tmp_path: Path, theme: str) -> None:
    session_of("yacht", [Seat("Ann")], seed=3).save(folder=tmp_path)  # Resume and Delete are enabled
    app = FiveDiceApp(Config(use_store=False, saves=tmp_path, theme=theme, analyser=no_analysis))
    async with app.run_test(size=(100, 34)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)
        drawn = _drawn_contrasts(app)
        assert any(key.startswith("Option") for key in drawn)  # the options' sentences, once dim
        assert not _low(app)
    session = finish(session_of("yacht", [Seat("Ann")], seed=3))
    app = FiveDiceApp(Config(use_store=False, saves=tmp_path, theme=theme, session=session, analyser=no_analysis))
    async with app.run_test(size=(100, 34)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, EndScreen)
        assert not _low(app)
