"""Every kind of fault, in every provider's shape: the problem it is, where, and the
provider's own error text where the provider refuses it."""

from __future__ import annotations

import pytest

from toolaudit.history import check

from .shapes import BY_NAME, SHAPES, Shape, build

W = "get_weather"
ASK = ("user", "What is the weather in Paris and Rome?")

#: name -> (steps, the problems' codes in a windowed shape, in the others)
FAULTS = {
    "clean": (
        [ASK, ("calls", [("c1", W), ("c2", W)]), ("results", [("c1", W, False), ("c2", W, False)])],
        [],
        [],
    ),
    "unanswered": (
        [ASK, ("calls", [("c1", W), ("c2", W)]), ("results", [("c1", W, False)])],
        ["pairing:unanswered"],
        ["pairing:unanswered"],
    ),
    "orphan": (
        [ASK, ("results", [("c9", W, False)]), ("user", "and now?")],
        ["pairing:orphan_result"],
        ["pairing:orphan_result"],
    ),
    "result before its call": (
        [ASK, ("results", [("c1", W, False)]), ("calls", [("c1", W)])],
        ["pairing:orphan_result", "pairing:unanswered"],
        ["pairing:orphan_result", "pairing:unanswered"],
    ),
    "duplicate call id": (
        [
            ASK,
            ("calls", [("c1", W)]),
            ("results", [("c1", W, False)]),
            ("calls", [("c1", W)]),
            ("results", [("c1", W, False)]),
        ],
        ["pairing:duplicate_call_id"],
        ["pairing:duplicate_call_id"],
    ),
    "duplicate result": (
        [
            ASK,
            ("calls", [("c1", W)]),
            ("results", [("c1", W, False)]),
            ("results", [("c1", W, False)]),
        ],
        ["pairing:duplicate_result"],
        ["pairing:duplicate_result"],
    ),
    "misplaced": (
        [ASK, ("calls", [("c1", W)]), ("user", "hurry up"), ("results", [("c1", W, False)])],
        ["pairing:misplaced_result"],
        [],
    ),
    "trimmed away": (  # history trimming dropped the call, kept its result
        [("results", [("c1", W, False)]), ASK],
        ["pairing:orphan_result"],
        ["pairing:orphan_result"],
    ),
}


def codes(shape: Shape, steps: list) -> list[str]:
    return [problem.code for problem in check(build(shape, steps), shape.name).problems]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: shape.name)
@pytest.mark.parametrize("fault", FAULTS)
def test_each_fault_is_its_problem_in_each_shape(shape, fault):
    steps, windowed, others = FAULTS[fault]
    assert codes(shape, steps) == (windowed if shape.windowed else others)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: shape.name)
@pytest.mark.parametrize("fault", FAULTS)
def test_the_shape_is_read_from_the_messages(shape, fault):
    steps = FAULTS[fault][0]
    assert check(build(shape, steps)).shape == shape.name


@pytest.mark.parametrize(
    ("shape", "path"),
    [
        ("openai-chat", "messages[1].tool_calls[1]"),
        ("openai-responses", "messages[2]"),
        ("anthropic", "messages[1].content[1]"),
        ("bedrock", "messages[1].content[1].toolUse"),
        ("gemini", "messages[1].parts[1].functionCall"),
        ("langchain", "messages[1].tool_calls[1]"),
        ("otel", "messages[1].parts[1]"),
    ],
)
def test_a_problem_says_where_it_is_which_call_and_which_tool(shape, path):
    steps = FAULTS["unanswered"][0]
    [problem] = check(build(BY_NAME[shape], steps)).problems
    assert (problem.path, problem.call_id, problem.tool) == (path, "c2", W)


#: The provider's own words, as each problem's detail quotes them.
PROVIDER_TEXT = [
    (
        "anthropic",
        "unanswered",
        "tool_use ids were found without tool_result blocks immediately after",
    ),
    (
        "anthropic",
        "misplaced",
        "tool_use ids were found without tool_result blocks immediately after",
    ),
    ("anthropic", "orphan", "unexpected `tool_use_id` found in `tool_result` blocks: c9"),
    ("anthropic", "duplicate call id", "`tool_use` ids must be unique"),
    (
        "openai-chat",
        "unanswered",
        "An assistant message with 'tool_calls' must be followed by tool messages "
        "responding to each 'tool_call_id'",
    ),
    (
        "openai-chat",
        "orphan",
        "messages with role 'tool' must be a response to a preceding message with 'tool_calls'",
    ),
    ("openai-responses", "unanswered", "No tool output found for function call c2."),
    ("openai-responses", "orphan", "No tool call found for function call output with call_id c9."),
    ("bedrock", "unanswered", "the number of toolResult blocks must match the toolUse blocks"),
    (
        "bedrock",
        "orphan",
        "The number of toolResult blocks at messages.1.content exceeds the number of toolUse "
        "blocks of previous turn.",
    ),
    ("gemini", "unanswered", "the number of function response parts is equal to the number"),
]


@pytest.mark.parametrize(("shape", "fault", "text"), PROVIDER_TEXT)
def test_the_detail_quotes_the_providers_error(shape, fault, text):
    problems = check(build(BY_NAME[shape], FAULTS[fault][0])).problems
    assert text in problems[-1].detail


def test_a_problem_no_provider_refuses_says_so_plainly():
    [problem] = check(build(BY_NAME["langchain"], FAULTS["unanswered"][0])).problems
    assert problem.detail == "the call has no result later in the history"


def test_a_call_in_the_last_message_is_unanswered():
    # A logged request that ends with calls is refused by every provider.
    steps = [ASK, ("calls", [("c1", W)])]
    for shape in SHAPES:
        [problem] = check(build(shape, steps)).problems
        assert problem.code == "pairing:unanswered"
        assert "the history ends with its message" in problem.detail


def test_results_out_of_order_within_their_turn_are_in_place():
    steps = [
        ASK,
        ("calls", [("c1", W), ("c2", W)]),
        ("results", [("c2", W, False), ("c1", W, False)]),
    ]
    for shape in SHAPES:
        assert codes(shape, steps) == []


def test_parallel_calls_answered_across_two_turns_are_misplaced_where_the_window_is_one_turn():
    steps = [
        ASK,
        ("calls", [("c1", W), ("c2", W)]),
        ("results", [("c1", W, False)]),
        ("results", [("c2", W, False)]),
    ]
    # OpenAI Chat takes one tool message per result: two turns of them are one run.
    expected = {"openai-chat": [], "anthropic": ["pairing:misplaced_result"]}
    for name in ("openai-chat", "anthropic", "bedrock", "gemini"):
        assert codes(BY_NAME[name], steps) == expected.get(name, ["pairing:misplaced_result"])


def test_a_result_naming_another_tool_is_a_name_mismatch():
    steps = [ASK, ("calls", [("c1", W)]), ("results", [("c1", "get_time", False)])]
    for shape in SHAPES:
        problems = check(build(shape, steps)).problems
        if shape.names_results:
            [problem] = problems
            assert (problem.code, problem.tool) == ("pairing:name_mismatch", W)
            assert "names `get_time`" in problem.detail
        else:
            assert problems == []


def test_reused_ids_answered_turn_by_turn_pair_but_are_reported():
    # Some servers number calls per response ("call_0" every turn): answered turn by
    # turn, each result pairs with its own turn's call; the repeated id is still a problem.
    steps = [
        ("calls", [("call_0", W)]),
        ("results", [("call_0", W, True)]),
        ("calls", [("call_0", W)]),
        ("results", [("call_0", W, False)]),
    ]
    for shape in SHAPES:
        checked = check(build(shape, steps))
        assert [p.code for p in checked.problems] == ["pairing:duplicate_call_id"]
        assert checked.outcomes[W].recovered == 1


class TestWithoutIds:
    def test_gemini_pairs_by_name_and_order(self):
        contents = [
            {"role": "user", "parts": [{"text": "weather and time?"}]},
            {
                "role": "model",
                "parts": [
                    {"functionCall": {"name": W, "args": {"city": "Paris"}}},
                    {"functionCall": {"name": "get_time", "args": {}}},
                    {"functionCall": {"name": W, "args": {"city": "Rome"}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "get_time", "response": {"output": "noon"}}},
                    {"functionResponse": {"name": W, "response": {"output": "sunny"}}},
                ],
            },
        ]
        [problem] = check(contents).problems
        assert (problem.code, problem.path) == (
            "pairing:unanswered",
            "messages[1].parts[2].functionCall",
        )

    def test_otel_pairs_by_order_when_nothing_names_the_call(self):
        messages = [
            {"role": "assistant", "parts": [{"type": "tool_call", "name": W, "arguments": {}}]},
            {"role": "tool", "parts": [{"type": "tool_call_response", "response": "sunny"}]},
            {"role": "tool", "parts": [{"type": "tool_call_response", "response": "rain"}]},
        ]
        assert [p.code for p in check(messages).problems] == ["pairing:duplicate_result"]

    def test_chats_legacy_function_call_is_answered_by_name(self):
        messages = [
            {"role": "assistant", "content": None, "function_call": {"name": W, "arguments": "{}"}},
            {"role": "function", "name": W, "content": "sunny"},
            {"role": "assistant", "content": None, "function_call": {"name": W, "arguments": "{}"}},
            {"role": "user", "content": "well?"},
        ]
        [problem] = check(messages).problems
        assert (problem.code, problem.path) == ("pairing:unanswered", "messages[2].function_call")
