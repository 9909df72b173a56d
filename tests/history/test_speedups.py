"""The C speedups of the Chat, Responses, Anthropic, Bedrock, Gemini and OTel fast paths
(``history/_speedups.c``) against
the pure-Python fast paths they stand in for: on any history, with any fault put into
it, they either give up (None) or answer exactly what the pure path answers. Both ways
run here, whichever the rest of the suite uses."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolaudit
from toolaudit.history import check, fast, fast_blocks, fast_by_id, fast_loop
from toolaudit.history.model import (
    ANTHROPIC,
    BEDROCK,
    GEMINI,
    NO_NAME,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
    OTEL,
    Checked,
)

from .shapes import BY_NAME, build
from .test_fast import EDITS, edited, without_ids
from .test_pairing import ASK, FAULTS, W
from .test_repair import STEP

ROOT = Path(__file__).parents[2]
speedups = pytest.importorskip(
    "toolaudit.history._speedups", reason="the C speedups were not built (no C compiler)"
)

#: Each shape with speedups: its C function, the pure fast path, where its calls are.
SPED = {
    OPENAI_CHAT: (speedups.chat, fast.chat, "{}[{}].tool_calls[{}]"),
    OPENAI_RESPONSES: (speedups.responses, fast.responses, "{}[{}]"),
    ANTHROPIC: (speedups.anthropic, fast_blocks.anthropic, "{}[{}].content[{}]"),
    BEDROCK: (speedups.bedrock, fast_blocks.bedrock, "{}[{}].content[{}].toolUse"),
    GEMINI: (speedups.gemini, fast_blocks.gemini, "{}[{}].parts[{}].{}"),
    OTEL: (speedups.otel, fast_by_id.otel, "{}[{}].parts[{}]"),
}
#: Where each shape's first two calls are, when a history's second message makes them.
FIRST_TWO_CALLS = {
    OPENAI_CHAT: ["messages[1].tool_calls[0]", "messages[1].tool_calls[1]"],
    OPENAI_RESPONSES: ["messages[1]", "messages[2]"],
    ANTHROPIC: ["messages[1].content[0]", "messages[1].content[1]"],
    BEDROCK: ["messages[1].content[0].toolUse", "messages[1].content[1].toolUse"],
    GEMINI: ["messages[1].parts[0].functionCall", "messages[1].parts[1].functionCall"],
    OTEL: ["messages[1].parts[0]", "messages[1].parts[1]"],
}


def pure(shape: str, messages: list[Any]) -> Checked | None:
    """The pure-Python fast path's answer, the speedups set aside."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fast_loop, "SPEEDUPS", None)
        return SPED[shape][1](messages, "messages", False)


def sped(shape: str, messages: list[Any]) -> Checked | None:
    """The speedups' answer, as the fast path turns it into a Checked."""
    found = SPED[shape][0](messages, NO_NAME)
    if found is None:
        return None
    return fast_loop.plainly_checked(shape, SPED[shape][2], "messages", len(messages), found)


def agree(shape: str, messages: list[Any]) -> bool:
    """Whether the speedups answered (as the pure fast path does, which must answer too)."""
    answer = sped(shape, messages)
    if answer is None:
        return False
    assert answer == pure(shape, messages), f"the speedups of {shape} disagree on {messages!r}"
    return True


@pytest.mark.parametrize("shape", sorted(SPED))
@pytest.mark.parametrize("fault", ["clean", "unanswered"])
def test_the_speedups_answer_the_common_histories(shape: str, fault: str):
    assert agree(shape, build(BY_NAME[shape], FAULTS[fault][0]))
    at_end = build(BY_NAME[shape], [ASK, ("calls", [("c1", W), ("c2", W)])])
    assert agree(shape, at_end)
    assert [p.path for p in check(at_end, shape).problems] == FIRST_TWO_CALLS[shape]


@pytest.mark.parametrize("shape", sorted(SPED))
@pytest.mark.parametrize("fault", sorted(set(FAULTS) - {"clean", "unanswered"}))
def test_every_other_fault_is_left_to_python_or_agreed(shape: str, fault: str):
    agree(shape, build(BY_NAME[shape], FAULTS[fault][0]))


#: Results' contents that may report a failure (or do), and some that surely do not.
MAY_FAIL = [
    "Error: no such city",
    "An error occurred while running the tool.",
    "{}",
    [{"type": "text", "text": "Error: no such city"}],
    [{"isError": True, "content": [{"type": "text", "text": "no such city"}]}],
    {"is_error": True},
    {"json": {"content": "{"}},
    ("a tuple",),
]
NO_FAILURE = [
    "sunny",
    "",
    [],
    [{"type": "text", "text": "sunny"}],
    [{"isError": False, "content": [{"json": {"text": None}}]}],
    {"json": {"temperature": 21}},
    None,
    21.5,
    [[[[["Error: deeper than the failure texts are looked for"]]]]],
]


def results_of(shape: str, content: object) -> list[Any]:
    """A call of each shape answered by a result holding ``content``."""
    messages = build(BY_NAME[shape], [ASK, ("calls", [("c1", W)]), ("results", [("c1", W, 0)])])
    last = messages[-1]
    if shape == OPENAI_CHAT:
        last["content"] = content
    elif shape == OPENAI_RESPONSES:
        last["output"] = content
    elif shape == ANTHROPIC:
        last["content"][0]["content"] = content
    elif shape == GEMINI:
        last["parts"][0]["functionResponse"]["response"] = content
    elif shape == OTEL:
        last["parts"][0]["response"] = content
    else:
        last["content"][0]["toolResult"]["content"] = content
    return messages


@pytest.mark.parametrize("shape", sorted(SPED))
def test_a_result_that_may_report_a_failure_is_left_to_python(shape: str):
    for content in MAY_FAIL:
        messages = results_of(shape, content)
        assert sped(shape, messages) is None, content
        assert pure(shape, messages) is not None


@pytest.mark.parametrize("shape", sorted(SPED))
def test_a_result_that_surely_reports_no_failure_is_read_in_c(shape: str):
    for content in NO_FAILURE:
        assert agree(shape, results_of(shape, content)), content


def test_names_that_are_not_text_count_under_no_name():
    messages: list[Any] = [
        {"role": "assistant", "tool_calls": [{"id": "a", "function": {"name": 7}}]},
        {"role": "tool", "tool_call_id": "a", "content": "ok"},
        {"role": "assistant", "tool_calls": [{"id": "b", "function": {}}]},
        {"role": "tool", "tool_call_id": "b", "content": ""},
    ]
    assert agree(OPENAI_CHAT, messages)
    assert sped(OPENAI_CHAT, messages).outcomes[NO_NAME].results == 2  # type: ignore[union-attr]


class Text(str):
    """A str subclass: its == is its own, so the speedups leave it to Python."""


@pytest.mark.parametrize("where", ["role", "id", "name"])
def test_a_str_subclass_is_left_to_python(where: str):
    name = Text(W) if where == "name" else W
    call = {"id": Text("a") if where == "id" else "a", "function": {"name": name}}
    role = Text("assistant") if where == "role" else "assistant"
    messages = [{"role": role, "tool_calls": [call]}]
    assert sped(OPENAI_CHAT, messages) is None


def test_the_speedups_refuse_what_is_not_a_list():
    with pytest.raises(TypeError):
        speedups.chat(({"role": "user"},), NO_NAME)


def test_keys_of_any_object_are_read():
    """Keys made apart (not the objects the speedups adopted) are found all the same."""
    messages = [
        {"".join(["ro", "le"]): "assistant", "tool_calls": [{"id": "a", "function": {"name": W}}]},
        {"role": "tool", "tool_call_id": "".join(["a"]), "content": "ok"},
    ]
    assert agree(OPENAI_CHAT, messages)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=st.sampled_from(sorted(SPED)), steps=st.lists(STEP, max_size=8), edits=EDITS)
def test_any_history_with_any_fault_the_speedups_answer_as_python(
    shape: str, steps: list, edits: list
):
    agree(shape, edited(build(BY_NAME[shape], steps), edits))


def test_toolaudit_pure_python_turns_the_speedups_off():
    probe = "from toolaudit.history import fast_loop; print(fast_loop.SPEEDUPS is None)"
    for value, off in (("1", "True"), ("", "False")):
        env = {**os.environ, "TOOLAUDIT_PURE_PYTHON": value}
        ran = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True)
        assert ran.stdout.decode().strip() == off, ran.stderr.decode()


@pytest.mark.parametrize(
    ("log", "schemas"),
    [
        ("sample_logs/requests.jsonl", None),
        *(
            (f"tests/cases/formats/{name}/input.jsonl", f"tests/cases/formats/{name}/schemas.json")
            for name in (
                "openai-chat-request",
                "openai-responses-request",
                "anthropic-request",
                "bedrock-request",
            )
        ),
    ],
)
def test_an_audit_is_the_same_with_and_without_the_speedups(log: str, schemas: str | None):
    def audited() -> tuple[list[dict[str, Any]], dict[str, Any]]:
        run = toolaudit.audit([str(ROOT / log)], schemas and str(ROOT / schemas))
        rows = list(run)
        assert run.summary is not None
        return rows, run.summary.to_dict()

    with_speedups = audited()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fast_loop, "SPEEDUPS", None)
        assert audited() == with_speedups


@pytest.mark.parametrize("shape", [ANTHROPIC, BEDROCK])
def test_results_in_a_message_not_a_users_are_left_to_python(shape: str):
    messages = build(BY_NAME[shape], FAULTS["clean"][0])
    assert agree(shape, messages)
    messages[-1]["role"] = "assistant"
    assert sped(shape, messages) is None
    del messages[-1]["role"]  # no role: it may hold results
    assert agree(shape, messages)


def test_an_anthropic_result_after_another_block_is_left_to_python():
    messages = build(BY_NAME[ANTHROPIC], [ASK, ("calls", [("c1", W)])])
    text = {"type": "text", "text": "here:"}
    result = {"type": "tool_result", "tool_use_id": "c1", "content": "sunny"}
    messages.append({"role": "user", "content": [text, result]})
    assert sped(ANTHROPIC, messages) is None
    messages[-1]["content"].reverse()
    assert agree(ANTHROPIC, messages)
    bedrock = build(BY_NAME[BEDROCK], [ASK, ("calls", [("c1", W)]), ("results", [("c1", W, 0)])])
    bedrock[-1]["content"].insert(0, {"text": "here:"})
    assert agree(BEDROCK, bedrock)  # Bedrock takes its results anywhere in the message


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_gemini_history_paired_by_name_is_answered_as_python(fault: str):
    messages = without_ids(build(BY_NAME[GEMINI], FAULTS[fault][0]))
    answered = agree(GEMINI, messages)
    assert answered or fault not in ("clean", "unanswered")


def test_gemini_calls_of_one_name_are_answered_in_order():
    calls = {
        "role": "model",
        "parts": [{"functionCall": {"name": W, "args": {"n": n}}} for n in "ab"],
    }
    response = {"functionResponse": {"name": W, "response": {"output": "ok"}}}
    answered = [{"role": "user", "parts": [{"text": "go"}]}, calls]
    assert agree(GEMINI, [*answered, {"role": "user", "parts": [response]}])
    left = sped(GEMINI, [*answered, {"role": "user", "parts": [response]}])
    assert left is not None and [p.path for p in left.problems] == [
        "messages[1].parts[1].functionCall"
    ]
    assert agree(GEMINI, [*answered, {"role": "user", "parts": [response, response]}])


@pytest.mark.parametrize(
    "change",
    [
        "error in the response",
        "ids and names mixed",
        "a response naming another tool",
        "a response in the model's content",
        "an id repeated",
        "a name that is not text",
        "an id that is not text",
        "a part that is not an object",
        "a content that is not an object",
        "parts missing",
    ],
)
def test_what_gemini_speedups_leave_to_python(change: str):
    messages = build(BY_NAME[GEMINI], FAULTS["clean"][0])
    calls, results = messages[1]["parts"], messages[2]["parts"]
    if change == "error in the response":
        results[0]["functionResponse"]["response"] = {"error": None, "output": "x"}
        assert agree(GEMINI, messages)  # a null error reports none
        results[0]["functionResponse"]["response"] = {"error": "no such city"}
    elif change == "ids and names mixed":
        del results[1]["functionResponse"]["id"]
    elif change == "a response naming another tool":
        results[0]["functionResponse"]["name"] = "get_time"
    elif change == "a response in the model's content":
        messages[2]["role"] = "model"
    elif change == "an id repeated":
        calls[1]["functionCall"]["id"] = calls[0]["functionCall"]["id"]
    elif change == "a name that is not text":
        calls[0]["functionCall"]["name"] = 7
    elif change == "an id that is not text":
        calls[0]["functionCall"]["id"] = 7
    elif change == "a part that is not an object":
        calls.append("text")
    elif change == "a content that is not an object":
        messages.append([])
    else:
        del messages[0]["parts"]
    assert sped(GEMINI, messages) is None


def test_gemini_parts_in_snake_case_and_parts_as_text_are_read():
    messages = build(BY_NAME[GEMINI], FAULTS["unanswered"][0])
    for content in messages:
        for part in content["parts"]:
            for camel, snake in (
                ("functionCall", "function_call"),
                ("functionResponse", "function_response"),
            ):
                if camel in part:
                    part[snake] = part.pop(camel)
    assert agree(GEMINI, messages)
    assert agree(GEMINI, [{"role": "user", "parts": "just text"}, *messages])
    first = sped(GEMINI, messages)
    assert first is not None and all(".function_call" in p.path for p in first.problems)


def test_otel_results_are_read_from_response_or_result_and_never_in_their_calls_message():
    messages = build(BY_NAME[OTEL], FAULTS["clean"][0])
    answer = messages[-1]["parts"][0]
    answer["result"] = answer.pop("response")
    assert agree(OTEL, messages)
    answer["result"] = "Error: no such city"
    assert sped(OTEL, messages) is None
    answer["response"] = None  # present: read before "result", and reports no failure
    assert agree(OTEL, messages)
    call = {"type": "tool_call", "id": "c9", "name": W, "arguments": {}}
    own = {"type": "tool_call_response", "id": "c9", "response": "sunny"}
    assert sped(OTEL, [{"role": "assistant", "parts": [call, own]}]) is None


@pytest.mark.parametrize("shape", sorted(SPED))
@pytest.mark.parametrize("calls", [1, 17, 70, 300])
def test_histories_of_many_calls_are_answered_as_python(shape: str, calls: int):
    """The C call table grows (16 calls, then twice as many each time) and finds them all."""
    steps: list[Any] = [ASK]
    for k in range(calls):
        steps += [("calls", [(f"c{k}", W)]), ("results", [(f"c{k}", W, 0)] if k % 7 else [])]
    assert agree(shape, build(BY_NAME[shape], steps))


@pytest.mark.parametrize("shape", sorted(SPED))
def test_an_id_used_again_far_later_is_left_to_python(shape: str):
    steps: list[Any] = [ASK]
    for k in range(40):
        steps += [("calls", [(f"c{k}", W)]), ("results", [(f"c{k}", W, 0)])]
    steps += [("calls", [("c3", W)]), ("results", [("c3", W, 0)])]
    assert sped(shape, build(BY_NAME[shape], steps)) is None


@pytest.mark.parametrize("shape", sorted(SPED))
@pytest.mark.parametrize("call_id", ["é1", "调用1", "\U0001f600", "\x00a"])
def test_ids_of_any_characters_are_answered_as_python(shape: str, call_id: str):
    """The C call table compares ids by their bytes and their characters' width: the
    same bytes in strs of other widths are other ids."""
    steps = [ASK, ("calls", [(call_id, W), ("ab", W)]), ("results", [(call_id, W, 0)])]
    assert agree(shape, build(BY_NAME[shape], steps))
    same_bytes = "\u6261"  # "ab" in two bytes a character
    steps = [ASK, ("calls", [(same_bytes, W), ("ab", W)]), ("results", [("ab", W, 0)])]
    assert agree(shape, build(BY_NAME[shape], steps))


def rekeyed(value: Any, key: Any, extra: int = 0) -> Any:
    """``value`` with each of its dicts' keys made again by ``key`` and ``extra`` more keys
    (more than the speedups read by one walk: they look the others up)."""
    if isinstance(value, list):
        return [rekeyed(item, key, extra) for item in value]
    if not isinstance(value, dict):
        return value
    made = {key(name): rekeyed(item, key, extra) for name, item in value.items()}
    return made | {f"extra{k}": None for k in range(extra)}


KEYINGS = {
    "fresh objects": lambda name: "".join(list(name)),
    "a str subclass": Text,
    "the same objects": lambda name: name,
}


@pytest.mark.parametrize("shape", sorted(SPED))
@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("extra", [0, 3])
def test_keys_of_any_object_and_dicts_of_any_size_are_read_alike(
    shape: str, fault: str, extra: int
):
    """The speedups take the key objects they find by text as the ones to look for next:
    histories whose keys are other objects of the same text, a str subclass, or the same
    objects again, one after the other, and dicts too large to walk, answer as Python."""
    messages = build(BY_NAME[shape], FAULTS[fault][0])
    answered = []
    for keying in [*KEYINGS, *KEYINGS]:
        history = rekeyed(messages, KEYINGS[keying], extra)
        answered.append(agree(shape, history))
        if keying != "a str subclass":  # (a dict holding one is looked up, as Python does)
            assert answered[-1] == answered[0], f"{keying} read otherwise"
    assert answered[0] or fault not in {"clean", "unanswered"}  # the commonest, read in C


def with_holes(value: Any, moved: str | None) -> Any:
    """``value`` with each dict made with a key deleted before its own (a hole among its
    entries) and ``moved`` deleted and set again (a hole where it was, its entry last)."""
    if isinstance(value, list):
        return [with_holes(item, moved) for item in value]
    if not isinstance(value, dict):
        return value
    made = {"gone": None} | {name: with_holes(item, moved) for name, item in value.items()}
    del made["gone"]
    if moved in made:
        made[moved] = made.pop(moved)
    return made


class Attributes:
    """An object whose ``__dict__`` is a dict sharing its keys with its class's others."""


def as_attributes(value: Any) -> Any:
    """``value`` with each dict an object's ``__dict__`` (a split table, in CPython)."""
    if isinstance(value, list):
        return [as_attributes(item) for item in value]
    if not isinstance(value, dict):
        return value
    made = Attributes()
    for name, item in value.items():
        setattr(made, name, as_attributes(item))
    return vars(made)


@pytest.mark.parametrize("shape", sorted(SPED))
@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("moved", [None, "role", "content", "id", "type"])
def test_dicts_with_deleted_entries_or_split_keys_are_read_alike(
    shape: str, fault: str, moved: str | None
):
    """The speedups walk a small dict's entries where they lie (CPython 3.11): a dict with
    deleted entries among its own, or laid out otherwise, answers as Python."""
    messages = build(BY_NAME[shape], FAULTS[fault][0])
    plain = agree(shape, messages)
    assert agree(shape, with_holes(messages, moved)) == plain
    assert agree(shape, as_attributes(messages)) == plain
