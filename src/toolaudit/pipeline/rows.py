"""The report row: built in one place, written as JSON lines.

A row is a plain dict, so that library users get ordinary data and orjson
writes it in C. Its keys come in one order, which the golden report files fix:
``source, line, index, id, tool, [model], ok, errors, [detail]``.
"""

from __future__ import annotations

import functools
from typing import Any, BinaryIO

import orjson

from toolaudit.jsonutil import dumps_any

Row = dict[str, Any]

_dump_line = functools.partial(orjson.dumps, option=orjson.OPT_APPEND_NEWLINE)


def make_row(
    source: str,
    line: int,
    index: int | None,
    call_id: object,
    tool: str | None,
    model: str | None,
    errors: list[str],
    detail: str | None = None,
) -> Row:
    """One report row: a call (``index`` its place in the record), or a record that
    held no readable call (``index``, ``call_id`` and ``tool`` None)."""
    # One literal per combination of the optional keys: a dict built whole is about
    # twice as fast as one grown key by key, and this runs once per report row.
    ok = not errors
    if model is None:
        if detail is None:
            return {
                "source": source,
                "line": line,
                "index": index,
                "id": call_id,
                "tool": tool,
                "ok": ok,
                "errors": errors,
            }
        return {
            "source": source,
            "line": line,
            "index": index,
            "id": call_id,
            "tool": tool,
            "ok": ok,
            "errors": errors,
            "detail": detail,
        }
    if detail is None:
        return {
            "source": source,
            "line": line,
            "index": index,
            "id": call_id,
            "tool": tool,
            "model": model,
            "ok": ok,
            "errors": errors,
        }
    return {
        "source": source,
        "line": line,
        "index": index,
        "id": call_id,
        "tool": tool,
        "model": model,
        "ok": ok,
        "errors": errors,
        "detail": detail,
    }


def write_rows(report: BinaryIO, rows: list[Row]) -> None:
    """Write rows as JSON lines, fast with orjson; a row orjson cannot write (a
    lone surrogate from the standard library's parser) goes through dumps_any."""
    pending = iter(rows)
    while True:
        try:
            report.writelines(map(_dump_line, pending))
            return
        except TypeError:
            # writelines wrote every row before the one that failed; map took that
            # one from `pending` too, so it is just before what `pending` has left.
            rest = list(pending)
            failed = rows[len(rows) - len(rest) - 1]
            report.write(dumps_any(failed, option=orjson.OPT_APPEND_NEWLINE))
            pending = iter(rest)
