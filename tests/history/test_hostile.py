"""Any JSON at all, in any shape: a check returns problems and a repair a history, and
neither raises nor changes what it was given."""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolaudit import OptionError
from toolaudit.history import PAIRING_CODES, SHAPES, check, check_history

from .shapes import BY_NAME, build
from .shapes import SHAPES as SHAPE_BUILDERS
from .test_pairing import W

#: The words the readers look for, so that random values reach past the first test.
KEYS = st.sampled_from(
    [
        "role", "content", "parts", "type", "id", "name", "tool_calls", "function",
        "arguments", "tool_call_id", "call_id", "output", "tool_use_id", "is_error",
        "toolUse", "toolResult", "toolUseId", "status", "functionCall", "functionResponse",
        "args", "response", "lc", "kwargs", "data", "input", "function_call",
    ]
)  # fmt: skip
WORDS = st.sampled_from(
    [
        "assistant", "user", "tool", "model", "function", "ai", "human", "tool_use",
        "tool_result", "tool_call", "tool_call_response", "function_call",
        "function_call_output", "error", "a", "b", "Error: x",
    ]
)  # fmt: skip
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.floats(allow_nan=True), WORDS)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=5)),
    max_leaves=30,
)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages=JSON, shape=st.sampled_from([None, *sorted(SHAPES)]))
def test_any_json_is_checked_and_repaired_without_an_exception(messages, shape):
    given_copy = copy.deepcopy(messages)
    checked = check(messages, shape)
    assert all(problem.path.startswith("messages") for problem in checked.problems)
    repaired = check_history(messages, provider=shape, repair=True)
    assert messages == given_copy or messages != messages  # NaN is never equal to itself
    again = check(repaired.messages, checked.shape)
    assert [p for p in again.problems if p.code in PAIRING_CODES] == []


def test_deep_nesting_is_read_without_recursion():
    deep: object = "Error: x"
    for _ in range(50_000):
        deep = {"content": [deep]}
    messages = [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "w"}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": deep}]},
    ]
    assert check(messages).problems == []
    nested: object = []
    for _ in range(50_000):
        nested = [nested]
    assert [p.code for p in check(nested).problems] == ["malformed:history"]


@pytest.mark.parametrize("provider", ["openai", "Anthropic", "", ["anthropic"]])
def test_an_unknown_provider_is_an_option_error(provider):
    with pytest.raises(OptionError, match="expected one of anthropic, bedrock, gemini"):
        check_history([], provider=provider)


# -- found by the hostile-history hunt (tests/history/test_fast.py's strategy) ---------


@pytest.mark.parametrize("shape", ["anthropic", "bedrock", "openai-chat", "openai-responses"])
@pytest.mark.parametrize("name", [[], {}, ["get_weather"]])
def test_a_call_retrying_a_failure_of_a_tool_named_by_no_string_is_counted(shape, name):
    # The fast path held a retried call by its name too, which a list cannot be.
    steps = [("calls", [("c1", name)]), ("results", [("c1", name, True)])]
    steps += [("calls", [("c2", name)]), ("results", [("c2", name, False)])]
    [outcome] = check(build(BY_NAME[shape], steps), shape).outcomes.values()
    assert (outcome.results, outcome.failures, outcome.retried, outcome.recovered) == (2, 1, 1, 1)


@pytest.mark.parametrize("shape", SHAPE_BUILDERS, ids=lambda shape: shape.name)
@pytest.mark.parametrize("call_id", [[], {}, ["c1"], {"id": "c1"}])
def test_a_repeated_id_is_renamed_beside_an_id_of_no_hashable_type(shape, call_id):
    steps = [("calls", [("c1", W), (call_id, W), ("c1", W)])]
    result = check_history(build(shape, steps), provider=shape.name, repair=True)
    assert "pairing:duplicate_call_id" in [change.code for change in result.changes]
    assert pairing_codes(shape.name, result.messages) == []


@pytest.mark.parametrize("shape", ["langchain", "otel"])
@pytest.mark.parametrize("name", [W, None])
def test_an_unanswered_call_without_an_id_is_answered_after_the_other_results(shape, name):
    # Its error result, with no id, answers the oldest unanswered call (of its name):
    # put right after its call, it took the call whose result comes later.
    steps = [("calls", [("c1", W), (None, name)]), ("user", "go on")]
    steps.append(("results", [("c1", W, False)]))
    messages = build(BY_NAME[shape], steps)
    result = check_history(messages, provider=shape, repair=True)
    assert [change.code for change in result.changes] == ["pairing:unanswered"]
    assert pairing_codes(shape, result.messages) == []
    assert check_history(result.messages, provider=shape, repair=True).changes == []


def pairing_codes(shape: str, messages: object) -> list[str]:
    return [p.code for p in check(messages, shape).problems if p.code in PAIRING_CODES]


def test_an_anthropic_answer_goes_before_a_block_only_bedrock_calls_a_result():
    # A {"toolResult": ...} block is Bedrock's: in Anthropic it is a block like any other,
    # which the answer must come before.
    messages = build(BY_NAME["anthropic"], [("calls", [("c1", W)])])
    messages.append({"role": "user", "content": [{"toolResult": "x"}]})
    result = check_history(messages, provider="anthropic", repair=True)
    assert [change.code for change in result.changes] == ["pairing:unanswered"]
    assert pairing_codes("anthropic", result.messages) == []


@pytest.mark.parametrize("shape", ["gemini", "langchain", "otel"])
def test_a_repeated_id_answered_by_a_result_without_an_id_is_renamed_in_both(shape):
    # The result (paired by order) had no id to rename: it is given the call's new one.
    steps = [("calls", [("c1", W)]), ("results", [("c1", W, False)]), ("calls", [("c1", W)])]
    steps.append(("results", [("c1", W, False)]))
    messages = build(BY_NAME[shape], steps)
    last = messages[-1]
    if shape == "langchain":
        del last["tool_call_id"]
    else:
        del last["parts"][0].get("functionResponse", last["parts"][0])["id"]
    result = check_history(messages, provider=shape, repair=True)
    assert [change.code for change in result.changes] == ["pairing:duplicate_call_id"]
    assert pairing_codes(shape, result.messages) == []


def test_a_gemini_answer_without_an_id_goes_after_the_results_in_its_message():
    # With neither id nor name it answers the oldest call of the window: put first, it
    # took the call whose response comes after a part of text.
    messages = [
        {"role": "model", "parts": [{"functionCall": {"name": W}}, {"functionCall": {}}]},
        {"role": "user", "parts": [{"text": "here:"}, {"functionResponse": {"name": W}}]},
    ]
    result = check_history(messages, provider="gemini", repair=True)
    assert [change.code for change in result.changes] == ["pairing:unanswered"]
    assert pairing_codes("gemini", result.messages) == []


def test_a_gemini_result_without_an_id_moved_goes_after_the_results_in_its_message():
    # Moved first into the window, it took the oldest call there, not its own.
    messages = [
        {"role": "model", "parts": [{"functionCall": {"id": "c1"}}, {"functionCall": {}}]},
        {"role": "user", "parts": [{}, {"functionResponse": {"id": "c1"}}]},
        {"role": "user", "parts": [{"functionResponse": {}}]},
    ]
    result = check_history(messages, provider="gemini", repair=True)
    assert [change.code for change in result.changes] == ["pairing:misplaced_result"]
    assert pairing_codes("gemini", result.messages) == []


def test_langsmiths_list_of_histories_is_repaired_history_by_history():
    # It came back as it was, its problems with it: checked again, they were still there.
    steps = [("calls", [("c1", W)]), ("results", [("c9", W, False)])]
    batch = [build(BY_NAME["langchain"], steps), [{"role": "tool"}]]
    result = check_history(batch, provider="langchain", repair=True)
    codes = [(change.code, change.path) for change in result.changes]
    assert codes == [
        ("pairing:unanswered", "messages[0][0].tool_calls[0]"),
        ("pairing:orphan_result", "messages[0][1]"),
        ("pairing:orphan_result", "messages[1][0]"),
    ]
    assert pairing_codes("langchain", result.messages) == []
    assert len(result.messages) == 2
