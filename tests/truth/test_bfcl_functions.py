"""The function docs ``--match bfcl`` reads from question files, each question's
``function`` text cut out by msgspec and parsed when asked for, are those of the whole
reading (``read_schemas_file``): on BFCL's question files, and on every line msgspec
cannot be trusted with or that is not plainly a question."""

from __future__ import annotations

import gzip
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from toolaudit.errors import ToolAuditError
from toolaudit.jsonutil import dumps_any
from toolaudit.schemas.files import read_schemas_file
from toolaudit.truth import bfcl_functions
from toolaudit.truth.bfcl_functions import question_functions

REPRODUCE = Path(__file__).resolve().parents[1] / "fixtures" / "bfcl" / "reproduce"
QUESTIONS = sorted(REPRODUCE.glob("*.function.jsonl.gz"))


def read_whole(paths: Sequence[str]) -> dict[str, Sequence[Mapping[str, Any]]]:
    """What --match bfcl read before: every file parsed whole."""
    functions: dict[str, Sequence[Mapping[str, Any]]] = {}
    for path in paths:
        for definitions in read_schemas_file(path).lists:
            if definitions.question is not None:
                functions[definitions.question] = [
                    d for d in definitions.definitions if isinstance(d, Mapping)
                ]
    return functions


def same_as_whole(*files: Path) -> dict[str, Sequence[Mapping[str, Any]]]:
    paths = [str(path) for path in files]
    found = question_functions(paths)
    whole = read_whole(paths)
    assert dict(found) == whole
    assert sorted(found) == sorted(whole) and len(found) == len(whole)
    for question, functions in whole.items():  # floats and integers told apart, keys in order
        assert dumps_any(found[question]) == dumps_any(functions)
    return whole


@pytest.mark.parametrize("path", QUESTIONS, ids=[p.name for p in QUESTIONS])
def test_bfcl_question_files(path: Path, tmp_path: Path) -> None:
    questions = tmp_path / path.name.removesuffix(".gz")
    questions.write_bytes(gzip.decompress(path.read_bytes()))
    assert same_as_whole(questions)


def lines(tmp_path: Path, name: str, *texts: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(b"\n".join(t.encode() if isinstance(t, str) else t for t in texts) + b"\n")
    return path


F = '{"name": "f", "parameters": {"type": "dict", "properties": {"x": {"type": "integer"}}}}'


@pytest.mark.parametrize(
    "line",
    [
        '{"id": "q1", "question": [], "function": [' + F + "]}",
        '{"id": "q1", "function": []}',  # no functions: no entry
        '{"id": "q1", "function": [ \t ]}',
        '{"id": "q1", "function": [1, "two", ' + F + "]}",  # objects only
        '{"id": "q1", "function": [1]}',  # none of them objects: an empty entry
        '{"id": "q1", "function": {"name": "f"}}',  # not a list: no entry
        '{"id": "q1", "question": "no function"}',
        '{"id": 7, "function": [' + F + "]}",  # an id not a string
        '{"id": "q1", "function": [{"default": 12345678901234567890123}]}',
        '{"id": "q1", "function": [{"default": 1e400}]}',
        '{"id": "q1", "question": "1e400 12345678901234567890123", "function": [' + F + "]}",
        '{"id": "q1", "question": "\\ud800", "function": [{"d": "\\udc00"}]}',
        '{"id": "q1", "function": [{"a": 1}], "function": [{"b": 2}]}',  # keys twice: the last
        '{"id": "q0", "id": "q1", "function": [' + F + "]}",
        '{"id": "q1", "question": "caf\u00e9 \u6771\u4eac", "function": [' + F + "]}",
    ],
)
def test_lines_msgspec_cannot_be_trusted_with_or_that_are_unusual(
    line: str, tmp_path: Path
) -> None:
    first = '{"id": "q0", "function": [' + F + "]}"
    same_as_whole(lines(tmp_path, "questions.jsonl", first, "", line, "   "))
    same_as_whole(lines(tmp_path, "one.jsonl", line))


def test_a_file_not_all_questions_has_none(tmp_path: Path) -> None:
    path = lines(tmp_path, "mixed.jsonl", '{"id": "q0", "function": [' + F + "]}", F)
    assert same_as_whole(path) == {}
    document = tmp_path / "document.json"
    document.write_text("[" + F + "]")
    assert same_as_whole(document) == {}


def test_a_later_file_replaces_a_question(tmp_path: Path) -> None:
    one = lines(tmp_path, "one.jsonl", '{"id": "q0", "function": [{"a": 1}]}')
    two = lines(tmp_path, "two.jsonl", '{"id": "q0", "function": [{"b": 2}]}')
    assert same_as_whole(one, two) == {"q0": [{"b": 2}]}


@pytest.mark.parametrize(
    "bad",
    [b'{"id": "q1", "question": "\xff", "function": [{}]}', b'{"id": "q1", "function": [NaN]}'],
)
def test_what_the_whole_reading_refuses_is_refused(bad: bytes, tmp_path: Path) -> None:
    path = lines(tmp_path, "bad.jsonl", '{"id": "q0", "function": [{"a": 1}]}', bad)
    with pytest.raises(ToolAuditError) as whole:
        read_whole([str(path)])
    with pytest.raises(ToolAuditError) as mine:
        question_functions([str(path)])
    assert str(mine.value) == str(whole.value)


def test_plain_lines_take_the_quick_reading(tmp_path: Path) -> None:
    """(Else the tests above would compare the whole reading with itself.)"""
    path = lines(tmp_path, "q.jsonl", '{"id": "q0", "function": [' + F + "]}")
    texts = bfcl_functions._function_texts(path.read_bytes())
    assert texts == [("q0", ("[" + F + "]").encode())]
