"""``check_counted``, the check as the audit counts a history, against ``check``: on any
history of any shape, with any fault put into it, the C speedups on and off, it answers
what ``check(..., calls=False)`` answers, a history given as its results per tool alone
(``AllAnswered``) only where that is all the check found: no problem, no failure, nothing
retried or recovered."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolaudit.history import check, fast_loop
from toolaudit.history.check import check_counted
from toolaudit.history.detect import detect
from toolaudit.history.fast import FROM_TEXT, IN_C, checked_from_text, counted_answered
from toolaudit.history.model import UNANSWERED, Checked, ToolOutcome
from toolaudit.pipeline.options import AuditOptions
from toolaudit.pipeline.recorder import Recorder
from toolaudit.results.conversations import Conversations, CountedProblem, Outcomes

from .shapes import BY_NAME, SHAPES, build
from .test_fast import EDITS, edited
from .test_pairing import ASK, FAULTS, W
from .test_repair import STEP

SPEEDUPS_BUILT = fast_loop.SPEEDUPS
WAYS = ["c", "pure"] if SPEEDUPS_BUILT is not None else ["pure"]


def as_checked(found: Checked | dict[str, int], messages: list[Any], shape: str) -> Checked:
    """What the audit counts of ``found``: an ``AllAnswered`` as the Checked it stands for."""
    if isinstance(found, Checked):
        return found
    outcomes = {tool: ToolOutcome(count) for tool, count in found.items()}
    return Checked(shape, len(messages), [], outcomes, [])


def assert_counted_as_checked(messages: Any, shape: str | None, way: str) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fast_loop, "SPEEDUPS", SPEEDUPS_BUILT if way == "c" else None)
        expected = check(messages, shape, path="messages", calls=False)
        found = check_counted(messages, shape, "messages")
    if isinstance(found, dict):
        assert way == "c", "only the C speedups answer a history by its results alone"
        assert not expected.problems and not expected.calls
        assert all(not o.failures and not o.retried for o in expected.outcomes.values())
    chosen = shape or (detect(messages) if messages else expected.shape)
    assert as_checked(found, messages, chosen) == expected, messages


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("shape", [shape.name for shape in SHAPES])
@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_every_fault_is_counted_as_the_check_finds_it(way: str, shape: str, fault: str):
    messages = build(BY_NAME[shape], FAULTS[fault][0])
    assert_counted_as_checked(messages, shape, way)
    assert_counted_as_checked(messages, None, way)


@pytest.mark.parametrize("way", WAYS)
def test_a_clean_history_is_counted_from_its_results_in_c(way: str):
    messages = build(BY_NAME["openai-chat"], FAULTS["clean"][0])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fast_loop, "SPEEDUPS", SPEEDUPS_BUILT if way == "c" else None)
        found = check_counted(messages, "openai-chat", "messages")
    assert isinstance(found, dict) == (way == "c")


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("messages", [None, "text", [], [[]], [1, 2], [[{"role": "user"}]]])
def test_what_is_not_a_plain_history_is_counted_as_the_check_finds_it(way: str, messages: Any):
    assert_counted_as_checked(messages, "openai-chat", way)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    way=st.sampled_from(WAYS),
    shape=st.sampled_from([shape.name for shape in SHAPES]),
    steps=st.lists(STEP, max_size=8),
    edits=EDITS,
)
def test_any_history_with_any_fault_is_counted_as_the_check_finds_it(
    way: str, shape: str, steps: list, edits: list
):
    assert_counted_as_checked(edited(build(BY_NAME[shape], steps), edits), shape, way)


def counted_in_tables(
    histories: list[tuple[Any, Any]], shape: str, way: str, worded: bool
) -> Conversations:
    """The audit's tables after counting ``histories`` (model, messages) as the general
    reader does: in the tables at once where the C speedups can, else what they give
    (not ``worded``: calls left unanswered as the recorder counts them unworded)."""
    recorder = Recorder(AuditOptions(max_tools=5), want_rows=False)
    tally = recorder.tally
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fast_loop, "SPEEDUPS", SPEEDUPS_BUILT if way == "c" else None)
        for model, messages in histories:
            # (the first history of a log is counted before there are tables)
            found = check_counted(messages, shape, "messages", tally.conversations, model, worded)
            if found is True:
                assert way == "c", "only the C speedups count in the tables"
            elif isinstance(found, tuple):
                assert way == "c" and not worded, "only the C speedups leave problems unworded"
                recorder.unanswered_history(tally, model, *found)
            elif isinstance(found, dict):
                recorder.all_answered_history(tally, model, found)
            else:
                recorder.conversations_of(tally).count(model, found.problems, found.outcomes)
    assert tally.conversations is not None
    return tally.conversations


def checked_in_tables(
    histories: list[tuple[Any, Any]], shape: str, max_keys: int = 5
) -> Conversations:
    """The same tables, each history checked in full and counted from its Checked."""
    tables = Conversations(max_keys)
    for model, messages in histories:
        checked = check(messages, shape, path="messages", calls=False)
        tables.count(model, checked.problems, checked.outcomes)
    return tables


#: Names that fold or need escaping, no name, and more than the tables keep (max_keys=5).
ODD_NAMES = ["<other>", "<no name>", "\\<other>", "\\\\<no name>", "\\", "<", "<x", "\\x", ""]


TOOLS = [f"tool{k}" for k in range(8)]
MODELS = ["gpt-4o", None, *ODD_NAMES, *(f"model{k}" for k in range(8))]


def odd_histories(shape: str, tools: list[Any]) -> list[tuple[Any, Any]]:
    """120 histories of ``shape``, each of a model of MODELS, a third with a fault, each
    other one calling a tool of ``tools`` (the rest get_weather)."""
    histories = []
    for turn in range(120):
        fault = sorted(FAULTS)[turn % len(FAULTS)] if turn % 3 == 0 else "clean"
        tool = tools[turn % len(tools)] if turn % 2 else "get_weather"
        steps = [
            (kind, [(call[0], tool, *call[2:]) for call in value])
            if kind in ("calls", "results")
            else (kind, value)
            for kind, value in FAULTS[fault][0]
        ]
        histories.append((MODELS[turn % len(MODELS)], build(BY_NAME[shape], steps)))
    return histories


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("shape", [shape.name for shape in SHAPES])
@pytest.mark.parametrize("worded", [True, False])
def test_histories_counted_in_the_tables_count_as_checked_ones(way: str, shape: str, worded: bool):
    histories = odd_histories(shape, ["get_weather", *ODD_NAMES, *TOOLS, 7, None])
    assert counted_in_tables(histories, shape, way, worded).to_dicts() == (
        checked_in_tables(histories, shape).to_dicts()
    )


@pytest.mark.skipif(SPEEDUPS_BUILT is None, reason="the C speedups were not built")
def test_a_plain_history_is_counted_in_the_tables_once_its_names_are_there():
    messages = build(BY_NAME["openai-chat"], FAULTS["clean"][0])
    tables = Conversations()
    assert check_counted(messages, "openai-chat", "messages", tables, "gpt-4o") == {
        "get_weather": 2
    }
    tables.count_all_answered("gpt-4o", {"get_weather": 2})
    assert check_counted(messages, "openai-chat", "messages", tables, "gpt-4o") is True
    assert check_counted(messages, "openai-chat", "messages", tables, "o3") == {"get_weather": 2}
    assert tables.all.checked == 2
    assert tables.by_model["gpt-4o"].checked == 2
    assert tables.by_tool["get_weather"].results == 4
    # a request that names no model (Gemini's): its histories are the tables' <no name>
    assert check_counted(messages, "openai-chat", "messages", tables, None) == {"get_weather": 2}
    tables.count_all_answered(None, {"get_weather": 2})
    assert check_counted(messages, "openai-chat", "messages", tables, None) is True
    assert tables.by_model["<no name>"].checked == 2


@pytest.mark.skipif(SPEEDUPS_BUILT is None, reason="the C speedups were not built")
@pytest.mark.parametrize("shape", [shape.name for shape in SHAPES])
def test_the_speedups_count_no_history_they_are_not_sure_of(shape: str):
    tables = Conversations()
    tables.count_all_answered("gpt-4o", {"get_weather": 1})
    for fault in sorted(set(FAULTS) - {"clean"}):
        messages = build(BY_NAME[shape], FAULTS[fault][0])
        before = tables.to_dicts()
        if check_counted(messages, shape, "messages", tables, "gpt-4o") is not True:
            assert tables.to_dicts() == before, fault
        else:  # no fault in this shape (a place only another provider's rule wants)
            assert not check(messages, shape, calls=False).problems, fault


@pytest.mark.skipif(SPEEDUPS_BUILT is None, reason="the C speedups were not built")
@pytest.mark.parametrize("shape", sorted(IN_C))
def test_calls_left_unanswered_are_counted_in_the_tables_where_no_row_is_written(shape: str):
    left = build(BY_NAME[shape], FAULTS["unanswered"][0])
    clean = build(BY_NAME[shape], FAULTS["clean"][0])
    renamed = build(BY_NAME[shape], [ASK, ("calls", [("c1", "search")]), ("user", "and?")])
    two_left = build(BY_NAME[shape], [ASK, ("calls", [("c1", W), ("c2", W)]), ("user", "and?")])
    histories = [("gpt-4o", left), ("gpt-4o", clean), ("o3", left), ("gpt-4o", renamed)] * 3
    histories += [("gpt-4o", two_left)] * 2
    recorder = Recorder(AuditOptions(), want_rows=False)
    tally = recorder.tally
    in_tables = []
    for model, messages in histories:
        for worded in (True, False):  # (worded: never counted in the tables if left)
            found = check_counted(messages, shape, "messages", tally.conversations, model, worded)
            if found is True:
                in_tables.append((model, messages is left, worded))
                break
            if isinstance(found, tuple):
                recorder.unanswered_history(tally, model, *found)
                break
            if isinstance(found, dict):
                recorder.all_answered_history(tally, model, found)
                break
    assert tally.conversations is not None
    expected = checked_in_tables(histories, shape, max_keys=AuditOptions().max_tools)
    assert tally.conversations.to_dicts() == expected.to_dicts()
    assert ("gpt-4o", True, False) in in_tables  # a later one, read and counted in C
    assert not [worded for _, was_left, worded in in_tables if was_left and worded]


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("left_some", [False, True], ids=["all answered", "calls left"])
def test_results_read_elsewhere_are_counted_in_the_tables_as_python_counts_them(
    way: str, left_some: bool
):
    """The pairs' typed path reads a history from its text and hands the recorder its
    results per tool (and, where no rows are kept, the calls it left unanswered): counted
    in the tables in C where they can be, as Python counts them."""
    tools: list[Any] = ["get_weather", *ODD_NAMES, *(f"tool{k}" for k in range(8)), None, 7]
    recorder = Recorder(AuditOptions(max_tools=5), want_rows=False)
    expected = Conversations(max_keys=5)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fast_loop, "SPEEDUPS", SPEEDUPS_BUILT if way == "c" else None)
        for turn in range(300):
            model = MODELS[turn % 3 * turn % len(MODELS)]
            names = [str(tools[(turn + k) % len(tools)]) for k in range(turn % 3)]
            results = {name: k + turn % 4 + 1 for k, name in enumerate(names)}
            called = [tools[(turn * 7 + k) % len(tools)] for k in range(1 + turn % 4)]
            left = [(f"c{k}", name, turn, k) for k, name in enumerate(called)]
            if left_some:
                recorder.unanswered_history(recorder.tally, model, left, results)
            else:
                recorder.all_answered_history(recorder.tally, model, results)
            problems = [
                CountedProblem(UNANSWERED, name if isinstance(name, str) else None)
                for name in called
                if left_some
            ]
            outcomes = {tool: Outcomes(results=n) for tool, n in results.items()}
            expected.count(model, problems, outcomes)
        tables = recorder.conversations_of(recorder.tally)
        assert tables.to_dicts() == expected.to_dicts()
        # a model and a tool the tables hold under their own names: counted in C, if on
        model, tool = (
            next(name for name in table if name and name[:1] not in "<\\")
            for table in (tables.by_model, tables.by_tool)
        )
        assert counted_answered(tables, model, {tool: 2}) == (way == "c")
        if left_some:
            assert counted_answered(tables, model, {tool: 2}, [("c1", tool, 1, 0)]) == (way == "c")
            assert not counted_answered(tables, model, {tool: 2}, [("c1", None, 1, 0)])
            assert not counted_answered(tables, model, {tool: 2}, [("c1", tool, 1, 0)] * 65)


@pytest.mark.skipif(SPEEDUPS_BUILT is None, reason="the C speedups were not built")
@pytest.mark.parametrize("shape", sorted(FROM_TEXT))
def test_histories_read_from_text_and_counted_in_the_tables_count_as_checked_ones(shape: str):
    """The pairs' typed path hands the text reader the tables once it has read the line:
    a history whose every call was answered is counted there in C where it can be, as
    the recorder counts what the reader answers without them."""
    histories = odd_histories(shape, ["get_weather", *ODD_NAMES, *TOOLS, None])
    recorder = Recorder(AuditOptions(max_tools=5), want_rows=False)
    tally = recorder.tally
    counted = 0
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fast_loop, "SPEEDUPS", SPEEDUPS_BUILT)
        for model, messages in histories:
            text = orjson.dumps(messages)
            found = checked_from_text(text, shape, "messages", False, tally.conversations, model)
            if found is True:
                counted += 1
                continue
            without = checked_from_text(text, shape, "messages", False)
            assert found == without  # not counted: answered as without the tables
            if found is None:
                found = check_counted(messages, shape, "messages")
            if isinstance(found, tuple):
                recorder.unanswered_history(tally, model, *found)
            elif isinstance(found, dict):
                recorder.all_answered_history(tally, model, found)
            else:
                assert found is not True
                recorder.conversations_of(tally).count(model, found.problems, found.outcomes)
    assert tally.conversations is not None
    expected = checked_in_tables(histories, shape)
    assert tally.conversations.to_dicts() == expected.to_dicts()
    assert counted > 0  # plain ones, once their names are in the tables as their own keys


@pytest.mark.skipif(SPEEDUPS_BUILT is None, reason="the C speedups were not built")
@pytest.mark.parametrize("shape", sorted(FROM_TEXT))
def test_a_history_read_from_text_is_counted_for_its_own_model(shape: str):
    text = orjson.dumps(build(BY_NAME[shape], FAULTS["clean"][0]))
    tables = Conversations()
    for model in ("gpt-4o", None, "o3"):
        tables.count_all_answered(model, {"get_weather": 2})
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fast_loop, "SPEEDUPS", SPEEDUPS_BUILT)
        for model in ("gpt-4o", "gpt-4o", None, "o3", "o1"):
            found = checked_from_text(text, shape, "messages", True, tables, model)
            if model == "o1":  # none of its histories in the tables yet: Python counts it
                assert found == {"get_weather": 2}
            else:
                assert found is True
    by_model = {model: histories.checked for model, histories in tables.by_model.items()}
    assert by_model == {"gpt-4o": 3, "<no name>": 2, "o3": 2}
    assert tables.all.checked == 7 and tables.by_tool["get_weather"].results == 14
