"""``--match bfcl`` reproduces BFCL's own score files entry for entry.

For every result file of the team's corpus that has a score file (fixtures in
tests/fixtures/bfcl/reproduce/, see its SOURCE.md): each entry's verdict, the accuracy,
and each failed entry's ``error_type`` equal those ``bfcl evaluate`` wrote.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolaudit.truth.bfcl import relevance_expected, score_bfcl
from toolaudit.truth.entries import Expected, ExpectedCall, bfcl_accept, bfcl_category

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "bfcl" / "reproduce"
RUNS = sorted(path.name.removesuffix(".result.jsonl.gz") for path in HERE.glob("*.result.jsonl.gz"))


def _lines(path: Path) -> Iterator[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            yield json.loads(line)


def bfcl_expected(line: dict[str, Any]) -> Expected:
    """A possible-answer line as the expected-calls file reads it."""
    calls = tuple(
        ExpectedCall(name, {p: bfcl_accept(values) for p, values in parameters.items()})
        for call in line["ground_truth"]
        for name, parameters in call.items()
    )
    return Expected(line["id"], calls, "any", bfcl_category(line["id"]), "bfcl")


def _question_data(category: str) -> tuple[dict[str, Any], dict[str, Expected]]:
    if "relevance" in category:  # no possible answers: a call is wanted, or none
        return {}, {}
    functions = {q["id"]: q["function"] for q in _lines(HERE / f"{category}.function.jsonl.gz")}
    answers = _lines(HERE / f"{category}.possible_answer.jsonl.gz")
    return functions, {line["id"]: bfcl_expected(line) for line in answers}


@pytest.mark.parametrize("run", RUNS)
def test_score_file_reproduced_entry_for_entry(run: str) -> None:
    category = run.rsplit(".", 1)[1]
    functions, expected = _question_data(category)
    summary, *failed = _lines(HERE / f"{run}.score.jsonl.gz")
    bfcl_errors = {line["id"]: line["error_type"] for line in failed}
    ours: dict[str, str | None] = {}
    correct = total = 0
    for line in _lines(HERE / f"{run}.result.jsonl.gz"):
        id = line["id"]
        entry = expected.get(id) or relevance_expected(id)
        assert entry is not None
        score = score_bfcl(entry, line["result"], functions.get(id, []), category=category)
        assert score.correct == (score.bfcl_error_type is None)
        total += 1
        correct += score.correct
        if not score.correct:
            ours[id] = score.bfcl_error_type
    assert ours == bfcl_errors
    assert (correct, total) == (summary["correct_count"], summary["total_count"])
    assert correct / total == summary["accuracy"]


def test_every_score_file_is_reproduced() -> None:
    """The runs cover the corpus: 12 categories of one model, two more models' simple_python."""
    assert len(RUNS) == 14
