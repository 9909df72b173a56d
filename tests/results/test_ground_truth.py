"""The ground_truth section: counts by outcome, category, tool and parameter, the rates
derived from them, and parts that merge into the whole and round-trip as JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from toolaudit.results.folding import DEFAULT_MAX_TOOLS, OTHER
from toolaudit.results.ground_truth import OUTCOMES, SAMPLE_ENTRIES, GroundTruth


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
        "selection", "by_category", "by_tool", "by_parameter", "unscored", "without_id",
        "repeated_id", "max_tools", "samples",
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


def test_a_section_without_samples_or_limit_reads_back_with_the_defaults():
    data = sample().to_dict()
    del data["samples"], data["max_tools"]
    again = GroundTruth.from_dict(data)
    assert again.samples == [] and again.max_tools == DEFAULT_MAX_TOOLS


def scores_line(index: int, outcome: str) -> dict[str, object]:
    return {"id": f"e{index}", "category": "c", "model": "m", "outcome": outcome}


def with_samples(indexes: range, outcome: str = "incorrect") -> GroundTruth:
    section = GroundTruth()
    for index in indexes:
        score = Scored("c", outcome, outcome == "correct")
        section.add(score, ["f"], ["f"], row=scores_line(index, outcome))
    return section


def test_the_first_incorrect_entries_are_kept_as_samples():
    section = with_samples(range(3), "correct").merged(with_samples(range(3, 12)))
    assert [row["id"] for row in section.samples] == [f"e{i}" for i in range(3, 3 + SAMPLE_ENTRIES)]
    assert section.samples[0] == scores_line(3, "incorrect")
    # A row given is copied: the caller may reuse its dict.
    row = scores_line(0, "missed")
    mine = GroundTruth()
    mine.add(Scored("c", "missed", False), [], ["f"], row=row)
    row["id"] = "changed"
    assert mine.samples == [scores_line(0, "missed")]
    # Without a row (callers that have none), the entry is counted and nothing is kept.
    rowless = GroundTruth()
    rowless.add(Scored("c", "incorrect", False), ["f"], ["f"])
    assert rowless.samples == [] and rowless.total == 1
    again = GroundTruth.from_dict(json.loads(json.dumps(section.to_dict())))
    assert again.samples == section.samples


def test_merged_samples_keep_the_first_part_first():
    first, second = with_samples(range(2)), with_samples(range(2, 9))
    merged = first.merged(second)
    assert [row["id"] for row in merged.samples] == ["e0", "e1", "e2", "e3", "e4"]
    assert [row["id"] for row in second.merged(first).samples][:2] == ["e2", "e3"]
    assert len(first.samples) == 2  # neither part is changed


def invented(section: GroundTruth, count: int) -> GroundTruth:
    """``count`` entries, each expecting ``f`` and calling ``f`` and a made-up tool."""
    for index in range(count):
        section.add(Scored("c", "incorrect", False), ["f", f"made_up_{index}"], ["f"])
    return section


def test_made_up_tool_names_are_folded_and_the_counts_still_add_up():
    section = invented(GroundTruth(max_tools=50), 10_000)
    assert len(section.by_tool) == 51  # 50 names, then <other>
    assert "f" in section.by_tool and "made_up_0" in section.by_tool
    assert sum(tally.made for tally in section.by_tool.values()) == 20_000
    assert section.by_tool[OTHER].made == 10_000 - 49
    assert section.by_tool[OTHER].total == 0
    assert section.to_dict()["selection"]["made"] == 20_000
    # Names an entry expects are never folded, however full the table.
    section.add(Scored("c", "correct", True), ["late", "late"], ["late", "late"])
    assert section.by_tool["late"].matched == 2 and section.by_tool["late"].total == 1
    again = GroundTruth.from_dict(json.loads(json.dumps(section.to_dict())))
    assert again.max_tools == 50 and again.to_dict() == section.to_dict()


def test_one_entry_cannot_overfill_the_table():
    section = GroundTruth(max_tools=3)
    section.add(Scored("c", "incorrect", False), ["a", "b", "c", "d", "e"], ["x"])
    assert sorted(section.by_tool) == [OTHER, "a", "b", "x"]
    assert section.by_tool[OTHER].made == 3


def test_merged_parts_stay_bounded_by_the_first_parts_limit():
    first = invented(GroundTruth(max_tools=20), 100)
    second = invented(GroundTruth(max_tools=1_000), 100)
    second.add(Scored("c", "correct", True), ["wanted"], ["wanted"])
    merged = first.merged(second)
    assert merged.max_tools == 20
    assert len(merged.by_tool) <= 20 + 2  # the limit, <other>, and "wanted" (expected)
    assert merged.by_tool["wanted"].total == 1
    assert sum(t.made for t in merged.by_tool.values()) == 2 * 200 + 1


def test_a_tool_named_like_the_bucket_is_not_counted_in_it():
    section = GroundTruth()
    section.add(Scored("c", "correct", True), ["<other>"], ["<other>"])
    assert OTHER not in section.by_tool and section.by_tool["\\<other>"].matched == 1


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


@given(entries, entries, entries)
def test_counting_into_a_merged_section_leaves_its_parts_as_they_were(first, second, third):
    # add() counts in place: a merged section must hold tallies of its own (the run's
    # no_record entries are counted into the merged summary of its parts).
    parts = built(first), built(second)
    before = [part.to_dict() for part in parts]
    merged = parts[0].merged(parts[1])
    for category, outcome, made, expected, ok in third:
        params = tuple(("f", "x", ok) for name in expected if name == "f")
        merged.add(Scored(category, outcome, outcome == "correct", params), made, expected)
    assert [part.to_dict() for part in parts] == before
    assert merged.to_dict() == built(first + second + third).to_dict()
