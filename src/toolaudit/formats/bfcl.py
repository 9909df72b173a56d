"""Berkeley Function Calling Leaderboard result lines.

``{"id": ..., "result": [{"<function>": "<arguments as JSON>"}, ...]}`` from
function-calling models; prompt-mode models leave a string of Python calls
(``"[math.factorial(number=5)]"``), which is read with :mod:`ast` (parsed,
never run). A result that is plain text is an answer without a call.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Any

from toolaudit.formats.base import JSON_STRING, OBJECT, Call, Extracted, UnknownShape
from toolaudit.formats.declaration import Format

#: Longer result strings are not parsed as Python calls (ast is not for huge input).
MAX_PYTHON_CALLS_BYTES = 100_000
_END_MARKERS = ("<end_of_turn>", "<|eot_id|>", "</s>")


def result(record: Mapping[str, Any]) -> Extracted:
    value = record.get("result")
    if not isinstance(value, (list, str)):
        raise UnknownShape("a BFCL result line needs a result list (or string)")
    calls: list[Call] = []
    # No call ids in BFCL: each row carries its question's id instead.
    _collect(value, calls, record.get("id"))
    return Extracted("bfcl", calls, key=record.get("id"))


def _collect(value: object, calls: list[Call], question: object) -> None:
    # Multi-turn results nest lists (turns -> steps -> calls): walk them all.
    if isinstance(value, list):
        for item in value:
            _collect(item, calls, question)
    elif isinstance(value, Mapping):
        for name, arguments in value.items():
            encoding = JSON_STRING if isinstance(arguments, str) else OBJECT
            calls.append(Call(len(calls), name, arguments, id=question, encoding=encoding))
    elif isinstance(value, str):
        found, why_not = python_calls(value)
        if why_not is not None:
            calls.append(
                Call(
                    len(calls),
                    None,
                    id=question,
                    failure=f"the result looks like Python calls but {why_not}",
                )
            )
        for name, arguments in found:
            calls.append(Call(len(calls), name, arguments, id=question, encoding=OBJECT))


def python_calls(text: str) -> tuple[list[tuple[str, dict[str, Any]]], str | None]:
    """``"[f(a=1), m.g(b='x')]"`` -> ``([("f", {"a": 1}), ("m.g", {"b": "x"})], None)``.

    A text answer gives no call and no complaint; text that starts like a list
    of calls (``[name(``) but cannot be read as one gives why not: a broken
    call attempt, which is a failure to count, not an answer.
    """
    text = text.strip()
    for marker in _END_MARKERS:
        text = text.removesuffix(marker).strip()
    looks_like_calls = text.startswith("[") and "(" in text[:200]

    def unreadable(why: str) -> tuple[list[tuple[str, dict[str, Any]]], str | None]:
        return [], (why if looks_like_calls else None)

    if len(text) > MAX_PYTHON_CALLS_BYTES:
        return unreadable(f"is over {MAX_PYTHON_CALLS_BYTES} bytes")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as error:
        return unreadable(f"is not valid Python ({error.msg}, column {error.offset})")
    except (ValueError, RecursionError, MemoryError) as error:
        return unreadable(f"cannot be parsed ({type(error).__name__})")
    nodes = tree.body.elts if isinstance(tree.body, (ast.List, ast.Tuple)) else [tree.body]
    if not any(isinstance(node, ast.Call) for node in nodes):
        return [], None  # an answer in words (or a bare value), not a call
    found = []
    for node in nodes:
        if not isinstance(node, ast.Call):
            return unreadable("mixes calls with other values")
        name = _dotted_name(node.func)
        if name is None:
            return unreadable("calls something that is not a function name")
        if node.args:
            return unreadable(f"passes positional arguments to {name} (BFCL expects keywords)")
        arguments: dict[str, Any] = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                return unreadable(f"passes **kwargs to {name}")
            try:
                arguments[keyword.arg] = ast.literal_eval(keyword.value)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                source = ast.get_source_segment(text, keyword.value) or "?"
                return unreadable(
                    f"argument {keyword.arg} of {name} is not a Python literal: {source[:40]}"
                )
        found.append((name, arguments))
    return found, None


def _dotted_name(node: ast.expr) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _recognises(record: Mapping[str, Any]) -> bool:
    return "result" in record and "id" in record


BFCL = Format(
    name="bfcl",
    summary="BFCL results",
    recognises=_recognises,
    keys=("result",),
    extract=result,
    family="BFCL",
    tool_result_messages="openai-chat",
    # Every call of a record carries its question's id.
    unique_call_ids=False,
    logged_output="result",
)
