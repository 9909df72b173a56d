"""Renderers: pure functions from a summary to text. The CLI decides where it goes."""

from __future__ import annotations

from collections.abc import Callable

import orjson

from toolaudit.results.compare import Comparison
from toolaudit.jsonutil import dumps_any
from toolaudit.output.compare_table import render_comparison_table
from toolaudit.output.markdown import render_comparison_markdown, render_markdown
from toolaudit.output.table import render_table
from toolaudit.results.summary import Summary


def render_json(summary: Summary) -> str:
    """The summary as indented JSON, keys in a stable order, ending in a newline."""
    return dumps_any(summary.to_dict(), option=orjson.OPT_INDENT_2).decode() + "\n"


def render_comparison_json(comparison: Comparison) -> str:
    return dumps_any(comparison.to_dict(), option=orjson.OPT_INDENT_2).decode() + "\n"


#: --format choices -> renderer, for an audit's summary and for a comparison.
RENDERERS: dict[str, Callable[[Summary], str]] = {
    "table": render_table,
    "json": render_json,
    "markdown": render_markdown,
}
COMPARISON_RENDERERS: dict[str, Callable[[Comparison], str]] = {
    "table": render_comparison_table,
    "json": render_comparison_json,
    "markdown": render_comparison_markdown,
}

__all__ = ["COMPARISON_RENDERERS", "RENDERERS", "render_json", "render_table"]
