"""Each BFCL question's function docs, as its question file gives them, for ``--match
bfcl`` (BFCL's checker reads their parameter types).

A question file is read once already, by the schemas; reading it again whole (every
question's text, every line's checks) was most of what ``--match bfcl`` added to the
audit of BFCL's logs. Here a file of plain question lines is cut into each question's
``function`` text alone (msgspec, in C, skipping the rest of the line), parsed only when
its question is scored. Any other file, or a line that is not plainly a question, is
read by :func:`~toolaudit.schemas.files.read_schemas_file` as before, which decides:
both readings give the same functions (tests/truth/test_bfcl_functions.py).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import msgspec

from toolaudit.jsonutil import orjson_may_differ
from toolaudit.schemas.files import is_bfcl_question, loads_json, read_schemas_file, read_whole
from toolaudit.typed.arguments import is_utf8

__all__ = ["QuestionFunctions", "question_functions"]

Functions = Sequence[Mapping[str, Any]]


class _Question(msgspec.Struct, gc=False):
    """What is read of a question line; the rest is skipped."""

    id: str
    function: msgspec.Raw


_QUESTION = msgspec.json.Decoder(_Question)


class QuestionFunctions(Mapping[str, Functions]):
    """Question id -> its function docs (the definitions that are objects), each parsed
    from its text when asked for; or given parsed."""

    def __init__(self) -> None:
        self._texts: dict[str, bytes] = {}
        self._parsed: dict[str, Functions] = {}

    def add_text(self, question: str, text: bytes) -> None:
        self._parsed.pop(question, None)
        self._texts[question] = text

    def add_parsed(self, question: str, functions: Functions) -> None:
        self._texts.pop(question, None)
        self._parsed[question] = functions

    def __getitem__(self, question: str) -> Functions:
        parsed = self._parsed.get(question)
        if parsed is not None:
            return parsed
        # (Not kept: a question is scored once, and its text is the smaller form.)
        return _objects(loads_json(self._texts[question]))

    def __contains__(self, question: object) -> bool:
        return question in self._texts or question in self._parsed

    def __iter__(self) -> Iterator[str]:
        yield from self._texts
        yield from self._parsed

    def __len__(self) -> int:
        return len(self._texts) + len(self._parsed)


def question_functions(
    paths: Sequence[str], storage_options: Mapping[str, Any] | None = None
) -> QuestionFunctions:
    """The function docs of every question in the schemas files ``paths`` (a later file's
    question replacing an earlier one's), as
    :func:`~toolaudit.schemas.files.read_schemas_file` finds them."""
    found = QuestionFunctions()
    for path in paths:
        data = read_whole(path, storage_options, f"schemas file {path}")
        texts = _function_texts(data)
        if texts is not None:
            for question, text in texts:
                if isinstance(text, bytes):
                    found.add_text(question, text)
                else:
                    found.add_parsed(question, text)
            continue
        listed = read_schemas_file(path, storage_options=storage_options)
        for definitions in listed.lists:
            if definitions.question is not None:
                found.add_parsed(definitions.question, _objects(definitions.definitions))
    return found


def _objects(definitions: object) -> Functions:
    """The definitions that are objects (BFCL's checker reads nothing else)."""
    if not isinstance(definitions, list):
        return []
    return [d for d in definitions if isinstance(d, Mapping)]


def _function_texts(data: bytes) -> list[tuple[str, bytes | Functions]] | None:
    """Each question's ``function`` text (or, for a line msgspec cannot be trusted with,
    its definitions parsed), for a file whose every line is a BFCL question; None for any
    other file (then read whole, which also refuses what the schemas' reading refused)."""
    decode = _QUESTION.decode
    # msgspec checks neither the strings nor the numbers it skips: a line of text not
    # UTF-8, or of a number orjson may read otherwise, is parsed whole.
    check_lines = orjson_may_differ(data) or not data.isascii()
    found: list[tuple[str, bytes | Functions]] = []
    for line in data.splitlines():
        if not line.strip():
            continue
        question = None
        if not check_lines or _plain(line):
            with contextlib.suppress(msgspec.DecodeError):
                question = decode(line)
        text = b"" if question is None else bytes(question.function)  # (the line not kept)
        if text[:1] == b"[":
            if text[1:-1].strip():  # (an empty list: no functions, no entry)
                found.append((question.id, text))  # type: ignore[union-attr]
            continue
        value = _question(line)
        if value is None:
            return None
        function = value.get("function")
        if isinstance(function, list) and function:
            found.append((str(value["id"]), _objects(function)))
    return found


def _plain(line: bytes) -> bool:
    return not orjson_may_differ(line) and is_utf8(line)


def _question(line: bytes) -> Mapping[str, Any] | None:
    """A line read as the whole reading reads it; None for one that is not JSON, or not
    a question."""
    try:
        value = loads_json(line)
    except (ValueError, RecursionError):
        return None
    return value if is_bfcl_question(value) else None
