"""Any JSON at all, in any shape: a check returns problems and a repair a history, and
neither raises nor changes what it was given."""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolaudit import OptionError
from toolaudit.history import PAIRING_CODES, SHAPES, check, check_history

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
