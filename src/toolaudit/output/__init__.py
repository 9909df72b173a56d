"""Renderers: pure functions from a summary to text. The CLI decides where it goes."""

from __future__ import annotations

from collections.abc import Callable

import orjson

from toolaudit.jsonutil import dumps_any
from toolaudit.output.table import render_table
from toolaudit.summary import Summary


def render_json(summary: Summary) -> str:
    """The summary as indented JSON, keys in a stable order, ending in a newline."""
    return dumps_any(summary.to_dict(), option=orjson.OPT_INDENT_2).decode() + "\n"


#: --format choices -> renderer.
RENDERERS: dict[str, Callable[[Summary], str]] = {
    "table": render_table,
    "json": render_json,
}

__all__ = ["RENDERERS", "render_json", "render_table"]
