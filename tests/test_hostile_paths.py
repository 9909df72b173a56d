"""Hostile inputs on the newest code paths (tests/hostile_inputs.py, hostile_expected.py):
conversation histories of every request format, streamed events, expected-calls files,
arguments hostile to deep mode.

Each log is audited every way that must give the same bytes: the typed fast path on and
off, the histories' fast path on and off. Every way, the counts add up, every line is
counted once and no line meets a bug (``malformed:internal``); an expected file's every
line is an entry or a located problem, and every entry is in exactly one outcome. A few
seeds run in the quick suite; ``-m slow`` runs many more.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

import pytest

from toolaudit.history import fast as history_fast
from toolaudit.pipeline.audit import Audit, AuditOptions
from toolaudit.schemas import SchemaSet, load_schemas
from toolaudit.schemas.loading import schema_set
from toolaudit.sources import Source
from toolaudit.truth.expectations import Expectations, load_expectations

from .conftest import REPO, assert_counts_add_up
from .hostile import CASES
from .hostile_expected import expected_files
from .hostile_inputs import HISTORY_FOLDERS, STREAM_FOLDERS, deep_log, history_log, stream_log
from .test_hostile_lines import _loads
from .typed.test_deep_audits import EDGE_SCHEMAS

QUICK_SEEDS = (1,)
SLOW_SEEDS = tuple(range(2, 30))
#: The ways of reading that must agree: the typed fast path off, the histories' off.
WAYS: tuple[dict[str, bool], ...] = ({}, {"typed": False}, {"history_fast": False})


def audited(
    data: bytes,
    schemas: SchemaSet,
    *,
    typed: bool = True,
    history_fast: bool = True,
    expectations: Expectations | None = None,
    **options: Any,
) -> tuple[bytes, dict[str, Any], bytes]:
    """(the report, the summary, the scores), the counts checked."""
    run = Audit(
        [Source("-")],
        schemas,
        AuditOptions(**options),
        stdin=io.BytesIO(data),
        expectations=expectations,
    )
    run.typed_fast_path = typed
    report, scores = io.BytesIO(), io.BytesIO()
    with pytest.MonkeyPatch.context() as patch:
        if not history_fast:
            for shape in list(history_fast_paths()):
                patch.delitem(history_fast_paths(), shape)
        summary = run.run(report, scores)
    assert_counts_add_up(summary)
    assert summary.lines == data.count(b"\n")
    for row in map(_loads, report.getvalue().splitlines()):
        assert "malformed:internal" not in row.get("errors", ()), row
        assert row.get("problem") != "malformed:internal", row
    return report.getvalue(), summary.to_dict(), scores.getvalue()


def history_fast_paths() -> dict[str, Any]:
    return history_fast.FAST


def assert_alike(
    data: bytes, schemas: SchemaSet, ways: tuple[dict[str, bool], ...], **options: Any
) -> Any:
    first, *others = [audited(data, schemas, **way, **options) for way in ways]
    for way, other in zip(ways[1:], others, strict=True):
        assert other[0].splitlines() == first[0].splitlines(), way
        assert other[1:] == first[1:], way
    return first


def _schemas(folder: str) -> SchemaSet:
    [path] = sorted((CASES / folder).glob("schemas.json*"))
    return load_schemas(str(path))


def _histories(folder: str, seed: int) -> None:
    data = history_log(folder, seed)
    for history in (False, True):
        assert_alike(data, _schemas(folder), WAYS, history=history)


@pytest.mark.parametrize("seed", QUICK_SEEDS)
@pytest.mark.parametrize("folder", sorted(HISTORY_FOLDERS))
def test_hostile_histories_are_read_alike_every_way(folder: str, seed: int) -> None:
    _histories(folder, seed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SLOW_SEEDS[:12])
@pytest.mark.parametrize("folder", sorted(HISTORY_FOLDERS))
def test_many_hostile_histories_are_read_alike_every_way(folder: str, seed: int) -> None:
    _histories(folder, seed)


def _streams(folder: str, seed: int) -> None:
    data, schemas = stream_log(folder, seed), _schemas(folder)
    for options in ({}, {"max_open_streams": 1}, {"errors_only": True}, {"group_by": ("model",)}):
        assert_alike(data, schemas, WAYS[:2], **options)


@pytest.mark.parametrize("seed", QUICK_SEEDS)
@pytest.mark.parametrize("folder", STREAM_FOLDERS)
def test_hostile_stream_events_are_read_alike_every_way(folder: str, seed: int) -> None:
    _streams(folder, seed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SLOW_SEEDS)
@pytest.mark.parametrize("folder", STREAM_FOLDERS)
def test_many_hostile_stream_events_are_read_alike_every_way(folder: str, seed: int) -> None:
    _streams(folder, seed)


def _expected(seed: int, tmp: Path) -> None:
    expected, log = expected_files(seed)
    path = tmp / f"expected-{seed}.jsonl"
    path.write_bytes(expected)
    schemas = _schemas("flat")
    for match in ("default", "bfcl"):
        expectations = load_expectations(str(path), match=match, schemas=schemas)
        entries, problems = expectations.entries, expectations.entries.problems
        assert len(entries) + len(problems) == sum(
            1 for line in expected.splitlines() if line.strip()
        )
        assert all(problem.source == str(path) and problem.line >= 1 for problem in problems)
        _, summary, scores = assert_alike(log, schemas, WAYS[:2], expectations=expectations)
        truth = summary["ground_truth"]
        assert sum(truth["outcomes"].values()) == truth["total"] == len(entries)
        assert len(scores.splitlines()) == len(entries)


@pytest.mark.parametrize("seed", QUICK_SEEDS)
def test_hostile_expected_files_are_scored_alike_every_entry_once(
    seed: int, tmp_path: Path
) -> None:
    _expected(seed, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2, 200))
def test_many_hostile_expected_files_are_scored_alike(seed: int, tmp_path: Path) -> None:
    _expected(seed, tmp_path)


def _nested() -> tuple[SchemaSet, list[tuple[str, dict[str, Any]]]]:
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        from nested import generate_nested_lines
        from nested_tools import nested_schemas
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    import json

    calls = [json.loads(line) for line, _, _ in generate_nested_lines(40, seed=7)]
    return schema_set(nested_schemas(), deep=True), [(c["name"], c["arguments"]) for c in calls]


EDGE_CALL = {
    "amount": 5,
    "count": 4,
    "code": "ABC",
    "tags": [1, True],
    "where": {"lat": 1.5},
    "letters": "é",
}


def _deep(seed: int) -> None:
    schemas, calls = _nested()
    for options in ({}, {"errors_only": True}):
        assert_alike(deep_log(calls, seed), schemas, WAYS[:2], deep=True, **options)
    edge = [("t", dict(list(EDGE_CALL.items())[: 1 + n % 6])) for n in range(30)]
    assert_alike(deep_log(edge, seed), schema_set(EDGE_SCHEMAS, deep=True), WAYS[:2], deep=True)


@pytest.mark.parametrize("seed", QUICK_SEEDS)
def test_hostile_arguments_are_judged_alike_in_deep_mode(seed: int) -> None:
    _deep(seed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SLOW_SEEDS)
def test_many_hostile_arguments_are_judged_alike_in_deep_mode(seed: int) -> None:
    _deep(seed)
