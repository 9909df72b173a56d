"""``check_counted``, the check as the audit counts a history, against ``check``: on any
history of any shape, with any fault put into it, the C speedups on and off, it answers
what ``check(..., calls=False)`` answers, a history given as its results per tool alone
(``AllAnswered``) only where that is all the check found: no problem, no failure, nothing
retried or recovered."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolaudit.history import check, fast_loop
from toolaudit.history.check import check_counted
from toolaudit.history.detect import detect
from toolaudit.history.model import Checked, ToolOutcome

from .shapes import BY_NAME, SHAPES, build
from .test_fast import EDITS, edited
from .test_pairing import FAULTS
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
