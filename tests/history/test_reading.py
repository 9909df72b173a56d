"""Reading histories: tool outcomes and the failure signals read, the calls listed for
``--history``, LangChain's serialised forms, and histories of odd shapes, which are
located problems and never exceptions."""

from __future__ import annotations

import pytest

from toolaudit import OptionError
from toolaudit.formats.base import ABSENT, JSON_STRING, OBJECT, OBJECT_ONLY
from toolaudit.history import SHAPES, HistoryCall, ToolOutcome, check
from toolaudit.history.signals import failed_payload

from .shapes import BY_NAME, build
from .shapes import SHAPES as BUILT
from .test_pairing import ASK, W

# -- outcomes ---------------------------------------------------------------------------


@pytest.mark.parametrize("shape", BUILT, ids=lambda shape: shape.name)
def test_a_failure_retried_and_recovered_is_counted_per_tool(shape):
    steps = [
        ASK,
        ("calls", [("c1", W), ("c2", "get_time")]),
        ("results", [("c1", W, True), ("c2", "get_time", True)]),
        ("calls", [("c3", W)]),  # retried, and this time it works
        ("results", [("c3", W, False)]),
        ("calls", [("c4", W)]),
        ("results", [("c4", W, False)]),
    ]
    outcomes = check(build(shape, steps)).outcomes
    assert outcomes == {
        W: ToolOutcome(results=3, failures=1, retried=1, recovered=1),
        "get_time": ToolOutcome(results=1, failures=1, retried=0, recovered=0),
    }


def test_a_retry_that_fails_again_is_retried_not_recovered():
    steps = [
        ("calls", [("c1", W)]),
        ("results", [("c1", W, True)]),
        ("calls", [("c2", W)]),
        ("results", [("c2", W, True)]),
    ]
    outcome = check(build(BY_NAME["anthropic"], steps)).outcomes[W]
    assert outcome == ToolOutcome(results=2, failures=2, retried=1, recovered=0)


@pytest.mark.parametrize(
    ("payload", "failed"),
    [
        ("Error: ValueError('no such city')\n Please fix your mistakes.", True),  # LangGraph
        ("An error occurred while running the tool. Please try again. Error: boom", True),
        ('{"content": [{"type": "text", "text": "nope"}], "isError": true}', True),  # MCP
        ({"content": [], "isError": True}, True),
        ([{"type": "text", "text": "Error: timeout"}], True),
        ([{"json": {"isError": True}}], True),  # Bedrock's json block
        ("sunny", False),
        ("error: lower case is prose, not the prefix", False),
        ('{"isError": false}', False),
        ('{"isError": tru', False),
        ({"content": "fine"}, False),
        (None, False),
        ([], False),
    ],
)
def test_the_failure_signals_read_in_a_results_content(payload, failed):
    assert failed_payload(payload) is failed


def test_each_shapes_own_failure_flag_counts():
    is_error = [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": W, "input": {}}]},
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "a", "is_error": True, "content": "x"}
            ],
        },
    ]
    assert check(is_error).outcomes[W].failures == 1
    otel = [
        {"role": "assistant", "parts": [{"type": "tool_call", "id": "a", "name": W}]},
        {
            "role": "tool",
            "parts": [{"type": "tool_call_response", "id": "a", "response": {"error": "x"}}],
        },
    ]
    assert check(otel).outcomes[W].failures == 1


def test_a_result_answering_no_call_counts_under_its_own_name_or_none():
    steps = [("results", [("c9", "get_time", False)])]
    assert set(check(build(BY_NAME["gemini"], steps)).outcomes) == {"get_time"}
    assert set(check(build(BY_NAME["anthropic"], steps)).outcomes) == {"<no name>"}


# -- calls listed for --history ---------------------------------------------------------


def test_every_call_is_listed_with_its_path_and_encoding():
    steps = [ASK, ("calls", [("c1", W)])]
    expected = {
        "openai-chat": ("{}", "messages[1].tool_calls[0]", JSON_STRING),
        "openai-responses": ("{}", "messages[1]", JSON_STRING),
        "anthropic": ({}, "messages[1].content[0]", OBJECT),
        "bedrock": ({}, "messages[1].content[0].toolUse", OBJECT),
        "gemini": ({}, "messages[1].parts[0].functionCall", OBJECT),
        "langchain": ({}, "messages[1].tool_calls[0]", OBJECT_ONLY),
        "otel": ({}, "messages[1].parts[0]", OBJECT),
    }
    for name, (arguments, path, encoding) in expected.items():
        calls = check(build(BY_NAME[name], steps), path="request.messages").calls
        assert calls == [HistoryCall(W, arguments, "c1", f"request.{path}", encoding)]


def test_a_call_without_arguments_is_listed_as_absent_and_one_without_id_still_listed():
    messages = [{"role": "assistant", "content": [{"type": "tool_use", "name": W}]}]
    checked = check(messages)
    assert checked.calls == [HistoryCall(W, ABSENT, None, "messages[0].content[0]", OBJECT)]
    assert [p.code for p in checked.problems] == ["malformed:history"]


# -- LangChain's forms -----------------------------------------------------------------


def _dumpd(cls: str, **kwargs: object) -> dict:
    return {
        "lc": 1,
        "type": "constructor",
        "id": ["langchain", "schema", "messages", cls],
        "kwargs": kwargs,
    }


def test_langchains_dumpd_and_messages_to_dict_forms_pair():
    call = {"name": W, "args": {"city": "Paris"}, "id": "c1", "type": "tool_call"}
    dumpd = [
        _dumpd("HumanMessage", content="weather?"),
        _dumpd("AIMessage", content="", tool_calls=[call]),
        _dumpd("ToolMessage", content="Error: boom", tool_call_id="c1", status="error"),
        _dumpd("AIMessage", content="", tool_calls=[{**call, "id": "c2"}]),
    ]
    checked = check(dumpd)
    assert checked.shape == "langchain"
    [problem] = checked.problems
    assert (problem.code, problem.path) == (
        "pairing:unanswered",
        "messages[3].kwargs.tool_calls[0]",
    )
    assert checked.outcomes[W] == ToolOutcome(results=1, failures=1, retried=1, recovered=0)
    as_dict = [
        {"type": "ai", "data": {"type": "ai", "content": "", "tool_calls": [call]}},
        {"type": "tool", "data": {"type": "tool", "content": "ok", "tool_call_id": "c9"}},
    ]
    assert [(p.code, p.path) for p in check(as_dict).problems] == [
        ("pairing:unanswered", "messages[0].data.tool_calls[0]"),  # in history order
        ("pairing:orphan_result", "messages[1].data"),
    ]


def test_langsmiths_batched_messages_are_checked_list_by_list():
    steps = [ASK, ("calls", [("c1", W)])]
    batch = [build(BY_NAME["langchain"], steps), build(BY_NAME["langchain"], steps)]
    checked = check(batch, path="inputs.messages")
    assert [p.path for p in checked.problems] == [
        "inputs.messages[0][1].tool_calls[0]",
        "inputs.messages[1][1].tool_calls[0]",
    ]
    assert checked.messages == 4


# -- odd shapes -------------------------------------------------------------------------

ODD = [
    (None, "messages", "a history must be a list of messages, got null"),
    ({"role": "user"}, "messages", "a history must be a list of messages, got an object"),
    (["hello"], "messages[0]", "a message must be an object, got a string"),
    (
        [{"role": "assistant", "tool_calls": 5}],
        "messages[0].tool_calls",
        "tool_calls must be a list",
    ),
    (
        [{"role": "assistant", "tool_calls": [7]}],
        "messages[0].tool_calls[0]",
        "a tool call must be an object, got a number",
    ),
    (
        [{"role": "tool", "content": "x"}],
        "messages[0]",
        "the result has no id, so nothing can pair it",
    ),
    (
        [{"role": "tool", "tool_call_id": 3, "content": "x"}],
        "messages[0]",
        "the result's id must be a string, got 3",
    ),
    (
        [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": ["a"]}]}],
        "messages[0].content[0]",
        'the result\'s id must be a string, got ["a"]',
    ),
    (
        [{"role": "assistant", "content": [{"toolUse": "x"}]}],
        "messages[0].content[0].toolUse",
        "toolUse must be an object, got a string",
    ),
    (
        [{"role": "model", "parts": [None]}],
        "messages[0].parts[0]",
        "a part must be an object, got null",
    ),
    (
        [{"role": "model", "parts": [{"functionCall": []}]}],
        "messages[0].parts[0].functionCall",
        "functionCall must be an object, got an array",
    ),
    (
        [{"type": "function_call", "call_id": None, "name": W}],
        "messages[0]",
        "the call has no id, so nothing can pair it",
    ),
]


@pytest.mark.parametrize(("messages", "path", "detail"), ODD)
def test_an_odd_shape_is_a_located_problem(messages, path, detail):
    problems = check(messages).problems
    assert [(p.code, p.path, p.detail) for p in problems] == [("malformed:history", path, detail)]


@pytest.mark.parametrize("shape", ["anthropic", "bedrock"])
def test_content_of_no_shape_is_a_located_problem(shape):
    [problem] = check([{"role": "assistant", "content": 5}], shape).problems
    assert (problem.path, problem.detail) == (
        "messages[0].content",
        "content must be a list of blocks (or text), got a number",
    )


def test_a_non_string_id_in_a_shape_where_ids_are_optional_pairs_by_name():
    contents = [
        {"role": "model", "parts": [{"functionCall": {"id": 1, "name": W, "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": W, "response": {}}}]},
    ]
    assert [p.code for p in check(contents).problems] == ["malformed:history"]


def test_an_unknown_shape_is_an_option_error():
    with pytest.raises(OptionError, match="unknown history shape 'openai'"):
        check([], "openai")
    assert {
        "openai-chat",
        "openai-responses",
        "anthropic",
        "bedrock",
        "gemini",
        "langchain",
        "otel",
    } == SHAPES


def test_a_history_of_plain_text_is_read_as_chat_with_nothing_to_pair():
    checked = check([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])
    assert (checked.shape, checked.problems, checked.messages) == ("openai-chat", [], 2)


def test_ten_thousand_messages_are_checked_in_one_pass():
    # Linear time: each message is read once, each lookup a dict or a queue's head. A
    # quadratic pairing would take minutes here; no clock is asserted.
    steps = []
    for turn in range(2_500):
        steps += [
            ("user", "go"),
            ("calls", [(f"c{turn}", W)]),
            ("results", [(f"c{turn}", W, turn % 2 == 0)]),
        ]
    steps += [("results", [("c0", W, False)])] * 2_500
    messages = build(BY_NAME["openai-chat"], steps)
    checked = check(messages)
    assert checked.messages == 10_000
    assert len(checked.problems) == 2_500  # the late results of c0: duplicates
    assert checked.outcomes[W].retried == 1_250
