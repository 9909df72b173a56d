"""The report row: built in one place, written as JSON lines.

A row is a plain dict, so that library users get ordinary data and orjson
writes it in C. Its keys come in one order, which the golden report files fix:
``source, line, index, id, tool, [model], ok, errors, [detail]``. An audit that
writes its report writes a valid call's row without making the dict
(:func:`valid_row_writer`): the same bytes, for about half the cost.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from types import MethodType
from typing import Any

import orjson

from toolaudit.compiled import speedups
from toolaudit.jsonutil import dumps_any

_TEXT_SPEEDUPS = speedups("toolaudit._text_speedups")
#: A valid row's line made in C (``_text_speedups.c``) where its id is a string or null
#: and the writer keeps its tool's and model's parts, in one copy; the writer's own
#: formatting otherwise, and where it was not built (None).
VALID_ROW_LINE = _TEXT_SPEEDUPS.valid_row_line if _TEXT_SPEEDUPS is not None else None
#: A failing row's line made in C where its parts are strings (see failing_row_writer).
FAILING_ROW_LINE = _TEXT_SPEEDUPS.failing_row_line if _TEXT_SPEEDUPS is not None else None

Row = dict[str, Any]


def problem_row(
    source: str,
    line: int,
    path: str,
    problem: str,
    call_id: object,
    tool: str | None,
    model: str | None,
    detail: str,
) -> Row:
    """The report row of a problem in a record's conversation (a call left unanswered, a
    result that answers no call...): where it is in the record (``path``), its code, the
    call it is about, the model, and what is wrong. It has ``problem`` where a call's row
    has ``errors``: a reader tells the two by that key."""
    row: Row = {"source": source, "line": line, "path": path, "problem": problem}
    row["id"] = call_id
    row["tool"] = tool
    if model is not None:
        row["model"] = model
    row["detail"] = detail
    return row


def history_call_row(
    source: str,
    line: int,
    path: str,
    call_id: object,
    tool: str | None,
    model: str | None,
    errors: list[str],
    detail: str | None,
) -> Row:
    """The report row of a failing call a record's conversation holds (--history): a
    call's row with ``path`` (where it is in the record) in place of ``index``."""
    row: Row = {"source": source, "line": line, "path": path, "id": call_id, "tool": tool}
    if model is not None:
        row["model"] = model
    row["ok"] = False
    row["errors"] = errors
    if detail is not None:
        row["detail"] = detail
    return row


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


def valid_row(
    source: str, line: int, index: int, call_id: object, tool: str, model: str | None
) -> Row:
    """A valid call's report row."""
    return make_row(source, line, index, call_id, tool, model, [])


#: Distinct tools (or models) a valid row writer keeps encoded; past it, it encodes
#: each time.
MOST_KEPT = 1000


def valid_row_writer(source: str) -> Callable[[int, int, object, str, str | None], bytes]:
    """What writes a valid call's report line, for one source: (its line, its index,
    its id, its tool, the model) -> the bytes ``orjson.dumps`` makes of the dict
    :func:`valid_row` makes (a newline after), without the dict. Most rows of a report
    are valid calls', so this is what a report costs per line, mostly.

    Each part is orjson's own encoding of its value, and the keys and punctuation are
    fixed; the tests compare the two on every kind of value. A closure: a call costs
    less than a method's (measured).
    """

    def as_dict_would(
        line: int, index: int, call_id: object, tool: str, model: str | None
    ) -> bytes:
        # What orjson cannot write (a lone surrogate, from a file's name or the standard
        # library's parser) makes the whole row the standard library's: so here too.
        return dump_row(valid_row(source, line, index, call_id, tool, model))

    head = _encoded_head(source)
    if head is None:
        return as_dict_would
    tools: dict[str, bytes] = {}
    models: dict[str | None, bytes] = {None: b',"ok":true,"errors":[]}\n'}
    dumps = orjson.dumps

    def write(line: int, index: int, call_id: object, tool: str, model: str | None) -> bytes:
        try:
            tool_part = tools.get(tool)
            if tool_part is None:
                tool_part = b',"tool":' + dumps(tool)
                if len(tools) < MOST_KEPT:
                    tools[tool] = tool_part
            model_part = models.get(model)
            if model_part is None:
                model_part = b',"model":' + dumps(model) + b',"ok":true,"errors":[]}\n'
                if len(models) < MOST_KEPT:
                    models[model] = model_part
            return b'%s%d,"index":%d,"id":%s%s%s' % (
                head,
                line,
                index,
                dumps(call_id),
                tool_part,
                model_part,
            )
        except TypeError:  # orjson's JSONEncodeError is one
            return as_dict_would(line, index, call_id, tool, model)

    if VALID_ROW_LINE is not None:
        # The C function as a method of the parts it reads: called with them first, with
        # no Python frame and no copy of the arguments (a partial copies them).
        return MethodType(VALID_ROW_LINE, (head, tools, models, write))
    return write


def failing_row_writer(
    source: str,
) -> Callable[[int, int, object, str, str | None, list[str], dict[str, str]], bytes]:
    """What writes a failing call's report line, for one source: (its line, its index, its
    id, its tool, the model, its errors, their reasons) -> the bytes :func:`dump_row`
    makes of :func:`make_row`'s dict with ``"why"`` added, without the dict where orjson
    can write the parts (in C where ``_text_speedups`` is built and they are strings): a
    report of a log whose calls fail often writes many (tests/pipeline/test_rows.py
    compares them on every kind of value)."""
    head = _encoded_head(source)
    dumps = orjson.dumps

    def write(
        line: int,
        index: int,
        call_id: object,
        tool: str,
        model: str | None,
        errors: list[str],
        why: dict[str, str],
    ) -> bytes:
        if head is not None:
            try:
                return b'%s%d,"index":%d,"id":%s,"tool":%s%s,"ok":false,"errors":%s,"why":%s}\n' % (
                    head,
                    line,
                    index,
                    dumps(call_id),
                    dumps(tool),
                    b"" if model is None else b',"model":' + dumps(model),
                    dumps(errors),
                    dumps(why),
                )
            except TypeError:  # (see valid_row_writer)
                pass
        row = make_row(source, line, index, call_id, tool, model, errors)
        row["why"] = why
        return dump_row(row)

    if FAILING_ROW_LINE is not None and head is not None:
        return MethodType(FAILING_ROW_LINE, (head, write))  # (as in valid_row_writer)
    return write


def _encoded_head(source: str) -> bytes | None:
    """A row's bytes up to its line number, or None where orjson cannot write the source's
    name (a lone surrogate: the standard library then writes each whole row)."""
    try:
        return b'{"source":' + orjson.dumps(source) + b',"line":'
    except TypeError:
        return None


#: What a row's ``id`` says of a call id from a log nested deeper than orjson writes (the
#: parser reads 1,024 levels, the writer 254): written as it came, it would depend on how
#: deep the standard library's writer can recurse from where it is called.
UNWRITABLE_ID = "<an id nested too deeply to write>"

_dump = functools.partial(dumps_any, option=orjson.OPT_APPEND_NEWLINE)


def dump_row(row: Row) -> bytes:
    """One row as a JSON line: orjson's, or the standard library's for what orjson cannot
    write (a lone surrogate from the standard library's parser, or a file's name).

    Copied to its own size: orjson's bytes keep the 4 KiB it wrote them into, and a
    record of 100,000 failing calls holds its rows until they are written (400 MB).
    """
    return bytes(memoryview(_dump(writable(row))))


def writable(row: Row) -> Row:
    """The row, or a copy of it whose ``id`` says the id is nested too deeply to write."""
    call_id = row["id"]
    if call_id is None or type(call_id) is str or type(call_id) is int:
        return row
    try:
        orjson.dumps(call_id)
    except orjson.JSONEncodeError as error:
        if "ecursion" in str(error):
            return {**row, "id": UNWRITABLE_ID}
    return row
