"""JSON: a summary as ``--summary`` writes it (and ``compare`` and ``merge`` read it),
or a comparison."""

from __future__ import annotations

from typing import TYPE_CHECKING

import orjson

from toolaudit.jsonutil import dumps_any
from toolaudit.results.summary import Summary

if TYPE_CHECKING:
    # Only for the annotation: a summary's JSON (every audit's --format json) needs
    # none of the comparisons' modules.
    from toolaudit.results.score_compare import AnyComparison


def render_json(summary: Summary) -> str:
    """The summary as indented JSON, keys in a stable order, ending in a newline."""
    return _indented(summary.to_dict())


def render_comparison_json(comparison: AnyComparison) -> str:
    """The comparison (of summaries or of score files) as indented JSON, keys in a stable
    order, ending in a newline."""
    return _indented(comparison.to_dict())


def _indented(data: object) -> str:
    return dumps_any(data, option=orjson.OPT_INDENT_2).decode() + "\n"
