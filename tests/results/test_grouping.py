"""--group-by: groups that add up to the whole, by dotted paths and several fields, bounded in
number; and their keys: one key per tuple of values, never the key of another tuple or of a
bucket."""

from __future__ import annotations

import io
import json

import orjson
import pytest

import toolaudit
from toolaudit.pipeline.audit import Audit, AuditOptions
from toolaudit.results.folding import OTHER
from toolaudit.results.grouping import group_key
from toolaudit.results.summary import MAX_GROUPS, NULL_GROUP
from toolaudit.schemas.loading import load_schemas
from toolaudit.sources import Source

from ..conftest import FIXTURES, SAMPLE, SAMPLE_SCHEMAS, assert_counts_add_up, grouped


def key(*values: object, missing: bool = False) -> str:
    fields = tuple(f"f{i}" for i in range(len(values)))
    record = {} if missing else {f"f{i}": v for i, v in enumerate(values)}
    return group_key(record, None, fields)


def test_plain_values_read_as_themselves():
    assert key("gpt-4o-mini") == "gpt-4o-mini"
    assert key("claude", "v2") == "claude | v2"
    assert key(3) == "3" and key(True) == "true" and key({"b": 1, "a": [2]}) == '{"a":[2],"b":1}'
    assert group_key({}, None, ("model",)) == NULL_GROUP


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (("null",), (None,)),  # a string "null" is not a missing field
        (("1",), (1,)),
        (("1.5e3",), (1500.0,)),
        (("true",), (True,)),
        (("[1]",), ([1],)),
        (('{"a":1}',), ({"a": 1},)),
        ((OTHER,), ("<other>",)),  # the same, so this pair must be equal: checked below
        (("a | b", "c"), ("a", "b | c")),
        (("a |", "b"), ("a", "| b")),
        (('"x"',), ("x",)),
    ],
)
def test_different_values_never_share_a_key(first, second):
    if first == second:
        assert key(*first) == key(*second) != OTHER
        return
    assert key(*first) != key(*second)


def test_reserved_strings_are_written_as_json_strings():
    assert key("null") == '"null"'
    assert key(OTHER) == json.dumps(OTHER)
    assert key("a | b", "c") == '"a | b" | c'
    assert key("a | b") == "a | b"  # one field: nothing to confuse it with


TRICKY = [
    "a",
    "a ",
    " a",
    "a |",
    "| a",
    "a | b",
    "|",
    " | ",
    "",
    "null",
    '"null"',
    "1",
    "-1.5e3",
    "true",
    "[1]",
    "{}",
    OTHER,
    "<no name>",
    '"',
    "\\",
]
VALUES = [*TRICKY, None, 1, -1500.0, True, [1], {}, ["a | b"], {"a": "b | c"}]


def test_no_two_tuples_of_values_share_a_key():
    for width in (1, 2, 3):
        tuples = [()]
        for _ in range(width):
            tuples = [
                (*t, v) for t in tuples for v in (VALUES if width < 3 else [*TRICKY[:8], None])
            ]
        keys: dict[str, tuple[object, ...]] = {}
        for values in tuples:
            made = key(*values)
            assert made != OTHER
            seen = keys.setdefault(made, values)
            assert repr(seen) == repr(values), f"{seen!r} and {values!r} share the key {made!r}"


def test_groups_by_model_add_up_to_the_whole(in_repo):
    summary = grouped("model")
    assert set(summary.groups) == {"gpt-4o-mini", "claude-sonnet-4-5", "null"}
    assert_counts_add_up(summary)
    for group in summary.groups.values():
        assert_counts_add_up(group)
    assert sum(g.records for g in summary.groups.values()) == summary.records
    assert sum(g.calls for g in summary.groups.values()) == summary.calls
    assert sum(g.invalid for g in summary.groups.values()) == summary.invalid
    # The lines that are not JSON (no record, no field) fall into the null group.
    assert summary.groups["null"].malformed_records == summary.malformed_records
    gpt, claude = summary.groups["gpt-4o-mini"], summary.groups["claude-sonnet-4-5"]
    assert gpt.error_rate > claude.error_rate  # the sample makes gpt-4o-mini sloppier
    ungrouped = toolaudit.audit([SAMPLE], SAMPLE_SCHEMAS).run()
    assert summary.by_tool == ungrouped.by_tool and summary.by_kind == ungrouped.by_kind


def test_group_by_a_dotted_path_and_several_fields(tmp_path):
    log = tmp_path / "log.jsonl"
    records = [
        {"name": "ping", "model": "a", "metadata": {"prompt_version": "v1"}},
        {"name": "ping", "model": "a", "metadata": {"prompt_version": "v2"}},
        {"name": "nope", "model": "b", "metadata": {"prompt_version": 2}},
        {"name": "ping"},
    ]
    log.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    schemas = {"ping": {}}
    summary = toolaudit.audit([str(log)], schemas, group_by=("metadata.prompt_version",)).run()
    assert {k: g.calls for k, g in summary.groups.items()} == {"v1": 1, "v2": 1, "2": 1, "null": 1}
    summary = toolaudit.audit(
        [str(log)], schemas, group_by=("model", "metadata.prompt_version")
    ).run()
    assert set(summary.groups) == {"a | v1", "a | v2", "b | 2", "null | null"}
    assert summary.groups["b | 2"].by_kind == {"unknown_tool": 1}


def test_the_model_a_format_names_is_grouped_without_a_top_level_field():
    summary = toolaudit.audit(
        [str(FIXTURES / "formats" / "anthropic.jsonl")],
        str(FIXTURES / "formats" / "schemas.json"),
        group_by=("model",),
    ).run()
    assert {k: g.calls for k, g in summary.groups.items()} == {
        "claude-sonnet-4-5": 2,
        "claude-haiku-4-5": 2,
        "null": 0,
    }
    # The errored batch result names no model, nor does the stream event.
    assert (
        summary.groups["null"].records_without_calls,
        summary.groups["null"].malformed_records,
    ) == (1, 1)


def test_groups_are_bounded(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_bytes(
        b"".join(
            orjson.dumps({"name": "ping", "id": f"c{i}"}) + b"\n" for i in range(3 * MAX_GROUPS)
        )
    )
    summary = toolaudit.audit([str(log)], {"ping": {}}, group_by=("id",)).run()
    assert len(summary.groups) == MAX_GROUPS + 1 and OTHER in summary.groups
    assert sum(g.calls for g in summary.groups.values()) == 3 * MAX_GROUPS


def test_stdin_records_can_be_grouped():
    data = b'{"name": "ping", "model": "m"}\n'
    run = Audit(
        [Source("-")],
        load_schemas(str(FIXTURES / "formats" / "schemas.json")),
        AuditOptions(group_by=("model",)),
        stdin=io.BytesIO(data),
    )
    assert set(run.run().groups) == {"m"}
