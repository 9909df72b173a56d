"""The fast path of ``check`` against the full reading: on any history, with any fault
put into it, the fast path either gives up (None) or answers exactly what the full
reading answers: the same problems, outcomes and calls. (tests/history/conftest.py holds
it to the same on every history the rest of this suite builds.)"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolaudit.history import PAIRING_CODES, check, check_history, fast, fast_blocks, fast_by_id
from toolaudit.history.check import examine

from .shapes import BY_NAME, SHAPES, Shape, build
from .test_pairing import ASK, FAULTS, W
from .test_repair import STEP

#: Each shape with a fast path, and its fast path (the module's, not the suite's checked one).
FAST = {
    "openai-chat": fast.chat,
    "openai-responses": fast.responses,
    "anthropic": fast_blocks.anthropic,
    "bedrock": fast_blocks.bedrock,
    "gemini": fast_blocks.gemini,
    "langchain": fast_by_id.langchain,
    "otel": fast_by_id.otel,
}
FAST_SHAPES = [BY_NAME[name] for name in FAST]


def agree(shape: str, messages: list[Any]) -> bool:
    """Whether the fast path answered (it agreeing with the full reading, calls listed or not)."""
    answered = False
    for calls in (True, False):
        answer = FAST[shape](messages, "messages", calls)
        if answer is not None:
            assert answer == examine(messages, shape, "messages", calls=calls)[0]
            answered = True
    return answered


def without_ids(messages: list[Any]) -> list[Any]:
    """A Gemini history as the API mostly writes it: calls and responses paired by name."""
    for content in messages:
        for part in content["parts"]:
            for element in part.values():
                if isinstance(element, dict):
                    element.pop("id", None)
    return messages


@pytest.mark.parametrize("shape", FAST_SHAPES, ids=lambda shape: shape.name)
@pytest.mark.parametrize("fault", ["clean", "unanswered", "unanswered_at_end"])
def test_the_fast_path_answers_the_common_histories(shape: Shape, fault: str):
    steps = FAULTS[fault][0] if fault != "unanswered_at_end" else [ASK, ("calls", [("c1", W)])]
    assert agree(shape.name, build(shape, steps))
    if shape.name == "gemini":
        assert agree(shape.name, without_ids(build(shape, steps)))


@pytest.mark.parametrize("shape", FAST_SHAPES, ids=lambda shape: shape.name)
@pytest.mark.parametrize("fault", sorted(set(FAULTS) - {"clean", "unanswered"}))
def test_every_other_fault_is_left_to_the_full_reading_or_agreed(shape: Shape, fault: str):
    agree(shape.name, build(shape, FAULTS[fault][0]))


def test_a_block_before_an_anthropic_result_is_left_to_the_full_reading():
    messages = build(BY_NAME["anthropic"], [ASK, ("calls", [("c1", W)])])
    text = {"type": "text", "text": "here:"}
    result = {"type": "tool_result", "tool_use_id": "c1", "content": "sunny"}
    messages.append({"role": "user", "content": [text, result]})
    assert fast_blocks.anthropic(messages, "messages", True) is None
    [problem] = check(messages, "anthropic").problems
    assert (problem.code, problem.path) == ("pairing:misplaced_result", "messages[2].content[1]")


def test_a_chat_result_naming_another_tool_is_left_to_the_full_reading():
    messages = build(BY_NAME["openai-chat"], [ASK, ("calls", [("c1", W)])])
    messages.append({"role": "tool", "tool_call_id": "c1", "name": "get_time", "content": "1"})
    assert fast.chat(messages, "messages", True) is None
    assert [p.code for p in check(messages).problems] == ["pairing:name_mismatch"]


@pytest.mark.parametrize("shape", ["anthropic", "bedrock", "gemini"])
def test_results_in_a_message_not_a_users_are_left_to_the_full_reading(shape: str):
    messages = build(BY_NAME[shape], FAULTS["clean"][0])
    messages[-1]["role"] = "assistant"
    assert FAST[shape](messages, "messages", True) is None
    assert {p.code for p in check(messages, shape).problems} == {"pairing:misplaced_result"}


def test_a_gemini_history_pairing_by_id_and_by_name_is_left_to_the_full_reading():
    call = {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": W, "args": {}}}]}
    call["parts"].append({"functionCall": {"name": W, "args": {}}})
    by_name = {"functionResponse": {"name": W, "response": {"output": "sunny"}}}
    by_id = {"functionResponse": {"id": "c1", "name": W, "response": {"output": "sunny"}}}
    messages = [call, {"role": "user", "parts": [by_name, by_id]}]
    assert fast_blocks.gemini(messages, "messages", True) is None
    # The response without an id answers the oldest call of its name: c1, answered twice.
    codes = [p.code for p in check(messages, "gemini").problems]
    assert codes == ["pairing:unanswered", "pairing:duplicate_result"]


def test_custom_tools_are_left_to_the_full_reading():
    messages = [
        {"type": "custom_tool_call", "call_id": "c1", "name": "grep", "input": "x"},
        {"type": "custom_tool_call_output", "call_id": "c1", "output": "Error: no"},
    ]
    assert fast.responses(messages, "messages", True) is None
    checked = check(messages, "openai-responses")
    assert (checked.problems, checked.calls, checked.outcomes["grep"].failures) == ([], [], 1)


@pytest.mark.parametrize("shape", FAST_SHAPES, ids=lambda s: s.name)
@pytest.mark.parametrize("fault", ["clean", "duplicate result"])
def test_calls_false_leaves_out_only_the_calls(shape: Shape, fault: str):
    messages = build(shape, FAULTS[fault][0])
    listed, unlisted = check(messages, shape.name), check(messages, shape.name, calls=False)
    assert listed.calls and unlisted.calls == []
    listed.calls = []
    assert listed == unlisted


#: Edits that put faults into a history: a value set, deleted, or inserted before it.
DELETE = object()
VALUES = st.sampled_from(
    [
        DELETE, None, 1, True, "c1", "c2", "c9", "x", "Error: failed", '{"isError": true}',
        "user", "assistant", "model", "tool", "function", "custom_tool_call",
        "custom_tool_call_output", {}, [], {"type": "text", "text": "hi"},
        {"role": "user", "content": "hi"}, {"name": "get_time"},
    ]
)  # fmt: skip
EDITS = st.lists(
    st.tuples(st.sampled_from(["set", "insert"]), st.integers(0, 10_000), VALUES), max_size=3
)


def spots(value: object) -> list[tuple[Any, Any]]:
    """Every (container, key) in ``value``, outermost first."""
    found: list[tuple[Any, Any]] = []
    pending = [value]
    while pending:
        container = pending.pop()
        keys = range(len(container)) if isinstance(container, list) else list(container)
        for key in keys:
            found.append((container, key))
            if isinstance(container[key], (list, dict)):
                pending.append(container[key])
    return found


def edited(messages: list[Any], edits: list[tuple[str, int, object]]) -> list[Any]:
    for how, where, value in edits:
        places = spots(messages)
        if not places:
            break
        container, key = places[where % len(places)]
        if value is DELETE:
            del container[key]
        elif how == "insert" and isinstance(container, list):
            container.insert(key, copy.deepcopy(value))
        else:
            container[key] = copy.deepcopy(value)
    return messages


@pytest.mark.slow
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    shape=st.sampled_from(FAST_SHAPES),
    steps=st.lists(STEP, max_size=8),
    edits=EDITS,
    by_name=st.booleans(),
)
def test_any_history_with_any_fault_the_fast_path_answers_as_the_full_reading(
    shape: Shape, steps: list, edits: list, by_name: bool
):
    messages = build(shape, steps)
    if by_name and shape.name == "gemini":
        messages = without_ids(messages)
    agree(shape.name, edited(messages, edits))


# -- hostile histories: ids and names of every type, hostile values anywhere -----------

#: Ids and names as a broken logger or a model writes them: repeated, of every type.
HOSTILE_IDS = st.one_of(
    st.sampled_from(["c1", "c2", "c1", "", "\ud800", "c1\x00", "Error: x", "<other>"]),
    st.sampled_from([None, True, False, 0, 1.5, -0.0, float("nan"), float("inf")]),
    st.sampled_from([2**64, 10**400, -(2**63), [], ["c1"], {}, {"id": "c1"}, [[]]]),
    st.text(max_size=3),
)
HOSTILE_NAMES = st.one_of(st.sampled_from([W, "get_time"]), HOSTILE_IDS)
HOSTILE_STEP = st.one_of(
    st.tuples(
        st.just("calls"), st.lists(st.tuples(HOSTILE_IDS, HOSTILE_NAMES), min_size=1, max_size=3)
    ),
    st.tuples(
        st.just("results"),
        st.lists(st.tuples(HOSTILE_IDS, HOSTILE_NAMES, st.booleans()), min_size=1, max_size=3),
    ),
    st.tuples(st.just("user"), st.just("go on")),
)
HOSTILE_VALUES = st.one_of(VALUES, HOSTILE_IDS, st.sampled_from([[{}], {"toolResult": "x"}]))
HOSTILE_EDITS = st.lists(
    st.tuples(st.sampled_from(["set", "insert"]), st.integers(0, 10_000), HOSTILE_VALUES),
    max_size=3,
)


def hostile_history_holds(shape: Shape, steps: list, edits: list) -> None:
    """The fast path answers as the full reading does; a repair neither raises nor
    leaves a pairing problem, lists a change for each, and repairing its result changes
    nothing more."""
    messages = edited(copy.deepcopy(build(shape, steps)), edits)
    if shape.name in FAST:
        agree(shape.name, messages)
    repaired = check_history(messages, provider=shape.name, repair=True)
    listed = {(change.code, change.path) for change in repaired.changes}
    for problem in repaired.problems:  # each pairing problem repaired, and said so
        assert problem.code not in PAIRING_CODES or (problem.code, problem.path) in listed
    again = check_history(repaired.messages, provider=shape.name, repair=True)
    assert [p.code for p in again.problems if p.code in PAIRING_CODES] == []
    assert again.changes == []


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=st.sampled_from(SHAPES), steps=st.lists(HOSTILE_STEP, max_size=6), edits=HOSTILE_EDITS)
def test_a_hostile_history_is_answered_alike_and_repaired(shape: Shape, steps: list, edits: list):
    hostile_history_holds(shape, steps, edits)


@pytest.mark.slow
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    shape=st.sampled_from(SHAPES), steps=st.lists(HOSTILE_STEP, max_size=10), edits=HOSTILE_EDITS
)
def test_many_hostile_histories_are_answered_alike_and_repaired(
    shape: Shape, steps: list, edits: list
):
    hostile_history_holds(shape, steps, edits)


def langchain_forms(messages: list[Any]) -> dict[str, list[Any]]:
    """A LangChain history in each form it is logged in: ``model_dump`` (fields at the
    top, as built), ``messages_to_dict`` (in ``data``) and ``dumpd`` (in ``kwargs``)."""
    classes = {"ai": "AIMessage", "tool": "ToolMessage", "human": "HumanMessage"}
    return {
        "model_dump": messages,
        "messages_to_dict": [{"type": m["type"], "data": m} for m in messages],
        "dumpd": [
            {
                "lc": 1,
                "type": "constructor",
                "id": ["langchain", "schema", classes[m["type"]]],
                "kwargs": m,
            }
            for m in messages
        ],
    }


@pytest.mark.parametrize("form", ["model_dump", "messages_to_dict", "dumpd"])
@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_every_form_of_a_langchain_history_is_answered_as_the_full_reading(form: str, fault: str):
    messages = langchain_forms(build(BY_NAME["langchain"], FAULTS[fault][0]))[form]
    answered = agree("langchain", messages)
    assert answered or fault not in ("clean", "unanswered")
    if fault == "unanswered":
        [problem] = check(messages, "langchain").problems
        where = {"model_dump": "", "messages_to_dict": ".data", "dumpd": ".kwargs"}[form]
        assert problem.path.startswith("messages[1]" + where + ".tool_calls[")


def test_langchain_calls_as_openai_dicts_are_left_to_the_full_reading():
    messages = build(BY_NAME["openai-chat"], FAULTS["clean"][0])
    for message in messages:
        message["type"] = {"user": "human", "assistant": "ai", "tool": "tool"}[message["role"]]
    assert fast_by_id.langchain(messages, "messages", True) is None
    assert check(messages, "langchain").problems == []


def test_an_otel_result_in_its_calls_own_message_is_left_to_the_full_reading():
    call = {"type": "tool_call", "id": "c1", "name": W, "arguments": {}}
    answer = {"type": "tool_call_response", "id": "c1", "response": "sunny"}
    messages = [{"role": "assistant", "parts": [call, answer]}]
    assert fast_by_id.otel(messages, "messages", True) is None
    codes = [p.code for p in check(messages, "otel").problems]
    assert codes == ["pairing:unanswered", "pairing:orphan_result"]


def test_an_otel_failure_before_a_call_in_one_message_is_counted_in_order():
    first = {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": W}]}
    failed = {"type": "tool_call_response", "id": "c1", "response": "Error: no such city"}
    again = {"type": "tool_call", "id": "c2", "name": W}
    both_orders = [[again, failed], [failed, again]]
    for parts in both_orders:
        messages = [first, {"role": "assistant", "parts": parts}]
        assert agree("otel", messages)
    retried = [
        check(m, "otel").outcomes[W].retried
        for m in ([first, {"role": "tool", "parts": p}] for p in both_orders)
    ]
    assert retried == [0, 1]


def test_a_batched_history_is_read_batch_by_batch_by_the_fast_path(
    monkeypatch: pytest.MonkeyPatch,
):
    shape = BY_NAME["langchain"]
    batches = [build(shape, FAULTS[fault][0]) for fault in ("clean", "unanswered", "orphan")]
    answered: list[str] = []
    langchain = fast.FAST["langchain"]

    def counted(messages: list[Any], path: str, calls: bool) -> Any:
        found = langchain(messages, path, calls)
        answered.append(path) if found is not None else None
        return found

    monkeypatch.setitem(fast.FAST, "langchain", counted)
    fast_answer = check(batches, "langchain")
    assert answered == ["messages[0]", "messages[1]"]  # the orphan's batch read in full
    monkeypatch.setitem(fast.FAST, "langchain", lambda *_: None)
    assert fast_answer == check(batches, "langchain")
    assert [p.path for p in fast_answer.problems][:1] == ["messages[1][1].tool_calls[1]"]
