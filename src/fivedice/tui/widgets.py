"""The game's widgets: large dice and the side-by-side score cards.

Widgets only draw what they are given (attributes down) and report clicks as messages
(messages up); the game itself lives in the :class:`~fivedice.engine.game.Game`. What a widget shows is a
reactive attribute (:attr:`Line.text`, :attr:`Die.look`): setting it to what it already shows draws nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.events import Click
from textual.markup import escape
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Footer, Static
from textual.widgets._footer import FooterKey

from fivedice import i18n
from fivedice.engine.state import GameState
from fivedice.i18n import N_, _, box_label, pgettext
from fivedice.rules import FillOrder, RuleSet

__all__ = [
    "CardLine",
    "DiceBar",
    "Die",
    "I18nFooter",
    "Line",
    "ScoreCardView",
    "card_lines",
    "colour_legend",
    "die_face",
    "face_colours",
    "language_cycle",
]

LANGUAGE_ORDER = ("en", "it", "hr", "su", "co")
"""The order ``l`` cycles through and the start screen lists (the README's); any other language follows."""


def language_cycle() -> list[str]:
    """The available languages' codes in :data:`LANGUAGE_ORDER`, then any others by code.

    >>> language_cycle()[:5]
    ['en', 'it', 'hr', 'su', 'co']
    """
    codes = list(i18n.available_languages())
    known = [c for c in LANGUAGE_ORDER if c in codes]
    return known + sorted(c for c in codes if c not in known)


COLOUR_NAMES = (N_("black"), N_("red"), N_("green"))
"""The names of die colours by number (Kismet: 1 and 6 black, 2 and 5 red, 3 and 4 green)."""
COLOUR_STYLES = ("colour-black", "colour-red", "colour-green")


def face_colours(rules: RuleSet) -> tuple[int, ...] | None:
    """The colour of each face (index = face - 1) when a box of ``rules`` looks at colours, else None.

    >>> from fivedice import rules
    >>> face_colours(rules.get("kismet")), face_colours(rules.get("yahtzee"))
    ((0, 1, 2, 2, 1, 0), None)
    """
    for box in rules.boxes:
        colours = getattr(box.kind, "colours", None)
        if colours is not None and (getattr(box.kind, "same_colour", True) is True):
            return tuple(colours)
    return None


def colour_legend(rules: RuleSet) -> str | None:
    """Which faces share a colour, in words (``Colours: 1 6 black · 2 5 red · 3 4 green``), or None.

    >>> from fivedice import rules
    >>> colour_legend(rules.get("kismet"))
    'Colours: 1 6 black · 2 5 red · 3 4 green'
    """
    colours = face_colours(rules)
    if colours is None:
        return None
    groups = []
    for colour in sorted(set(colours)):
        faces = " ".join(str(f + 1) for f, c in enumerate(colours) if c == colour)
        name = _(COLOUR_NAMES[colour]) if colour < len(COLOUR_NAMES) else str(colour)
        groups.append(f"{faces} {name}")
    return _("Colours: {groups}", groups=" · ".join(groups))


_PIPS = {
    0: ("     ", "  ?  ", "     "),
    1: ("     ", "  ●  ", "     "),
    2: ("●    ", "     ", "    ●"),
    3: ("●    ", "  ●  ", "    ●"),
    4: ("●   ●", "     ", "●   ●"),
    5: ("●   ●", "  ●  ", "●   ●"),
    6: ("●   ●", "●   ●", "●   ●"),
}


def die_face(value: int | None) -> str:
    """Three lines of pips for a face (``?`` before the first roll).

    >>> die_face(5).splitlines()
    ['●   ●', '  ●  ', '●   ●']
    """
    return "\n".join(_PIPS[value or 0])


class Line(Static):
    """A line of markup that draws itself again only when its :attr:`text` changes."""

    text: reactive[str] = reactive("", layout=True)
    """The markup shown."""

    def watch_text(self, text: str) -> None:
        """Draw the new text."""
        self.update(text)


DIE_WIDTH = 7
"""A die's cells across, its border included (a gap of one follows it unless the dice stand close)."""


class Die(Static):
    """One large die; a click asks to keep or roll it."""

    DEFAULT_CSS = """
    Die {
        width: 7;  /* DIE_WIDTH */
        height: 5;
        border: round $foreground 50%;
        border-subtitle-color: $foreground 75%;
        content-align: center middle;
        margin-right: 1;
    }
    Die.kept {
        border: heavy $accent;
        background: $accent 10%;
        border-subtitle-color: $accent;
        border-subtitle-style: bold;
    }
    Die.idle { color: $fd-muted; }
    Die.hinted { border: double $success; border-subtitle-color: $success; }
    Die.kept.hinted { border: heavy $success; }
    Die.colour-red { color: $error; }
    Die.colour-green { color: $success; }
    Die.colour-black { color: $foreground; text-style: bold; }
    """

    class Toggled(Message):
        """The player clicked die ``index`` (0-based)."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, index: int) -> None:
        super().__init__(die_face(None), id=f"die-{index + 1}", classes="idle")
        self.index = index
        self.border_subtitle = str(index + 1)

    look: reactive[tuple[int | None, bool, bool, int | None]] = reactive((None, False, False, None))
    """What the die shows: its face (None: not rolled yet), kept or not, the hint's keep or not, its colour
    (when the rule set colours the faces)."""

    def show(self, value: int | None, kept: bool, hinted: bool = False, colours: tuple[int, ...] | None = None) -> None:
        """Show ``value`` (None: not rolled yet), marked kept or not, and as the hint's keep; in its colour
        when the rule set colours the faces (drawn again only if that changes what the die shows)."""
        colour = colours[value - 1] if colours is not None and value else None
        self.look = (value, kept, hinted, colour)

    def watch_look(self, look: tuple[int | None, bool, bool, int | None]) -> None:
        """Draw the face and its marks."""
        value, kept, hinted, colour = look
        self.update(die_face(value))
        self.set_class(kept, "kept")
        self.set_class(hinted, "hinted")
        self.set_class(value is None, "idle")
        for i, style in enumerate(COLOUR_STYLES):
            self.set_class(colour == i, style)

    def on_click(self, event: Click) -> None:
        """Report the click."""
        event.stop()
        self.post_message(self.Toggled(self.index))


class DiceBar(Horizontal):
    """The row of dice."""

    DEFAULT_CSS = """
    DiceBar { height: 5; width: auto; }
    """

    def __init__(self, rules: RuleSet) -> None:
        super().__init__(*(Die(i) for i in range(rules.dice)), id="dice")
        self.count = rules.dice
        self.colours = face_colours(rules)

    def show(self, dice: Sequence[int] | None, kept: set[int], hinted: set[int] | None = None) -> None:
        """Draw every die: kept ones marked, the ones a hint keeps lit."""
        for i, die in enumerate(self.query(Die)):
            die.show(None if dice is None else dice[i], i in kept, i in (hinted or ()), self.colours)


class I18nFooter(Footer):
    """The footer with its key descriptions in the current language (bindings hold them in English,
    marked with ``N_``); ``recompose()`` it after a change of language."""

    def compose(self) -> ComposeResult:
        """The footer's keys, their descriptions translated."""
        for widget in super().compose():
            if isinstance(widget, FooterKey) and widget.description:
                widget.description = _(widget.description)
            yield widget


class CardLine(Line):
    """One line of the score card; a box line reports clicks with the column clicked."""

    DEFAULT_CSS = """
    CardLine { height: 1; width: auto; }
    CardLine.box:hover { background: $boost; }
    CardLine.sum { color: $foreground 80%; }
    """

    class Clicked(Message):
        """The player clicked box ``box`` (its index) in display column ``column`` (-1: the label)."""

        def __init__(self, box: int, column: int) -> None:
            super().__init__()
            self.box = box
            self.column = column

    def __init__(self, box: int | None, label_width: int, cell_width: int, *, id: str | None = None) -> None:
        super().__init__("", classes="box" if box is not None else "sum", id=id)
        self.box = box
        self.label_width = label_width
        self.cell_width = cell_width

    def on_click(self, event: Click) -> None:
        """Report a click on a box line."""
        if self.box is None:
            return
        event.stop()
        column = -1 if event.x < self.label_width else (event.x - self.label_width) // self.cell_width
        self.post_message(self.Clicked(self.box, column))


LABEL_WIDTH = 16
CELL_WIDTH = 7
COMPACT = (12, 6)
"""Label and cell widths when the normal ones do not leave the dice their room (many players)."""
TIGHT = (10, 5)
"""The narrowest widths (``(12)`` and ``0/63`` still fit): Jetsi's six columns of two players at 80."""
WIDTHS = ((LABEL_WIDTH, CELL_WIDTH), COMPACT, TIGHT)


def card_width(state: GameState, widths: tuple[int, int]) -> int:
    """The cells the score cards take at ``widths`` (their right padding included)."""
    label_width, cell_width = widths
    return label_width + cell_width * len(_columns(state)) + 1


def fitting_widths(state: GameState, room: int) -> tuple[int, int]:
    """The widest label and cell widths whose cards fit in ``room`` cells (the narrowest if none do)."""
    return next((w for w in WIDTHS if card_width(state, w) <= room), TIGHT)


def fill_order_label(order: FillOrder) -> str:
    """A card's fill order in a word or two that fit a column (``free``, ``top↓``, ``bot↑``)."""
    labels = {
        FillOrder.FREE: pgettext("fill order", "free"),
        FillOrder.UPPER_FIRST: pgettext("fill order", "upper"),
        FillOrder.TOP_DOWN: pgettext("fill order", "top↓"),
        FillOrder.BOTTOM_UP: pgettext("fill order", "bot↑"),
    }
    return labels[order]


def _columns(state: GameState) -> list[tuple[int, int]]:
    return [(seat, k) for seat in range(len(state.players)) for k in range(len(state.rules.cards))]


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _side(text: str, width: int) -> str:
    return escape(_fit(text, width - 1).ljust(width))


def card_lines(
    state: GameState,
    cursor: tuple[int, str] | None = None,
    preview: bool = True,
    widths: tuple[int, int] = (LABEL_WIDTH, CELL_WIDTH),
) -> list[tuple[int | None, str]]:
    """The score card as ``(box index or None, markup line)`` pairs: a header, every box, and
    the upper subtotal with bonus progress, the bonus, the lower total, extra-Yahtzee
    bonuses and the grand total. Open boxes of the player to move show, for the dice
    showing, the points the engine allows there (only legal boxes)."""
    label_width, cell_width = widths
    rules = state.rules
    columns = _columns(state)
    multi = len(rules.cards) > 1
    live = preview and state.dice is not None and not state.is_over
    options = state.options() if live else {}

    def cells(values: Sequence[str], styles: Sequence[str] = ()) -> str:
        out = []
        for i, v in enumerate(values):
            text = escape(v.rjust(cell_width))
            style = styles[i] if i < len(styles) else ""
            out.append(f"[{style}]{text}[/]" if style else text)
        return "".join(out)

    def current(seat: int) -> bool:
        return seat == state.current and not state.is_over and state.phase.value == "play"

    if multi:  # each name over all its cards (the fill-order line tells the cards apart)
        span = cell_width * len(rules.cards)
        heads = []
        for seat, name in enumerate(state.players):
            style = "b reverse $accent" if current(seat) else "b"
            heads.append(f"[{style}]{escape(_fit(name, span - 1).rjust(span))}[/]")
        header = " " * label_width + "".join(heads)
    else:
        header_names = [_fit(state.players[s], cell_width - 1) for s, _k in columns]
        header_styles = ["b reverse $accent" if current(s) else "b" for s, _k in columns]
        header = " " * label_width + cells(header_names, header_styles)
    lines: list[tuple[int | None, str]] = [(None, header)]
    if multi:
        orders = [_fit(fill_order_label(rules.cards[k]), cell_width - 1) for _seat, k in columns]
        lines.append((None, _side(_("Fill order"), label_width) + cells(orders, ["$fd-muted"] * len(orders))))
    upper_last = max(rules.upper_indices, default=-1)
    cards = [state.cards[s][k] for s, k in columns]
    for i, box in enumerate(rules.boxes):
        values, styles = [], []
        for (seat, k), card in zip(columns, cards, strict=True):
            entry = card.entries[i]
            if entry is not None:
                values.append(str(entry))
                styles.append("b" if current(seat) else "")
            elif current(seat) and (k, box.name) in options:
                values.append(f"({options[(k, box.name)]})")
                chosen = cursor == (k, box.name)
                styles.append("b reverse $success" if chosen else "i $success")
            else:
                values.append("·")
                styles.append("dim")
        label = escape(_fit(box_label(box), label_width - 1).ljust(label_width))
        chosen_row = cursor is not None and cursor[1] == box.name
        lines.append((i, (f"[b]{label}[/]" if chosen_row else label) + cells(values, styles)))
        if i == upper_last:
            progress = []
            for card in cards:
                tiers = [t.threshold for t in rules.upper_bonus if card.upper_total < t.threshold]
                progress.append(f"{card.upper_total}/{tiers[0]}" if tiers else str(card.upper_total))
            lines.append((None, _side(_("Upper"), label_width) + cells(progress)))
            if rules.upper_bonus:
                lines.append((None, _side(_("Bonus"), label_width) + cells([str(c.upper_bonus) for c in cards])))
    lines.append((None, _side(_("Lower"), label_width) + cells([str(c.lower_total) for c in cards])))
    if rules.yahtzee_bonus and rules.yahtzee_box:
        label = _fit(_("{box} bonus", box=box_label(rules.box(rules.yahtzee_box))), label_width - 1).ljust(label_width)
        lines.append((None, escape(label) + cells([str(c.yahtzee_bonus) for c in cards])))
    totals = [str(c.total) for c in cards]
    if multi:
        totals = [str(state.total(s)) if k == len(rules.cards) - 1 else "" for s, k in columns]
    lines.append((None, "[b]" + _side(_("Total"), label_width) + cells(totals, ["b"] * len(totals)) + "[/]"))
    return lines


class ScoreCardView(Vertical):
    """Every player's score card side by side, the player to move highlighted; narrower
    columns when the normal ones would not fit in ``room`` cells."""

    DEFAULT_CSS = """
    ScoreCardView { width: auto; height: auto; padding: 0 1 0 0; }
    """

    def __init__(
        self, state: GameState, preview: bool = True, room: int | None = None, *, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.state = state
        self.preview = preview
        self.cursor: tuple[int, str] | None = None
        self.widths = fitting_widths(state, room) if room is not None else (LABEL_WIDTH, CELL_WIDTH)

    def compose(self) -> ComposeResult:
        """One line widget per line of the card."""
        boxes = self.state.rules.boxes
        for n, (box, text) in enumerate(card_lines(self.state, self.cursor, self.preview, self.widths)):
            name = f"box-{boxes[box].name}" if box is not None else f"line-{n}"
            line = CardLine(box, *self.widths, id=name)
            line.text = text
            yield line

    def fit(self, room: int) -> None:
        """Take the widest widths that fit in ``room`` cells (drawn again if they change)."""
        widths = fitting_widths(self.state, room)
        if widths != self.widths:
            self.widths = widths
            self.refresh(recompose=True)

    def on_mount(self) -> None:
        """Draw the card."""
        self.show(self.state)

    def show(self, state: GameState, cursor: tuple[int, str] | None = None) -> None:
        """Show ``state`` with the keyboard cursor on ``(card, box)`` (only the lines that change are drawn)."""
        self.state = state
        self.cursor = cursor
        lines = card_lines(state, cursor, self.preview, self.widths)
        for line, (_box, text) in zip(self.query(CardLine), lines, strict=True):
            line.text = text

    def column_seat_card(self, column: int) -> tuple[int, int] | None:
        """The ``(seat, card)`` shown in display column ``column``."""
        columns = _columns(self.state)
        return columns[column] if 0 <= column < len(columns) else None
