"""Real model outputs from the BFCL corpus, audited against their own questions."""

from __future__ import annotations

import json
from pathlib import Path

import toolaudit

from .conftest import FIXTURES

BFCL = FIXTURES / "bfcl"
SIMPLE = str(BFCL / "BFCL_v4_simple_python.json")


def audit(result_file: str, questions: str) -> tuple[list[dict], toolaudit.Summary]:
    run = toolaudit.audit([str(BFCL / result_file)], questions)
    rows = list(run)
    assert run.summary is not None
    return rows, run.summary


def test_claude_calls_with_underscored_names_are_counted_under_the_defined_dotted_names():
    _, summary = audit("claude-sonnet-4-5_simple_python_result.json", SIMPLE)
    assert (summary.records, summary.calls, summary.invalid, summary.malformed_records) == (
        400,
        402,
        0,
        0,
    )
    assert summary.records_without_calls == 1  # one answer in words
    assert "math.factorial" in summary.by_tool and "math_factorial" not in summary.by_tool
    assert set(summary.by_tool) <= _defined_names()


def test_glyphh_answers_are_well_formed_and_agree_with_bfcl_own_verdicts():
    _, summary = audit("glyphh-ada-1.1_simple_python_result.json", SIMPLE)
    assert (summary.calls, summary.invalid) == (400, 0)
    # BFCL failed 22 of these entries, for wrong values or nested item types: nothing the
    # contract checks at the top level, so no top-level type error of BFCL's goes unseen.
    verdicts = [
        json.loads(line)
        for line in (BFCL / "glyphh-ada-1.1_simple_python_score.json").read_text().splitlines()[1:]
    ]
    assert len(verdicts) == 22
    assert not [
        v
        for v in verdicts
        if v["error_type"] in ("type_error:simple", "simple_function_checker:missing_required")
    ]


def test_parallel_multiple_calls_are_each_audited_in_order():
    rows, summary = audit(
        "glyphh-ada-1.1_parallel_multiple_result.json", str(BFCL / "BFCL_v4_parallel_multiple.json")
    )
    assert (summary.records, summary.calls, summary.invalid) == (200, 590, 0)
    first_line = [row for row in rows if row["line"] == 1]
    assert [row["index"] for row in first_line] == list(range(len(first_line)))
    assert len(first_line) > 1


def test_a_prompt_mode_model_writing_json_literals_in_python_calls_is_caught():
    rows, summary = audit("gemma4-e4b-toolcall-v02_simple_python_result.json", SIMPLE)
    assert (summary.calls, summary.ok, summary.invalid) == (400, 386, 14)
    assert summary.by_kind == {"malformed": 13, "type": 1}
    broken = [row for row in rows if row["errors"] == ["malformed:call"]]
    assert len(broken) == 13
    assert all(
        "is not a Python literal: true" in row["detail"] or "literal: false" in row["detail"]
        for row in broken
    )
    typed = [row for row in rows if row["errors"] and row["errors"][0].startswith("type:")]
    assert [(row["id"], row["tool"], row["errors"]) for row in typed] == [
        ("simple_python_238", "us_history.get_president", ["type:year"])
    ]


def _defined_names() -> set[str]:
    names = set()
    for line in Path(SIMPLE).read_text().splitlines():
        for function in json.loads(line)["function"]:
            names.add(function["name"])
    return names
