"""``check_history(..., repair=True)``: what each problem's repair does, that the
repaired history has no pairing problem left, and that the given one is never changed."""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolaudit
from toolaudit.history import PAIRING_CODES, check, check_history

from .shapes import BY_NAME, SHAPES, Shape, build
from .test_pairing import ASK, FAULTS, W


def repaired(shape: Shape, steps: list):
    messages = build(shape, steps)
    given_copy = copy.deepcopy(messages)
    result = check_history(messages, provider=shape.name, repair=True)
    assert messages == given_copy, "the given history was changed"
    return result


def pairing_problems(shape: Shape, messages: list) -> list[str]:
    return [p.code for p in check(messages, shape.name).problems if p.code in PAIRING_CODES]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: shape.name)
@pytest.mark.parametrize("fault", FAULTS)
def test_every_fault_is_repaired_in_every_shape(shape, fault):
    steps = FAULTS[fault][0]
    result = repaired(shape, steps)
    assert pairing_problems(shape, result.messages) == []
    assert [p.code for p in result.problems] == [
        p.code for p in check(build(shape, steps)).problems
    ]
    # Each problem is answered by a change of its own code, at its path.
    assert sorted((c.code, c.path) for c in result.changes) == sorted(
        (p.code, p.path) for p in result.problems
    )


def test_the_facade_checks_and_repairs():
    messages = build(BY_NAME["anthropic"], FAULTS["unanswered"][0])
    [problem] = toolaudit.check_history(messages)
    assert problem.code == "pairing:unanswered"
    assert toolaudit.check_history(messages, repair=True).changes[0].action == "answered"


def test_an_unanswered_call_is_answered_with_an_error_that_says_so():
    result = repaired(
        BY_NAME["anthropic"],
        [ASK, ("calls", [("c1", W), ("c2", W)]), ("results", [("c1", W, False)])],
    )
    # After the results already in place: the turn's results in the order of its calls.
    assert [b["tool_use_id"] for b in result.messages[2]["content"]] == ["c1", "c2"]
    assert result.messages[2]["content"][1] == {
        "type": "tool_result",
        "tool_use_id": "c2",
        "content": result.messages[2]["content"][1]["content"],
        "is_error": True,
    }
    assert "never answered" in result.messages[2]["content"][1]["content"]
    [change] = result.changes
    assert (change.action, change.path, change.call_id) == (
        "answered",
        "messages[1].content[1]",
        "c2",
    )
    # The added result is a failure of the tool: the repaired history counts it so.
    assert check(result.messages).outcomes[W].failures == 1


def test_a_call_at_the_end_of_the_history_is_answered_in_a_new_turn():
    for shape in SHAPES:
        result = repaired(shape, [ASK, ("calls", [("c1", W)])])
        assert len(result.messages) == 3, shape.name
        assert pairing_problems(shape, result.messages) == []


def test_a_misplaced_result_moves_and_an_emptied_turn_goes():
    steps = [ASK, ("calls", [("c1", W)]), ("user", "hurry up"), ("results", [("c1", W, False)])]
    result = repaired(BY_NAME["bedrock"], steps)
    assert [m["role"] for m in result.messages] == ["user", "assistant", "user"]
    assert [list(block) for block in result.messages[2]["content"]] == [["toolResult"], ["text"]]
    [change] = result.changes
    assert (change.action, change.code) == ("moved", "pairing:misplaced_result")


def test_a_result_after_text_moves_first_in_its_message():
    messages = [
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "c1", "name": W, "input": {}}],
        },
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "here"},
                {"type": "tool_result", "tool_use_id": "c1", "content": "ok"},
            ],
        },
    ]
    result = check_history(messages, repair=True)
    assert [b["type"] for b in result.messages[1]["content"]] == ["tool_result", "text"]


def test_a_repeated_id_is_renamed_with_its_result():
    steps = FAULTS["duplicate call id"][0]
    result = repaired(BY_NAME["openai-chat"], steps)
    assert result.messages[3]["tool_calls"][0]["id"] == "c1_2"
    assert result.messages[4]["tool_call_id"] == "c1_2"
    assert result.changes[0].detail.startswith("the call's id c1 was an earlier call's too")


def test_a_name_mismatch_takes_the_calls_name():
    steps = [ASK, ("calls", [("c1", W)]), ("results", [("c1", "get_time", False)])]
    result = repaired(BY_NAME["gemini"], steps)
    assert result.messages[2]["parts"][0]["functionResponse"]["name"] == W
    assert [c.action for c in result.changes] == ["renamed"]


def test_a_history_with_nothing_wrong_comes_back_equal_with_no_change():
    steps = FAULTS["clean"][0]
    for shape in SHAPES:
        result = repaired(shape, steps)
        assert (result.messages, result.changes, result.problems) == (build(shape, steps), [], [])


def test_what_cannot_be_read_is_left_as_it_is():
    result = check_history("not a history", repair=True)
    assert result.messages == "not a history"
    assert [p.code for p in result.problems] == ["malformed:history"]


# -- the property: any history, any shape, repaired, has no pairing problem ------------

IDS = st.sampled_from(["c1", "c2", "c3"])
NAMES = st.sampled_from([W, "get_time"])
STEP = st.one_of(
    st.tuples(st.just("calls"), st.lists(st.tuples(IDS, NAMES), min_size=1, max_size=3)),
    st.tuples(
        st.just("results"), st.lists(st.tuples(IDS, NAMES, st.booleans()), min_size=1, max_size=3)
    ),
    st.tuples(st.just("user"), st.just("go on")),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=st.sampled_from(SHAPES), steps=st.lists(STEP, max_size=8))
def test_any_history_repaired_has_no_pairing_problem(shape, steps):
    result = repaired(shape, steps)
    assert pairing_problems(shape, result.messages) == []
    assert len(result.changes) >= len([p for p in result.problems if p.code in PAIRING_CODES])
    # Repairing the repaired history changes nothing more.
    again = check_history(result.messages, provider=shape.name, repair=True)
    assert again.changes == []
