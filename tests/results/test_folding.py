"""--max-keys: invented names cannot grow memory; folding is exact, deterministic and mergeable."""

from __future__ import annotations

import io
import random

import orjson
import pytest

from toolaudit.pipeline.audit import Audit, AuditOptions
from toolaudit.results.folding import OTHER, Folding, folded_estimate, stable_hash
from toolaudit.results.merging import merge_summaries
from toolaudit.schemas.loading import schema_set
from toolaudit.sources import Source

from ..conftest import assert_counts_add_up

SCHEMAS = schema_set({"t": {"parameters": {"properties": {"a": {"type": "string"}}}}})


def invented_lines(seed: int = 7) -> list[bytes]:
    rng = random.Random(seed)
    lines = [
        orjson.dumps({"name": f"tool_{rng.randrange(5000)}", "arguments": {}}) for _ in range(3000)
    ]
    lines += [
        orjson.dumps({"name": "t", "arguments": {f"p{rng.randrange(4000)}": 1, "a": "x"}})
        for _ in range(3000)
    ]
    lines += [orjson.dumps({"name": "t", "arguments": {"a": "ok"}}) for _ in range(500)]
    rng.shuffle(lines)
    return lines


def audit(lines: list[bytes], max_tools: int = 100, max_params: int = 40):
    run = Audit(
        [Source("-")],
        SCHEMAS,
        AuditOptions(max_tools=max_tools, max_params=max_params),
        stdin=io.BytesIO(b"\n".join(lines) + b"\n"),
    )
    summary = run.run()
    return run, summary


def test_folded_names_go_to_other_and_totals_still_add_up():
    run, summary = audit(invented_lines())
    assert_counts_add_up(summary)
    assert len(summary.by_tool) == 100 + 1 + 1  # the invented kept, t (declared), <other>
    assert "t" in summary.by_tool and OTHER in summary.by_tool
    assert all(len(tool.by_param) <= 40 + 1 for tool in summary.by_tool.values())
    assert summary.calls == 6500
    assert summary.by_kind["unknown_tool"] == 3000
    # The memory bound holds during the run too: tables never exceed twice their limit.
    assert run.recorder is not None
    assert len(run.recorder.tally.by_tool) <= 2 * 100 + 1 + 2


def test_invented_names_never_push_a_declared_one_into_other():
    """However many tools and parameters a model invents, and however low --max-keys,
    the tools of the schemas and their parameters keep their own rows: declared names
    are bounded apart, by the same limit."""
    schemas = schema_set(
        {
            "get_weather": {"parameters": {"properties": {"city": {"type": "string"}}}},
            "convert": {"parameters": {"properties": {"amount": {"type": "number"}}}},
        }
    )
    lines = [orjson.dumps({"name": f"tool{i}", "arguments": {}}) for i in range(50)]
    lines += [
        orjson.dumps({"name": "get_weather", "arguments": {"city": 1, f"p{i}": 1}})
        for i in range(50)
    ]
    lines += [orjson.dumps({"name": "convert", "arguments": {"amount": "x"}})]
    run = Audit(
        [Source("-")],
        schemas,
        AuditOptions(max_tools=2, max_params=2),
        stdin=io.BytesIO(b"\n".join(lines) + b"\n"),
    )
    summary = run.run()
    assert_counts_add_up(summary)
    assert {"get_weather", "convert"} <= set(summary.by_tool)
    assert len(summary.by_tool) == 2 + 2 + 1  # two declared, two invented, <other>
    assert summary.by_tool["get_weather"].by_param["city"] == {"type": 50}
    assert "city" in summary.by_tool["get_weather"].by_param
    assert len(summary.by_tool["get_weather"].by_param) == 1 + 2 + 1  # city, two p*, <other>
    assert summary.by_tool[OTHER].calls == 48
    # And so in any order, and once merged from shards.
    shuffled = list(lines)
    random.Random(3).shuffle(shuffled)
    again = Audit(
        [Source("-")],
        schemas,
        AuditOptions(max_tools=2, max_params=2),
        stdin=io.BytesIO(b"\n".join(shuffled) + b"\n"),
    ).run()
    again.samples = summary.samples = []
    assert again.to_dict() == summary.to_dict()


def test_the_folded_count_is_a_fair_estimate():
    summary = audit(invented_lines(), max_tools=1000, max_params=1000)[1]
    distinct_tools = len({line.split(b'"')[3] for line in invented_lines()})
    assert summary.folded_tools == pytest.approx(distinct_tools - 1000, rel=0.15)
    assert summary.to_dict()["folded"]["tools"] == summary.folded_tools


def test_without_folding_nothing_is_estimated():
    summary = audit(invented_lines()[:50], max_tools=10_000)[1]
    assert OTHER not in summary.by_tool and summary.folded_tools == 0


def test_the_names_kept_do_not_depend_on_the_order_of_the_log():
    lines = invented_lines()
    first = audit(lines)[1]
    shuffled = list(lines)
    random.Random(1).shuffle(shuffled)
    second = audit(shuffled)[1]
    assert first.samples != second.samples  # the first failing rows: they do depend on it
    first.samples = second.samples = []
    assert first.to_dict() == second.to_dict()


def test_shards_audited_apart_merge_into_the_whole():
    lines = invented_lines()
    whole = audit(lines)[1]
    shards = [audit(lines[i : i + 1700])[1] for i in range(0, len(lines), 1700)]
    merged = merge_summaries(shards)
    # Sources name the shards (all stdin here); everything else is the whole's.
    merged.sources = whole.sources = []
    assert merged.to_dict() == whole.to_dict()


def test_a_folding_keeps_the_smallest_hashes():
    names = [f"n{i}" for i in range(50)]
    table = {name: 1 for name in names}
    Folding(10).compact(table, lambda a, b: a + b)
    kept = sorted(names, key=stable_hash)[:10]
    assert set(table) == {*kept, OTHER}
    assert table[OTHER] == 40
    assert folded_estimate(table, 10) > 0


def test_stable_hash_is_stable():
    # Pinned: summaries written by one run are merged by another, so it may never change.
    assert stable_hash("get_weather") == 0xBEC013CB8FB86FE2
    assert isinstance(stable_hash("\ud800"), int)  # lone surrogates from the stdlib parser hash too
