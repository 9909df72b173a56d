"""Score files compared: pairs on the shared ids, the exact McNemar test, unpaired when no id
is shared, the gate of --fail-on-regression, and the error-rate comparison's own test."""

from __future__ import annotations

import json

import pytest

from toolaudit.errors import OptionError, SummaryError
from toolaudit.results.compare import compare
from toolaudit.results.score_compare import (
    compare_scores,
    is_score_file,
    read_scores,
)
from toolaudit.results.significance import PairedCounts, mcnemar_exact, two_proportion_test

from ..conftest import grouped


def verdicts(right: int, wrong: int, prefix: str = "q") -> dict[str, bool]:
    return {f"{prefix}{i}": i < right for i in range(right + wrong)}


def test_shared_ids_are_paired():
    base = {"a": True, "b": True, "c": False, "d": False, "e": True, "only_base": True}
    new = {"a": True, "b": False, "c": True, "d": False, "e": False, "only_new": False}
    comparison = compare_scores(base, new)
    assert comparison.paired == PairedCounts(
        both_right=1, only_base_right=2, only_new_right=1, both_wrong=1
    )
    # Accuracies on the shared ids only: 3/5 against 2/5.
    assert (comparison.base_accuracy, comparison.new_accuracy) == (0.6, 0.4)
    assert (comparison.only_in_base, comparison.only_in_new) == (1, 1)
    assert comparison.test.name == "exact McNemar"
    assert comparison.test.p_value == mcnemar_exact(comparison.paired)
    assert comparison.to_dict()["pairs"] == comparison.paired.to_dict()


def test_no_shared_ids_is_an_unpaired_test_named_as_such():
    comparison = compare_scores(verdicts(8, 2, "a"), verdicts(5, 5, "b"))
    assert comparison.paired is None and comparison.to_dict()["paired"] is False
    assert comparison.test == two_proportion_test(8, 10, 5, 10)
    assert "unpaired" in comparison.test.name
    assert comparison.smallest_detectable_drop is None and not comparison.too_few_ids


def test_fail_on_regression_needs_a_significant_drop():
    # 3 ids lost, none won: a drop of 3 points on 100, p = 0.25: noise.
    base = verdicts(80, 20)
    new = {**base, "q0": False, "q1": False, "q2": False}
    plain = compare_scores(base, new)
    assert plain.regressed and not plain.significant
    gated = compare_scores(base, new, fail_on_regression=True)
    assert not gated.regressed and gated.test.p_value == 0.25
    # 10 lost: p = 2 / 1024, significant.
    worse = {**base, **{f"q{i}": False for i in range(10)}}
    assert compare_scores(base, worse, fail_on_regression=True).regressed
    # ... but not when the tolerance allows 10 points.
    assert not compare_scores(base, worse, fail_on_regression=True, tolerance=0.1).regressed


def test_too_few_ids_for_the_tolerance():
    base = verdicts(40, 10)
    # On 50 ids the smallest drop McNemar can flag at 0.05 is 6/50 = 12 points.
    comparison = compare_scores(base, base, tolerance=0.05)
    assert comparison.smallest_detectable_drop == 0.12 and comparison.too_few_ids
    assert not compare_scores(base, base, tolerance=0.15).too_few_ids
    assert not compare_scores(base, base).too_few_ids
    # Five ids: no drop at all can be significant.
    assert compare_scores(verdicts(3, 2), verdicts(3, 2)).too_few_ids


@pytest.mark.parametrize(
    ("tolerance", "alpha"), [(-0.1, 0.05), (1.5, 0.05), (0.0, 0.0), (0.0, 1.0), (True, 0.05)]
)
def test_levels_are_checked(tolerance, alpha):
    with pytest.raises(OptionError):
        compare_scores({}, {}, tolerance=tolerance, alpha=alpha)


def test_score_files_told_from_summaries_and_read():
    lines = [
        {"id": "a", "correct": True, "model": "m"},
        {"id": "b", "correct": False, "model": "n"},
    ]
    raw = b"\n" + "\n".join(json.dumps(line) for line in lines).encode() + b"\n"
    assert is_score_file(raw)
    assert not is_score_file(b'{\n  "toolaudit_version": "1"\n}\n')
    assert not is_score_file(b'{"toolaudit_version": "1", "calls": 0}')
    assert not is_score_file(b"")
    assert read_scores(raw, "s.jsonl") == {"a": True, "b": False}
    assert read_scores(raw, "s.jsonl", group="n") == {"b": False}
    with pytest.raises(SummaryError, match="no scores of model 'x'"):
        read_scores(raw, "s.jsonl", group="x")


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        (
            b'{"id": "a", "correct": true}\n{"id": "a", "correct": false}\n',
            "line 2: id 'a' is scored twice",
        ),
        (b'{"id": "a", "correct": true}\n{oops\n', "line 2: not valid JSON"),
        (b'{"id": "a", "correct": true}\n{"id": "b", "correct": 1}\n', "line 2: not a score"),
    ],
)
def test_bad_score_files_name_the_line(raw, words):
    with pytest.raises(SummaryError, match=words):
        read_scores(raw, "s.jsonl")


def test_the_error_rate_comparison_gets_a_two_proportion_test():
    summary = grouped("model")
    comparison = compare(summary, summary, base_group="claude-sonnet-4-5", new_group="gpt-4o-mini")
    rate = comparison.overall
    expected = two_proportion_test(rate.base_count, rate.base_calls, rate.new_count, rate.new_calls)
    assert comparison.overall_test == expected and expected.p_value < 0.001
    data = comparison.to_dict()["overall"]
    assert data["test"] == "two-proportion z-test (unpaired)"
    assert data["interval_95"] == [expected.low, expected.high]
    assert comparison.regressed
    # Gated on significance, a strict alpha lets this regression pass.
    strict = compare(
        summary,
        summary,
        base_group="claude-sonnet-4-5",
        new_group="gpt-4o-mini",
        fail_on_regression=True,
        alpha=expected.p_value / 2,
    )
    assert not strict.regressed
