"""The ``--format`` choices, each with its renderer of a summary and of a comparison.

A renderer is named as ``"module:function"`` and imported on first use: the CLI
builds its ``--format`` option from :data:`FORMATS` when it starts, and
``toolaudit --version`` or ``--help`` must not pay for orjson and every
renderer to list the names. Every choice renders both kinds of value.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from toolaudit.results.score_compare import AnyComparison
    from toolaudit.results.summary import Summary


class Renderers(NamedTuple):
    """One ``--format`` choice: its two renderers, as ``"module:function"``."""

    summary: str
    comparison: str


#: --format choice -> its renderers, in the order ``--help`` lists the choices.
RENDERERS: dict[str, Renderers] = {
    "table": Renderers(
        "toolaudit.output.table:render_table",
        "toolaudit.output.compare_table:render_comparison_table",
    ),
    "json": Renderers(
        "toolaudit.output.json:render_json",
        "toolaudit.output.json:render_comparison_json",
    ),
    "markdown": Renderers(
        "toolaudit.output.markdown:render_markdown",
        "toolaudit.output.markdown:render_comparison_markdown",
    ),
}

#: The names of the --format choices.
FORMATS: tuple[str, ...] = tuple(RENDERERS)


def render_summary(format_name: str, summary: Summary) -> str:
    """An audit's summary as the --format choice ``format_name`` shows it."""
    render: Callable[[Summary], str] = load(RENDERERS[format_name].summary)
    return render(summary)


def render_comparison(format_name: str, comparison: AnyComparison) -> str:
    """A comparison (of two summaries or two score files) as the --format choice
    ``format_name`` shows it."""
    render: Callable[[AnyComparison], str] = load(RENDERERS[format_name].comparison)
    return render(comparison)


@functools.cache
def load(target: str) -> Callable[[Any], str]:
    """The renderer named ``"module:function"``, imported on the first call."""
    module, _, function = target.partition(":")
    renderer: Callable[[Any], str] = getattr(importlib.import_module(module), function)
    return renderer
