"""Small pieces of the HTML pages: escaping, number formats, bars and table cells.

Every string that comes from a log or a schema goes through :func:`esc` (or
:func:`name`, which calls it): first :func:`~toolaudit.output.text.printable`,
so control and bidi characters show as the terminal shows them instead of
reordering or hiding text, then ``html.escape(..., quote=True)``, so the result
is safe both as element text and inside a double-quoted attribute. Markup is
only ever built here and in the section modules from these escaped pieces and
from numbers this package formats itself.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping

from toolaudit.output.order import ordered_kinds
from toolaudit.output.text import change as text_change
from toolaudit.output.text import percent, printable
from toolaudit.values import text_of

#: The HTML modules say ``p.pct``: the same percentage as the terminal's.
pct = percent

#: Displayed names are cut to this many characters; the tooltip holds more.
NAME_WIDTH = 60
#: Tooltips are cut too: a model can invent a megabyte-long tool name.
TITLE_WIDTH = 500
#: The colour class of each of the contract's kinds (style.css defines them): fixed per kind,
#: not by position in KINDS, so that a new kind never recolours the others.
KIND_CLASSES = {
    kind: f"k{index}"
    for index, kind in enumerate(
        ("missing", "unexpected", "type", "enum", "unknown_tool", "malformed", "constraint")
    )
}
#: Colour classes of any other kind (read from a summary file), reused in turn.
OTHER_KIND_CLASSES = ("kx0", "kx1", "kx2")

MINUS = "\u2212"  # a real minus sign: as wide as "+", so signed columns line up
DASH = "\u2014"


def esc(value: object, width: int | None = None) -> str:
    """Log or schema content as HTML text or attribute value (see the module docstring)."""
    return html.escape(printable(text_of(value), width), quote=True)


def name(value: object, width: int = NAME_WIDTH) -> str:
    """A name as shown in a cell: cut to ``width``, the (longer) whole in a tooltip when cut."""
    text = text_of(value)
    shown = esc(text, width)
    if len(printable(text)) <= width:
        return shown
    return f'<span title="{esc(text, TITLE_WIDTH)}">{shown}</span>'


def num(count: int) -> str:
    return f"{count:,}"


def points(change: float) -> str:
    """A change of rate in percentage points, always signed: ``+1.5 pp``, ``-0.3 pp``
    (with :data:`MINUS`, not a hyphen), ``±0.0 pp``.

    The terminal's rounding (``text.change``: a change too small for one decimal
    still shows its direction, ``+<0.1 pp``), set with a typographic minus.
    """
    if change == 0:
        return "\u00b10.0 pp"
    return text_change(change).replace("-", MINUS)


def tolerance_points(tolerance: float) -> str:
    """A tolerance in percentage points: one decimal unless that would hide it."""
    magnitude = tolerance * 100
    return (
        f"{magnitude:.1f} pp" if round(magnitude, 1) == round(magnitude, 6) else f"{magnitude:g} pp"
    )


def kind_classes(kinds: Iterable[str]) -> dict[str, str]:
    """A colour class per kind. Class names never come from the data: a kind
    read from a summary file could be anything."""
    classes, others = {}, 0
    for kind in ordered_kinds(kinds):
        if kind in KIND_CLASSES:
            classes[kind] = KIND_CLASSES[kind]
        else:
            classes[kind] = OTHER_KIND_CLASSES[others % len(OTHER_KIND_CLASSES)]
            others += 1
    return classes


def swatch(css_class: str) -> str:
    return f'<span class="sw {css_class}" aria-hidden="true"></span>'


def kind_label(kind: str, css_class: str) -> str:
    """A kind with its colour: the legend of the bars is the column header itself."""
    return f"{swatch(css_class)}<code>{esc(kind)}</code>"


def width(part: float, whole: float) -> str:
    """A CSS width in percent, formatted the same way every time (deterministic output)."""
    return f"{100 * part / whole:.2f}%" if whole else "0%"


def stacked_bar(
    counts: Mapping[str, int], classes: Mapping[str, str], scale: int, label: str
) -> str:
    """Errors of one row by kind, as adjoining segments; ``scale`` is the longest row's total.

    The bar is an image to assistive technology (``label``, already escaped,
    says it in words); each segment's tooltip gives its kind and count.
    """
    segments = [
        f'<span class="seg {css}" style="width:{width(counts[kind], scale)}" '
        f'title="{esc(kind)}: {num(counts[kind])}"></span>'
        for kind, css in classes.items()
        if counts.get(kind)
    ]
    return f'<div class="bar" role="img" aria-label="{label}">{"".join(segments)}</div>'


def meter(rate: float) -> str:
    """A rate from 0 to 100% as a short horizontal gauge, next to its number (which says it)."""
    filled = f'<span style="width:{width(min(max(rate, 0.0), 1.0), 1.0)}"></span>'
    return f'<span class="meter" aria-hidden="true">{filled}</span>'


# The cell builders take markup: content and titles are already escaped, or this package's own.


def td(content: str, css_class: str = "", title: str = "") -> str:
    attrs = (f' class="{css_class}"' if css_class else "") + (f' title="{title}"' if title else "")
    return f"<td{attrs}>{content}</td>"


def th(content: str, css_class: str = "", scope: str = "col") -> str:
    return (
        f'<th scope="{scope}"' + (f' class="{css_class}"' if css_class else "") + f">{content}</th>"
    )


def tr(cells: Iterable[str], css_class: str = "") -> str:
    return (f'<tr class="{css_class}">' if css_class else "<tr>") + "".join(cells) + "</tr>"


def table(head: Iterable[str], rows: Iterable[str], css_class: str = "", above: str = "") -> str:
    """A table in a horizontally scrolling box, so a wide one never widens the page.

    ``above`` is an optional header row (a ``<tr>``) over the column headers.
    """
    klass = f' class="{css_class}"' if css_class else ""
    return (
        f'<div class="scroll"><table{klass}><thead>{above}{tr(head)}</thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def section(section_id: str, heading: str, *content: str) -> str:
    """One section of a page; ``section_id`` and ``heading`` are this package's own text."""
    return f'<section id="{section_id}"><h2>{heading}</h2>{"".join(content)}</section>'


def note(text: str, css_class: str = "note") -> str:
    return f'<p class="{css_class}">{text}</p>'
