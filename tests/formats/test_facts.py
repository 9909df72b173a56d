"""What formats declare about themselves beyond reading records (the facts the audit and
the agent boundary ask of a format), held to what their records do."""

from __future__ import annotations

from typing import Any

import orjson

from toolaudit.formats import (
    FORMATS,
    HISTORY_FORMATS,
    TYPED_FORMATS,
    Extracted,
    UnknownShape,
    detect,
    extract,
    get_format,
)
from toolaudit.formats.declaration import KEY, STREAM
from toolaudit.formats.requests import REQUEST_FORMATS
from toolaudit.pipeline.fast_paths import TYPED_HISTORY_FORMATS

from ..conftest import REPO

CASES = REPO / "tests" / "cases" / "formats"


def _case_records() -> list[dict[str, Any]]:
    records = []
    for path in sorted(CASES.glob("*/input.jsonl")):
        for line in path.read_bytes().splitlines():
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if isinstance(record, dict):
                records.append(record)
    return records


def _case_extractions() -> list[tuple[dict[str, Any], str, Extracted]]:
    """Each case record of a known shape: the record, its format, what it holds."""
    read = []
    for record in _case_records():
        try:
            name = detect(record)
            read.append((record, name, extract(record, name)))
        except UnknownShape:
            continue
    return read


def test_the_typed_formats_are_those_with_a_typed_shape() -> None:
    assert sorted(TYPED_FORMATS) == [
        "anthropic",
        "anthropic-batch",
        "anthropic-request",
        "bedrock",
        "bedrock-request",
        "envelope",
        "flat",
        "gemini",
        "gemini-request",
        "mcp",
        "openai-batch",
        "openai-chat",
        "openai-chat-request",
        "openai-responses",
        "openai-responses-request",
    ]


def test_every_typed_shape_names_its_builder() -> None:
    from toolaudit.formats.typed import BUILDERS, typed_shapes

    declared = {fmt.typed_shape for fmt in FORMATS if fmt.typed_shape is not None}
    assert declared == set(BUILDERS)
    shapes = {shape.format: shape for shape in typed_shapes()}
    assert set(shapes) == TYPED_FORMATS - {"flat"}  # flat calls are read without a shape
    for name, shape in shapes.items():
        # The typed path reads a record's own tools exactly where its format says it has
        # some, and its calls judge them (a request logged alone holds none).
        carries = get_format(name).carries_tools and shape.holds_calls
        assert (shape.record_tools is not None) == carries, name
        assert shape.holds_calls == (name not in {fmt.name for fmt in REQUEST_FORMATS}), name


def test_the_formats_say_which_records_define_or_carry_tools() -> None:
    defining: set[str] = set()
    carrying: set[str] = set()
    for record, name, extracted in _case_extractions():
        fmt = get_format(name)
        if extracted.defines is not None:
            assert extracted.defines == fmt.defines_tools, record
            defining.add(name)
        elif extracted.tools is not None:
            assert fmt.carries_tools, record
            carrying.add(name)
    # Every declaration is met by some case record: none of them is a dead letter.
    assert defining == {fmt.name for fmt in FORMATS if fmt.defines_tools is not None}
    assert carrying == {fmt.name for fmt in FORMATS if fmt.carries_tools}


def test_the_formats_that_take_tools_an_earlier_record_defined() -> None:
    assert {fmt.name: fmt.uses_defined_tools for fmt in FORMATS if fmt.uses_defined_tools} == {
        "mcp": STREAM,  # a tools/call, judged by the last tools/list of its source
        "openai-batch": KEY,  # an output line, judged by its input line's tools
    }


def test_only_bfcl_repeats_call_ids_on_purpose() -> None:
    # BFCL's calls all carry their question's id: a repeated id there is no news.
    assert [fmt.name for fmt in FORMATS if not fmt.unique_call_ids] == ["bfcl"]


def test_the_formats_say_which_records_carry_a_history() -> None:
    carrying: set[str] = set()
    for record, name, extracted in _case_extractions():
        if extracted.history is not None:
            assert get_format(name).history is not None, record
            carrying.add(name)
    # Every declaration is met by some case record.
    assert carrying == {fmt.name for fmt in FORMATS if fmt.history is not None}
    assert carrying == HISTORY_FORMATS


def test_the_typed_path_checks_the_histories_of_pairs_and_requests_alone() -> None:
    # The typed fast path checks a pair's request's conversation, and a request's logged
    # alone (pipeline/typed_histories.py); the other formats' records that carry one are
    # the general path's with the check on.
    read_typed = TYPED_FORMATS & HISTORY_FORMATS
    assert read_typed == {"envelope"} | {fmt.name for fmt in REQUEST_FORMATS}
    assert read_typed == TYPED_HISTORY_FORMATS
