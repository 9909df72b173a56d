"""The record-level counters, declared once in RecordCounts: each field, whatever it is, is
saved, loaded, added, carried from a tally to its summary and merged over groups, so a new
counter cannot be forgotten in one of those places."""

from __future__ import annotations

from dataclasses import fields

import pytest

from toolaudit.errors import SummaryError
from toolaudit.results.counts import RecordCounts
from toolaudit.results.grouping import Groups
from toolaudit.results.summary import Summary
from toolaudit.results.tally import Tally

NAMES = [f.name for f in fields(RecordCounts)]
#: The counters every summary file has held; files from before the others read them as 0.
ALWAYS_SAVED = {"lines", "blank_lines", "records", "record_errors"}
#: Counted once for the whole audit, not per --group-by group.
OF_THE_INPUT = {"lines", "blank_lines", "records"}


def distinct(start: int) -> dict[str, object]:
    """A value for every counter, no two alike (tables included)."""
    return {
        name: {"malformed:json": start + i, "malformed:record": 1}
        if name == "record_errors"
        else start + i
        for i, name in enumerate(NAMES)
    }


def added(first: object, second: object) -> object:
    if isinstance(first, dict) and isinstance(second, dict):
        return {key: first.get(key, 0) + second.get(key, 0) for key in {*first, *second}}
    assert isinstance(first, int) and isinstance(second, int)
    return first + second


def counters(holder: object) -> dict[str, object]:
    return {name: getattr(holder, name) for name in NAMES}


def test_the_counters_are_the_ones_summaries_have_always_held():
    # A field renamed or dropped would change the summary's JSON: the golden files and
    # case folders would say so too, but this says which. (A new counter is added here,
    # after the field in counts.py: the tests below then check it as they do the others.)
    assert NAMES == [
        "lines",
        "blank_lines",
        "records",
        "records_without_calls",
        "streams",
        "streams_incomplete",
        "record_errors",
    ]


def test_every_counter_is_saved_in_order_and_loaded_back():
    summary = Summary("0", **distinct(1))
    data = summary.to_dict()
    saved = [key for key in data if key in NAMES]
    assert saved == NAMES
    assert list(data)[list(data).index("record_errors") - 1] == "malformed_records"
    assert data["malformed_records"] == summary.malformed_records
    assert counters(Summary.from_dict(data)) == counters(summary) == distinct(1)


@pytest.mark.parametrize("name", NAMES)
def test_a_summary_file_lacking_a_counter_reads_it_as_zero_unless_every_file_held_it(name):
    data = Summary("0", **distinct(1)).to_dict()
    del data[name]
    if name in ALWAYS_SAVED:
        with pytest.raises(SummaryError, match=rf"missing or odd field \('{name}'\)"):
            Summary.from_dict(data)
    else:
        assert getattr(Summary.from_dict(data), name) == 0


def test_every_counter_adds_up_in_a_sum_and_a_merge():
    first, second = distinct(1), distinct(100)
    expected = {name: added(first[name], second[name]) for name in NAMES}
    assert counters(RecordCounts(**first) + RecordCounts(**second)) == expected
    merged = Summary("0", **first).merged(Summary("0", **second))
    assert counters(merged) == expected


def test_every_counter_of_a_tally_reaches_its_summary_and_adds_when_tallies_fold():
    tally, other = Tally(), Tally()
    for name, value in distinct(1).items():
        setattr(tally, name, value)
    for name, value in distinct(100).items():
        setattr(other, name, value)
    summary = tally.summary(version="0", schemas_digest=None, sources=[], complete=True)
    assert counters(summary) == distinct(1)
    assert summary.record_errors is not tally.record_errors  # the summary's own table
    tally.absorbed(other)
    sums = {name: added(distinct(1)[name], distinct(100)[name]) for name in NAMES}
    assert counters(tally) == sums


def test_a_tallys_counters_are_slots_and_a_tally_equals_only_itself():
    # Slots: the audit loop's `tally.records += 1` stays a plain attribute's cost.
    assert not hasattr(Tally(), "__dict__")
    assert Tally() != Tally()


def test_the_groups_sum_every_counter_but_the_lines_the_whole_counted():
    groups = Groups(("model",), 10, 10)
    for model, start in (("a", 1), ("b", 100)):
        tally = groups.tally_for({"model": model}, None)
        for name, value in distinct(start).items():
            setattr(tally, name, value)
    whole = Summary("0", **distinct(1_000))
    merged = groups.summary(whole)
    for name in NAMES:
        if name in OF_THE_INPUT:
            assert getattr(merged, name) == distinct(1_000)[name], name
        else:
            assert getattr(merged, name) == added(distinct(1)[name], distinct(100)[name]), name
    assert set(merged.groups) == {"a", "b"}
