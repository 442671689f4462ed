"""The colour schemes' contrast, computed from the style sheet: every text pair at WCAG AA (4.5:1) and every
pair that draws a control or a mark at 3:1, in the light scheme and in the dark one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

STYLE = Path(__file__).resolve().parents[2] / "src" / "fivedice" / "web" / "static" / "style.css"

TEXT = 4.5
"""WCAG 2 AA for normal text."""
GRAPHIC = 3.0
"""WCAG 2 AA for the parts of controls and marks (1.4.11)."""

SHARED = {"avatar-fg", *(f"seat{i}" for i in range(8))}
"""Colours alike in both schemes: the avatars keep their seat's colour."""

PAIRS: list[tuple[str, str, float]] = [
    # text on the page, the panels, the score card and the dock
    *((fg, bg, TEXT) for fg in ("fg", "muted") for bg in ("bg", "card", "head", "dock", "zero", "sum", "current")),
    ("accent", "bg", TEXT),  # links, "your turn"
    ("accent", "card", TEXT),
    ("accent-fg", "accent", TEXT),  # primary buttons
    ("accent-fg", "accent-dark", TEXT),
    ("bar-fg", "bar", TEXT),  # the header
    ("option-fg", "option", TEXT),  # a box that scores
    ("hint", "card", TEXT),  # the hint's first choice
    ("hint", "bg", TEXT),
    ("hint-fg", "hint-bg", TEXT),  # the hinted box
    ("kept-text", "bg", TEXT),  # "kept" under a die
    ("kept-text", "dock", TEXT),
    ("danger", "card", TEXT),
    ("grade-fg", "grade-bg", TEXT),
    ("toast-fg", "toast-bg", TEXT),
    ("fg", "lit", TEXT),  # a box just filled by another player, lit up
    *(("avatar-fg", f"seat{i}", TEXT) for i in range(8)),  # the players' avatars, alike in both schemes
    ("pip", "die", TEXT),
    ("pip", "kept", TEXT),
    # controls and marks
    ("field-line", "card", GRAPHIC),
    ("field-line", "bg", GRAPHIC),
    ("focus", "bg", GRAPHIC),
    ("focus", "card", GRAPHIC),
    ("bar-fg", "bar", GRAPHIC),  # the header's focus ring
    ("current-line", "card", GRAPHIC),
    ("kept-line", "bg", GRAPHIC),
    ("hint-ring", "die", GRAPHIC),  # the hinted die's ring
    ("hint-ring", "bg", GRAPHIC),
    ("hint-ring", "hint-bg", GRAPHIC),
    ("accent", "dock", GRAPHIC),
    ("expected", "card", GRAPHIC),
    ("luck", "card", GRAPHIC),  # the analysis chart's lines
    ("loss", "card", GRAPHIC),
    ("chart-zero", "card", GRAPHIC),
    ("star", "bg", GRAPHIC),
    ("dot-on", "card", GRAPHIC),
]


def variables(css: str, selector: str) -> dict[str, str]:
    """The custom properties of the block that starts with ``selector {``."""
    found = re.search(re.escape(selector) + r"\s*\{([^}]*)\}", css)
    assert found, f"no {selector} block in style.css"
    return dict(re.findall(r"--([\w-]+):\s*([^;]+);", found.group(1)))


def schemes() -> dict[str, dict[str, str]]:
    css = STYLE.read_text(encoding="utf-8")
    light = variables(css, ":root")
    return {"light": light, "dark": {**light, **variables(css, ':root[data-theme="dark"]')}}


def luminance(colour: str) -> float:
    """The relative luminance of a #rgb or #rrggbb colour (WCAG 2)."""
    hexa = colour.strip().lstrip("#")
    if len(hexa) == 3:
        hexa = "".join(c * 2 for c in hexa)
    assert re.fullmatch(r"[0-9a-fA-F]{6}", hexa), f"{colour!r} is not a #rrggbb colour"
    channels = [int(hexa[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_the_contrast_formula_matches_wcag_examples() -> None:
    assert contrast("#000", "#fff") == pytest.approx(21.0)
    assert contrast("#777", "#fff") == pytest.approx(4.48, abs=0.01)
    assert contrast("#1a5fb4", "#fff") == pytest.approx(6.3, abs=0.05)


def test_both_schemes_define_the_same_colours() -> None:
    css = STYLE.read_text(encoding="utf-8")
    light = variables(css, ":root")
    dark = variables(css, ':root[data-theme="dark"]')
    colours = {k for k, v in light.items() if v.startswith("#")} - SHARED
    assert colours <= set(dark), f"the dark scheme lacks {sorted(colours - set(dark))}"


def test_no_colour_is_written_outside_the_schemes() -> None:
    """A colour written in a rule would not follow the dark scheme (the QR code keeps its white quiet zone)."""
    css = STYLE.read_text(encoding="utf-8")
    rules = re.sub(r":root(\[data-theme=\"dark\"\])?\s*\{[^}]*\}", "", css)
    rules = re.sub(r"/\*.*?\*/", "", rules, flags=re.S)
    stray = [line for line in rules.splitlines() if re.search(r"#[0-9a-fA-F]{3,6}\b", line) and "#qr" not in line]
    assert stray == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_colour_pair_reaches_wcag_aa(scheme: str) -> None:
    colours = schemes()[scheme]
    low = []
    for fg, bg, need in PAIRS:
        ratio = contrast(colours[fg], colours[bg])
        if ratio < need:
            low.append(f"--{fg} on --{bg}: {ratio:.2f} < {need}")
    assert low == []


if __name__ == "__main__":  # the figures for a report: python tests/web/test_looks_contrast.py
    for name, colours in schemes().items():
        ratios = [(contrast(colours[fg], colours[bg]), fg, bg) for fg, bg, _need in PAIRS]
        print(name, "lowest:", ", ".join(f"{fg}/{bg} {r:.2f}" for r, fg, bg in sorted(ratios)[:5]))
