"""The ground_truth section: counts by outcome, category, tool and parameter, the rates
derived from them, and parts that merge into the whole and round-trip as JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from toolaudit.results.ground_truth import OUTCOMES, GroundTruth


@dataclass(frozen=True)
class Scored:
    category: str | None
    outcome: str
    correct: bool
    parameters: tuple[tuple[str, str, bool], ...] = ()


def sample() -> GroundTruth:
    section = GroundTruth()
    section.add(
        Scored("simple", "correct", True, (("get_weather", "city", True),)),
        ["get_weather"],
        ["get_weather"],
    )
    section.add(
        Scored("simple", "incorrect", False, (("get_weather", "city", False),)),
        ["get_weather"],
        ["get_weather"],
    )
    section.add(
        Scored("parallel", "incorrect", False, (("f", "x", True), ("f", "x", False))),
        ["f", "g"],
        ["f", "f"],
    )
    section.add(Scored(None, "correct_abstention", True), [], [])
    section.add_unscored(2)
    return section


def test_counts_and_rates():
    data = sample().to_dict()
    assert list(data) == [
        "total", "correct", "accuracy", "accuracy_95", "macro_accuracy", "outcomes",
        "selection", "by_category", "by_tool", "by_parameter", "unscored",
    ]  # fmt: skip
    assert (data["total"], data["correct"], data["accuracy"]) == (4, 2, 0.5)
    assert list(data["outcomes"]) == list(OUTCOMES)
    assert data["outcomes"]["incorrect"] == 2 and data["outcomes"]["missed"] == 0
    # Categories: simple 1/2, parallel 0/1, null 1/1: the macro mean is 0.5 too.
    assert data["macro_accuracy"] == (0.5 + 0.0 + 1.0) / 3
    assert data["by_category"]["null"]["accuracy"] == 1.0
    low, high = data["accuracy_95"]
    assert low < 0.5 < high
    # Multisets: f,g made against f,f expected match one f; 3 of 4 made, 3 of 4 expected.
    selection = data["selection"]
    assert (selection["made"], selection["expected"], selection["matched"]) == (4, 4, 3)
    assert selection["micro"] == {"precision": 0.75, "recall": 0.75, "f1": 0.75}
    # simple: 1/1 each; parallel: 1/2 each; null: nothing to measure (left out of the mean).
    assert selection["macro"]["precision"] == 0.75
    tool_g = data["by_tool"]["g"]
    assert (tool_g["total"], tool_g["made"], tool_g["precision"], tool_g["recall"]) == (
        0,
        1,
        0.0,
        None,
    )
    assert data["by_tool"]["f"]["expected"] == 2 and data["by_tool"]["f"]["total"] == 1
    city = data["by_parameter"]["get_weather"]["city"]
    assert city == {
        "expected": 2, "matched": 1, "accuracy": 0.5, "failures": 1, "share_of_failures": 0.5
    }  # fmt: skip
    assert data["unscored"] == 2


def test_round_trip_through_json():
    section = sample()
    again = GroundTruth.from_dict(json.loads(json.dumps(section.to_dict())))
    assert again.to_dict() == section.to_dict()


def test_empty_section():
    data = GroundTruth().to_dict()
    assert data["total"] == 0 and data["accuracy"] is None and data["accuracy_95"] == [0.0, 1.0]
    assert data["selection"]["micro"] == {"precision": None, "recall": None, "f1": None}


entries = st.lists(
    st.tuples(
        st.sampled_from(["a", "b", None]),
        st.sampled_from(OUTCOMES),
        st.lists(st.sampled_from(["f", "g"]), max_size=3),
        st.lists(st.sampled_from(["f", "g"]), max_size=3),
        st.booleans(),
    ),
    max_size=12,
)


def built(rows) -> GroundTruth:
    section = GroundTruth()
    for category, outcome, made, expected, ok in rows:
        params = tuple(("f", "x", ok) for name in expected if name == "f")
        section.add(Scored(category, outcome, outcome == "correct", params), made, expected)
    return section


@given(entries, entries)
def test_parts_merge_into_the_whole(first, second):
    whole = built(first + second)
    merged = built(first).merged(built(second))
    assert merged.to_dict() == whole.to_dict()
    assert whole.total == len(first + second)
    assert sum(whole.to_dict()["outcomes"].values()) == whole.total
