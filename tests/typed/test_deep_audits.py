"""Deep audits on the typed path give the general path's rows and summaries, byte for byte:
on the benchmark's nested log, on every format case, and on lines at each edge where a
decoder and deep mode could part; and the typed path does read most valid calls."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolaudit.errors import SchemaError
from toolaudit.schemas import load_schemas
from toolaudit.schemas.loading import schema_set
from toolaudit.typed import arguments as typed_arguments

from ..conftest import REPO
from ..deep.test_against_jsonschema import cases
from ..pipeline.test_typed_path import FOLDERS, assert_same_either_way, audited

BENCHMARKS = REPO / "benchmarks"


@pytest.fixture(scope="module")
def nested() -> Iterator[tuple[Any, bytes]]:
    """The nested tools' schemas and 600 lines of the benchmark's nested log."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        from nested import generate_nested_lines
        from nested_tools import nested_schemas

        schemas = schema_set(nested_schemas(), deep=True)
        lines = [line for line, _, _ in generate_nested_lines(600, seed=7)]
    finally:
        sys.path.remove(str(BENCHMARKS))
    yield schemas, ("\n".join(lines) + "\n").encode()


def test_the_nested_log_gives_the_same_rows_and_summary(nested: tuple[Any, bytes]) -> None:
    schemas, data = nested
    assert_same_either_way(data, schemas, deep=True)
    assert_same_either_way(data, schemas, deep=True, group_by=("model",))


def test_the_typed_path_reads_the_nested_logs_valid_calls(
    nested: tuple[Any, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only refused calls reach a deep check: the valid four fifths are decoded."""
    schemas, data = nested
    checked = []
    [deep_class] = {type(tool) for tool in schemas.validator.tools.values()}
    check = deep_class.check
    monkeypatch.setattr(deep_class, "check", lambda self, a: checked.append(1) or check(self, a))
    _, summary = audited(data, schemas, typed=True, deep=True)
    invalid = summary["invalid"]
    assert invalid > 60
    # The first call to each tool is judged before its decoder is built; the rest of the
    # valid calls are not checked at all.
    assert len(checked) < invalid + 2 * len(schemas.validator.tools)


def test_the_comparison_catches_a_decoder_that_accepts_too_much(
    nested: tuple[Any, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    schemas, data = nested
    made = typed_arguments.msgspec.defstruct

    def lenient(*args: Any, **kwargs: Any) -> Any:
        kwargs["forbid_unknown_fields"] = False
        return made(*args, **kwargs)

    monkeypatch.setattr(typed_arguments.msgspec, "defstruct", lenient)
    with pytest.raises(AssertionError):
        assert_same_either_way(data, schemas, deep=True)


@pytest.mark.parametrize("folder", FOLDERS, ids=[path.name for path in FOLDERS])
def test_every_format_case_gives_the_same_deep_report_and_summary(folder: Path) -> None:
    [schemas_file] = sorted(folder.glob("schemas.json*"))
    try:
        schemas = load_schemas(str(schemas_file), deep=True)
    except SchemaError:
        pytest.skip("schemas deep mode cannot judge by")
    assert_same_either_way((folder / "input.jsonl").read_bytes(), schemas, deep=True)


EDGE_SCHEMAS = {
    "t": {
        "parameters": {
            "type": "object",
            "properties": {
                "amount": {"type": "number", "minimum": 0, "maximum": 10},
                "count": {"type": "integer", "multipleOf": 2},
                "code": {"type": "string", "pattern": "^[A-Z]{3}$", "maxLength": 3},
                "tags": {
                    "type": "array",
                    "items": {"type": ["integer", "boolean"]},
                    "uniqueItems": True,
                },
                "where": {
                    "anyOf": [
                        {"type": "object", "properties": {"lat": {"type": "number"}}},
                        {"type": "null"},
                    ]
                },
                "letters": {"type": "string", "pattern": "^\\p{Letter}+$"},
            },
        }
    }
}

EDGE_ARGUMENTS = [
    '{"amount": 5}',
    '{"amount": 0.0}',
    '{"amount": -1e-400}',
    '{"amount": 1e-400}',
    '{"amount": 1e400}',
    '{"amount": 10.000000000000001}',
    '{"count": 4}',
    '{"count": 4.0}',
    '{"count": true}',
    '{"count": 18446744073709551616}',
    '{"count": 3}',
    '{"code": "ABC"}',
    '{"code": "ABC\\n"}',
    '{"code": "AB\\u0043"}',
    '{"tags": [1, 2]}',
    '{"tags": [1, true]}',
    '{"tags": [1, 1]}',
    '{"where": null}',
    '{"where": {"lat": 1.5}}',
    '{"where": {"lat": 1.5, "lon": 2}}',
    '{"where": {"lat": "n"}}',
    '{"letters": "\\u00e9t\\u00e9"}',
    '{"letters": "123"}',
    '{"letters": "\\ud800"}',
    '{"code": "ABC", "code": "abc"}',
    '{"code": "abc", "code": "ABC"}',
]


def edge_lines(calls_a_line: int) -> bytes:
    """Each edge as a flat call, and as OpenAI Chat responses holding it among valid ones."""
    lines = [f'{{"name": "t", "arguments": {text}}}' for text in EDGE_ARGUMENTS]
    for text in EDGE_ARGUMENTS:
        calls = [
            {"id": f"c{i}", "type": "function", "function": {"name": "t", "arguments": arguments}}
            for i, arguments in enumerate(['{"count": 2}'] * (calls_a_line - 1) + [text])
        ]
        message = {"role": "assistant", "content": None, "tool_calls": calls}
        response = {
            "id": "r",
            "object": "chat.completion",
            "model": "m",
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
        }
        lines.append(json.dumps(response))
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize("calls_a_line", [1, 3])
def test_lines_at_every_edge_give_the_same_rows_and_summary(calls_a_line: int) -> None:
    schemas = schema_set(EDGE_SCHEMAS, deep=True)
    # Valid calls first: the typed path reads flat calls once one was read.
    data = b'{"name": "t", "arguments": {}}\n' * 3 + edge_lines(calls_a_line)
    assert_same_either_way(data, schemas, deep=True)


@pytest.mark.slow
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(st.lists(cases(), min_size=1, max_size=3), st.integers(1, 4))
def test_random_nested_schemas_give_the_same_rows_and_summary(
    generated: list[Any], calls_each: int
) -> None:
    tools = {}
    lines = []
    for index, (defs, schema, value) in enumerate(generated):
        parameters: dict[str, Any] = {"type": "object", "properties": {"x": schema}}
        if defs:
            parameters["$defs"] = defs
        tools[f"t{index}"] = {"parameters": parameters}
        lines += [json.dumps({"name": f"t{index}", "arguments": {"x": value}})] * calls_each
    try:
        schemas = schema_set(tools, deep=True)
    except SchemaError:
        return
    assert_same_either_way(("\n".join(lines) + "\n").encode(), schemas, deep=True)
