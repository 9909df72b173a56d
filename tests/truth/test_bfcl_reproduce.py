"""``--match bfcl`` reproduces BFCL's own score files entry for entry, and gives the same
verdicts to the same calls written as a prompt-mode model writes them.

For every result file of the team's corpus that has a score file (fixtures in
tests/fixtures/bfcl/reproduce/, see its SOURCE.md): each entry's verdict, the accuracy,
and each failed entry's ``error_type`` equal those ``bfcl evaluate`` wrote.
"""

from __future__ import annotations

import gzip
import json
import keyword
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolaudit.truth.bfcl import (
    decode,
    guess_underscore_to_dot,
    language_of,
    relevance_expected,
    score_bfcl,
)
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


def as_prompt_text(result: object) -> str | None:
    """A function-calling model's result as a prompt-mode model would write it,
    ``[name(k=v, ...)]`` with Python reprs; None when that would not say the same to BFCL
    (arguments that do not decode to an object, names and keys that are not Python
    names, text, values whose repr is not a literal: ``inf``, ``nan``)."""
    if not isinstance(result, list):
        return None
    rendered = []
    for item in result:
        if not isinstance(item, dict) or not item:
            return None
        name, arguments = next(iter(item.items()))  # BFCL reads only the first name
        try:
            decoded = json.loads(arguments) if isinstance(arguments, str) else None
        except ValueError:
            return None
        if type(decoded) is not dict or not _is_python_name(name):
            return None
        if not all(_is_python_name(key) and _is_literal(v) for key, v in decoded.items()):
            return None
        rendered.append(f"{name}({', '.join(f'{k}={v!r}' for k, v in decoded.items())})")
    return f"[{', '.join(rendered)}]"


def _is_python_name(name: str) -> bool:
    return all(part.isidentifier() and not keyword.iskeyword(part) for part in name.split("."))


def _is_literal(value: object) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_is_literal(item) for item in value)
    if isinstance(value, dict):
        return all(_is_literal(item) for item in value.values())
    return True


#: Java and JavaScript prompt output is not decoded (docs/evaluation.md).
PYTHON_RUNS = [run for run in RUNS if language_of(run.rsplit(".", 1)[1]) == "python"]


@pytest.mark.parametrize("run", PYTHON_RUNS)
def test_prompt_text_of_the_same_calls_gets_the_same_verdicts(run: str) -> None:
    """Each function-calling result that prompt text can say, said as prompt text, gets
    the same verdict and error_type from score_bfcl."""
    category = run.rsplit(".", 1)[1]
    functions, expected = _question_data(category)
    compared = lists = 0
    for line in _lines(HERE / f"{run}.result.jsonl.gz"):
        entry = expected.get(line["id"]) or relevance_expected(line["id"])
        assert entry is not None
        question = functions.get(line["id"], [])
        lists += isinstance(line["result"], list)
        text = as_prompt_text(line["result"])
        if text is None:
            continue
        fc = score_bfcl(entry, line["result"], question, category=category)
        decoded = decode(line["result"])
        prompt = score_bfcl(
            entry,
            text,
            question,
            category=category,
            underscore_to_dot=guess_underscore_to_dot(decoded, question),
            prompt=True,
        )
        assert (prompt.correct, prompt.bfcl_error_type) == (fc.correct, fc.bfcl_error_type), text
        assert prompt.outcome == fc.outcome
        compared += 1
    assert compared >= 0.9 * lists


@pytest.mark.parametrize("run", RUNS)
def test_passed_calls_parameters_as_checked_one_by_one(
    run: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A call that passed BFCL's check has its parameters counted matched without their
    values checked again: the same rows as checking each (forced here by a description
    that is never the one checked), on every entry of the fixtures."""
    import toolaudit.truth.bfcl as bfcl

    category = run.rsplit(".", 1)[1]
    functions, expected = _question_data(category)
    entries = []
    for line in _lines(HERE / f"{run}.result.jsonl.gz"):
        entry = expected.get(line["id"]) or relevance_expected(line["id"])
        assert entry is not None
        entries.append((entry, line["result"], functions.get(line["id"], [])))
    quick = [score_bfcl(e, r, f, category=category) for e, r, f in entries]
    monkeypatch.setattr(bfcl, "checked_description", lambda *_: {})
    checked = [score_bfcl(e, r, f, category=category) for e, r, f in entries]
    assert quick == checked
    assert any(score.correct and score.parameters for score in quick) or "relevance" in category
