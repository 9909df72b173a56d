"""The C speedups that read a history straight from its JSON text (``chat_json``,
``responses_json``, ``anthropic_json``, ``bedrock_json``, ``gemini_json``, ``otel_json`` in
``history/_speedups_json.c``)
against their dict functions on ``orjson.loads(text)``: on any history the other tests
build, written by orjson or by a writer that varies the whitespace, the key order, the
escapes, duplicate keys and the numbers, they answer None or exactly what the dict function
answers (and the count of messages); where orjson refuses the text, None. The common
histories must be answered, and no bytes whatever may crash them."""

from __future__ import annotations

import ctypes
import json
import mmap
import random
import sys
from typing import Any

import msgspec
import orjson
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from toolaudit.history import check, fast, fast_loop
from toolaudit.history.model import (
    ANTHROPIC,
    BEDROCK,
    GEMINI,
    NO_NAME,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
    OTEL,
    ToolOutcome,
)

from .shapes import BY_NAME, build
from .test_fast import EDITS, HOSTILE_EDITS, HOSTILE_STEP, edited
from .test_pairing import ASK, FAULTS, W
from .test_repair import STEP
from .test_speedups import MAY_FAIL, NO_FAILURE, results_of

speedups = pytest.importorskip(
    "toolaudit.history._speedups", reason="the C speedups were not built (no C compiler)"
)

#: Each shape: its JSON-text function, and its dict function.
FROM_TEXT = {
    OPENAI_CHAT: (speedups.chat_json, speedups.chat),
    OPENAI_RESPONSES: (speedups.responses_json, speedups.responses),
    ANTHROPIC: (speedups.anthropic_json, speedups.anthropic),
    BEDROCK: (speedups.bedrock_json, speedups.bedrock),
    GEMINI: (speedups.gemini_json, speedups.gemini),
    OTEL: (speedups.otel_json, speedups.otel),
}
SHAPES = sorted(FROM_TEXT)


def holds(shape: str, text: bytes) -> bool:
    """Whether the JSON function answered ``text``; it must answer None where orjson
    refuses the text or its dict function is not sure, else exactly the dict answer, the
    order of the tools counted too."""
    by_text, by_dict = FROM_TEXT[shape]
    found, shown = by_text(text, NO_NAME), text[:400]
    try:
        messages = orjson.loads(text)
    except orjson.JSONDecodeError:
        assert found is None, f"{shape} answered a text orjson refuses: {shown!r}"
        return False
    if found is None:
        return False
    assert isinstance(messages, list), shown
    expected = by_dict(messages, NO_NAME)
    assert expected is not None, f"{shape} answered where its dict function is not sure: {shown!r}"
    unanswered, results = expected
    assert found == (unanswered, results, len(messages)), f"{shape} differs on {shown!r}"
    assert list(found[1]) == list(results), f"{shape} counts its tools in another order: {shown!r}"
    return True


def serialized(messages: list[Any]) -> bytes:
    """The history as orjson writes it, or (a value orjson cannot write: an integer past
    64 bits, a lone surrogate, NaN) as the standard library writes it."""
    try:
        return orjson.dumps(messages)
    except TypeError:
        return json.dumps(messages).encode()


# -- a writer that varies what orjson keeps the same -----------------------------------

SPACES = ["", "", "", " ", "\n", "\t", "\r\n  "]
#: Numbers written in every form, valid or not for orjson, for extra keys and values.
NUMBERS = [
    "0", "-0", "7", "-12", "1.5", "-2.25e-3", "1E2", "1e+2", "0.1e-07", "123456789012345678",
    "1234567890123456789", "12345678901234567890123", "0.0000000000000000001", "1e99",
    "1e400", "1e-400", "1E+308", "5e-324", "1.7976931348623157e308", "01", "1.", "-", ".5",
    "1e", "+1", "NaN", "Infinity",
]  # fmt: skip


class Writer:
    """Writes a value as JSON text with random whitespace, key orders, escapes, duplicate
    keys and extra number keys (some texts orjson refuses: the JSON functions must then
    answer None)."""

    def __init__(self, rng: random.Random, escapes: float, extras: float) -> None:
        self.rng, self.escapes, self.extras = rng, escapes, extras

    def space(self) -> str:
        return self.rng.choice(SPACES)

    def string(self, text: str) -> str:
        out = ['"']
        for char in text:
            code = ord(char)
            if char in '"\\':
                out.append("\\" + char)
            elif code < 0x20 or 0xD800 <= code <= 0xDFFF or self.rng.random() < self.escapes:
                if code < 0x10000:
                    out.append(f"\\u{code:04{self.rng.choice('xX')}}")
                else:
                    high, low = 0xD800 + ((code - 0x10000) >> 10), 0xDC00 + (code & 0x3FF)
                    out.append(f"\\u{high:04x}\\u{low:04x}")
            elif char == "/" and self.rng.random() < 0.5:
                out.append("\\/")
            else:
                out.append(char)
        return "".join(out) + '"'

    def number(self, value: float) -> str:
        if self.rng.random() < 0.05:
            return self.rng.choice(NUMBERS)
        if (isinstance(value, float) and value != value) or value in (float("inf"), float("-inf")):
            return self.rng.choice(["NaN", "Infinity", "-Infinity", "null"])
        written = repr(value)
        if isinstance(value, int) and self.rng.random() < 0.1:
            written += self.rng.choice([".0", "e0", "E+00", ".000e-0"])
        return written

    def value(self, value: object) -> str:
        if value is None or isinstance(value, bool):
            return {None: "null", True: "true", False: "false"}[value]
        if isinstance(value, (int, float)):
            return self.number(value)
        if isinstance(value, str):
            return self.string(value)
        if isinstance(value, list):
            items = [self.space() + self.value(item) + self.space() for item in value]
            return "[" + (",".join(items) if items else self.space()) + "]"
        assert isinstance(value, dict)
        return self.object(value)

    def object(self, value: dict[str, Any]) -> str:
        pairs = [(key, self.value(item)) for key, item in value.items()]
        if self.rng.random() < 0.3:
            self.rng.shuffle(pairs)
        if self.rng.random() < self.extras:
            pairs.insert(self.rng.randrange(len(pairs) + 1), ("extra", self.rng.choice(NUMBERS)))
        if pairs and self.rng.random() < self.extras:  # a key given twice: orjson keeps the last
            key = self.rng.choice(pairs)[0]
            other = self.rng.choice(['"tool"', '"x"', "null", "1", '{"name": "get_time"}'])
            pairs.insert(self.rng.randrange(len(pairs) + 1), (key, other))
        members = [
            f"{self.space()}{self.string(k)}{self.space()}:{self.space()}{v}" for k, v in pairs
        ]
        return "{" + (",".join(members) if members else self.space()) + "}"


def written(messages: list[Any], seed: int, escapes: float, extras: float) -> bytes:
    text = Writer(random.Random(seed), escapes, extras).value(messages)
    return text.encode("utf-8", "surrogatepass")


def holds_written(shape: str, messages: list[Any], seed: int) -> None:
    """The history as orjson writes it, and written three ways by the varying writer."""
    holds(shape, serialized(messages))
    for escapes, extras in ((0.0, 0.0), (0.0, 0.3), (0.05, 0.1)):
        holds(shape, written(messages, seed, escapes, extras))


# -- the histories every other test builds ---------------------------------------------


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_every_fault_is_left_to_python_or_answered_alike(shape: str, fault: str):
    messages = build(BY_NAME[shape], FAULTS[fault][0])
    for seed in range(20):
        holds_written(shape, messages, seed)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("fault", ["clean", "unanswered"])
def test_the_common_histories_are_answered(shape: str, fault: str):
    messages = build(BY_NAME[shape], FAULTS[fault][0])
    assert holds(shape, orjson.dumps(messages))
    assert holds(shape, orjson.dumps(messages, option=orjson.OPT_INDENT_2))
    plain = Writer(random.Random(0), escapes=0.0, extras=0.0)
    assert holds(shape, plain.value(messages).encode())


@pytest.mark.parametrize("shape", SHAPES)
def test_escapes_and_numbers_in_what_the_check_skips_are_answered(shape: str):
    messages = build(BY_NAME[shape], FAULTS["clean"][0])
    messages[0]["note"] = 'a "quote", a \\ backslash,\n a tab\t, \u00e9t\u00e9, \U0001f600 and \x00'
    messages[0]["figures"] = [0, -0.0, 1.5e-7, -12, 2.5e99, {"deep": [[[{"a": [None, True]}]]]}]
    assert holds(shape, orjson.dumps(messages))
    assert holds(shape, written(messages, 1, escapes=0.0, extras=0.0).replace(b"/", b"\\/"))
    escaped_skipped = orjson.dumps(messages).replace(b'"note":"a', b'"note":"\\u0041')
    assert holds(shape, escaped_skipped)


@pytest.mark.parametrize("shape", SHAPES)
def test_a_result_that_may_report_a_failure_is_left_to_python(shape: str):
    for content in MAY_FAIL:
        if isinstance(content, tuple):
            continue  # JSON has no tuple: orjson writes a list
        text = orjson.dumps(results_of(shape, content))
        assert FROM_TEXT[shape][0](text, NO_NAME) is None, content
        holds(shape, text)


def test_a_result_flagged_as_a_failure_is_left_to_python():
    anthropic = build(BY_NAME[ANTHROPIC], FAULTS["clean"][0])
    anthropic[-1]["content"][0]["is_error"] = True
    bedrock = build(BY_NAME[BEDROCK], FAULTS["clean"][0])
    bedrock[-1]["content"][0]["toolResult"]["status"] = "error"
    for shape, messages in ((ANTHROPIC, anthropic), (BEDROCK, bedrock)):
        assert FROM_TEXT[shape][0](orjson.dumps(messages), NO_NAME) is None
        holds(shape, orjson.dumps(messages))


@pytest.mark.parametrize("shape", SHAPES)
def test_a_result_that_surely_reports_no_failure_is_answered(shape: str):
    for content in [*NO_FAILURE, "line one\nline two", [{"type": "text", "text": "-3C\tdry"}]]:
        assert holds(shape, orjson.dumps(results_of(shape, content))), content


@pytest.mark.parametrize("shape", SHAPES)
def test_a_result_text_whose_first_character_is_escaped_is_left_to_python(shape: str):
    for first in (b"\\u0045rror: no such city", b"\\n", b"\\u00e9t\\u00e9"):
        text = orjson.dumps(results_of(shape, "@")).replace(b'"@"', b'"' + first + b'"')
        assert FROM_TEXT[shape][0](text, NO_NAME) is None
        holds(shape, text)


#: Texts every JSON function leaves to Python, whatever the shape: each written from the
#: clean Chat history with one change (an escape in a string read, a key read twice, a
#: number orjson may read otherwise, too deep, malformed).
CLEAN_CHAT = orjson.dumps(build(BY_NAME[OPENAI_CHAT], FAULTS["clean"][0]))
NOT_SURE = {
    "an escaped id": CLEAN_CHAT.replace(b'"id":"c1"', b'"id":"\\u0063\\u0031"'),
    "an escaped role": CLEAN_CHAT.replace(b'"role":"tool"', b'"role":"t\\u006fol"'),
    "an escaped key": CLEAN_CHAT.replace(b'"tool_call_id"', b'"tool_call_\\u0069d"'),
    "a role given twice": CLEAN_CHAT.replace(b'"role":"tool"', b'"role":"user","role":"tool"'),
    "an integer of 19 digits": CLEAN_CHAT.replace(b"[{", b'[{"n":1234567890123456789,', 1),
    "a fraction of 19 digits": CLEAN_CHAT.replace(b"[{", b'[{"n":0.1234567890123456789,', 1),
    "an exponent of 3 digits": CLEAN_CHAT.replace(b"[{", b'[{"n":1e-100,', 1),
    "too deep": CLEAN_CHAT.replace(b"[{", b'[{"n":' + b"[" * 70 + b"]" * 70 + b",", 1),
    "a lone surrogate": CLEAN_CHAT.replace(b"What", b"\\ud800What"),
    "a high surrogate before another escape": CLEAN_CHAT.replace(b"What", b"\\ud800\\u0041"),
    "two low surrogates": CLEAN_CHAT.replace(b"What", b"\\udc00\\udc00What"),
    "a control character": CLEAN_CHAT.replace(b"What", b"\x01What"),
    "invalid UTF-8": CLEAN_CHAT.replace(b"What", b"\xc0\xafWhat"),
    "a surrogate in UTF-8": CLEAN_CHAT.replace(b"What", b"\xed\xa0\x80What"),
    "a trailing comma": CLEAN_CHAT.replace(b"}]", b"},]"),
    "more after the array": CLEAN_CHAT + b" []",
    "a form feed after the array": CLEAN_CHAT + b"\x0c",
    "a byte order mark": b"\xef\xbb\xbf" + CLEAN_CHAT,
    "not an array": b'{"role": "user"}',
    "a message not an object": b'[{"role": "user", "content": "hi"}, []]',
    "a name not a string": CLEAN_CHAT.replace(b'"name":"get_weather"', b'"name":7', 1),
}


@pytest.mark.parametrize("case", sorted(NOT_SURE))
def test_what_the_scanner_is_not_sure_of_is_left_to_python(case: str):
    text = NOT_SURE[case]
    assert text != CLEAN_CHAT
    assert speedups.chat_json(text, NO_NAME) is None
    holds(OPENAI_CHAT, text)


#: Contents a text reader reads in place for a failure (scan_no_failure) and is not sure of.
UNSURE_CONTENTS = [
    b'[{"type":"text","te\\u0078t":"Error"}]',  # a key escaped: it may be "text"
    b'[{"type":"text","text":"a","text":"Error"}]',  # a key given twice: orjson keeps the last
    b'{"content":{"is_error":false,"is_error":true}}',
]


@pytest.mark.parametrize("content", UNSURE_CONTENTS, ids=repr)
def test_a_content_read_in_place_that_the_reader_is_not_sure_of(content: bytes):
    """A user's content is read past and the history answered; a result's is left to
    Python, in every shape whose results it may be."""
    user = CLEAN_CHAT.replace(b'"What is the weather in Paris and Rome?"', content)
    result = CLEAN_CHAT.replace(b'"content":"sunny"', b'"content":' + content, 1)
    assert speedups.chat_json(user, NO_NAME) is not None
    assert holds(OPENAI_CHAT, user)
    assert speedups.chat_json(result, NO_NAME) is None
    holds(OPENAI_CHAT, result)
    for shape in (ANTHROPIC, BEDROCK, GEMINI, OPENAI_RESPONSES):
        clean = orjson.dumps(build(BY_NAME[shape], FAULTS["clean"][0]))
        sunny = b'{"output":"sunny"}' if shape == GEMINI else b'"sunny"'  # Gemini's response
        unsure = clean.replace(sunny, content, 1)
        assert unsure != clean, shape
        assert FROM_TEXT[shape][0](unsure, NO_NAME) is None, shape
        holds(shape, unsure)


#: Result contents written as one text block is (scan_text_block), and near it.
TEXT_BLOCKS = [
    b'[{"text":"sunny"}]', b'[{"text":"Error: no city"}]', b'[{"text":"An error"}]',
    b'[{"text":"{\\"a\\":1}"}]', b'[{"text":"\\u0045rror"}]', b'[{"text":"\\nsunny"}]',
    b'[{"text":""}]', b'[{"text":"sunny"},{"text":"Error"}]', b'[{"text":"sunny"} ]',
    b'[{"text":"sunny" }]', b'[ {"text":"sunny"}]', b'[{"text": "sunny"}]',
    b'[{"text":"sunny","status":"error"}]', b'[{"text":"sunny","isError":true}]',
    b'[{"text":"sunny","text":"Error"}]', b'[{"text":1}]', b'[{"text":null}]',
    b'[{"text":"sun\x01ny"}]', b'[{"text":"sunny\xff"}]', b'[{"text":"sunny}]"}]',
    b'[{"text":"sunny"}]]', b'[{"text":"sunny"}}', b'[{"text":"sunny"', b'[{"text":"',
    b'[{"texts":"sunny"}]', b'[{"tex":"sunny"}]', b'[[{"text":"Error"}]]',
    b'[[[{"text":"Error"}]]]', b'[' * 61 + b'{"text":"x"}' + b']' * 61,
    b'[' * 62 + b'{"text":"x"}' + b']' * 62,
]  # fmt: skip


#: Result contents written as one pair of a key not read is (scan_plain_pair), and near it.
PLAIN_PAIRS = [
    b'{"output":"sunny"}', b'{"result":"Error"}', b'{"output":1}', b'{"output":""}',
    b'{"output" :"sunny"}', b'{"output":"sunny" }', b'{ "output":"sunny"}',
    b'{"output":"sunny","error":"x"}', b'{"output":"sunny","output":"x"}', b'{"error":"x"}',
    b'{"text":"Error"}', b'{"content":"Error"}', b'{"isError":"x"}', b'{"is_error":"x"}',
    b'{"json":"x"}', b'{"\\u0065rror":"x"}', b'{"out\\"put":"x"}', b'{"output":"sunny"',
    b'{"output":"sunny"}}', b'{"output":"sun\x01ny"}', b'{"output":"\\u0045"}', b'{"":"x"}',
    b'{"errors":"x"}', b'{"erro":"x"}',
]  # fmt: skip

#: Those the text reader is as sure of as the dict function.
AS_SURE = [
    b'[{"text":"sunny"}]', b'[{"text":"Error: no city"}]', b'[{"text":"An error"}]',
    b'[{"text":""}]', b'[{"text":"sunny"} ]', b'[ {"text":"sunny"}]', b'[{"text": "sunny"}]',
    b'[{"text":"sunny"},{"text":"Error"}]', b'[{"text":"sunny","status":"error"}]',
    b'[{"text":1}]', b'[{"text":null}]', b'[{"texts":"sunny"}]', b'[[{"text":"Error"}]]',
    b'[[[{"text":"Error"}]]]', b'{"output":"sunny"}', b'{"result":"Error"}', b'{"output":1}',
    b'{"output" :"sunny"}', b'{"output":"sunny" }', b'{"error":"x"}', b'{"text":"Error"}',
    b'{"errors":"x"}', b'{"":"x"}',
]  # fmt: skip


@pytest.mark.parametrize("content", TEXT_BLOCKS + PLAIN_PAIRS, ids=repr)
@pytest.mark.parametrize("shape", [ANTHROPIC, BEDROCK, OPENAI_CHAT, OPENAI_RESPONSES, GEMINI])
def test_a_result_written_plainly_is_read_as_any_content(shape: str, content: bytes):
    clean = orjson.dumps(build(BY_NAME[shape], FAULTS["clean"][0]))
    sunny = b'{"output":"sunny"}' if shape == GEMINI else b'"sunny"'  # Gemini's response
    assert sunny in clean
    for text in (clean.replace(sunny, content, 1), clean.replace(sunny, content)):
        answered = holds(shape, text)
        try:
            by_dict = FROM_TEXT[shape][1](orjson.loads(text), NO_NAME)
        except orjson.JSONDecodeError:
            continue
        if content in AS_SURE:
            assert answered == (by_dict is not None), text  # as sure as the dict function


def test_a_surrogate_pair_is_read():
    assert holds(OPENAI_CHAT, CLEAN_CHAT.replace(b"What", b"\\ud83d\\ude00 What"))


def test_an_anthropic_result_after_another_block_is_left_to_python():
    messages = build(BY_NAME[ANTHROPIC], [ASK, ("calls", [("c1", W)])])
    text = {"type": "text", "text": "here:"}
    result = {"type": "tool_result", "tool_use_id": "c1", "content": "sunny"}
    messages.append({"role": "user", "content": [text, result]})
    assert speedups.anthropic_json(orjson.dumps(messages), NO_NAME) is None
    messages[-1]["content"].reverse()
    assert holds(ANTHROPIC, orjson.dumps(messages))
    bedrock = build(BY_NAME[BEDROCK], [ASK, ("calls", [("c1", W)]), ("results", [("c1", W, 0)])])
    bedrock[-1]["content"].insert(0, {"text": "here:"})
    assert holds(BEDROCK, orjson.dumps(bedrock))  # Bedrock takes its results anywhere


#: Histories each dict function leaves to Python, in their shape.
LEFT_TO_PYTHON = [
    (OPENAI_CHAT, [{"role": "assistant", "function_call": {"name": W, "arguments": "{}"}}]),
    (OPENAI_CHAT, [{"role": "user", "content": "hi"}, {"role": "function", "name": W}]),
    (
        OPENAI_CHAT,
        [
            {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": W}}]},
            {"role": "tool", "tool_call_id": "c1", "name": "get_time", "content": "1"},
        ],
    ),
    (OPENAI_RESPONSES, [{"type": "custom_tool_call", "call_id": "c1", "name": "grep"}]),
    (OPENAI_RESPONSES, [{"type": "custom_tool_call_output", "call_id": "c1", "output": "x"}]),
]


@pytest.mark.parametrize(("shape", "messages"), LEFT_TO_PYTHON)
def test_legacy_and_custom_tools_and_names_that_disagree_are_left_to_python(
    shape: str, messages: list[Any]
):
    assert FROM_TEXT[shape][0](orjson.dumps(messages), NO_NAME) is None
    assert FROM_TEXT[shape][1](messages, NO_NAME) is None
    same_name = orjson.dumps(messages).replace(b'"get_time"', f'"{W}"'.encode())
    assert holds(shape, same_name) == (b"get_time" in orjson.dumps(messages))


def test_only_the_containers_read_are_read_in_place():
    """A role, an id or a status that is an array or an object of blocks or calls is
    skipped, never read as the content, the calls or the function it is not."""
    use = {"type": "tool_use", "id": "c9", "name": W}
    anthropic = [{"role": [use], "content": [{"type": "text", "text": "hi"}]}]
    chat = [
        {
            "role": "assistant",
            "name": [{"id": "c8", "function": {"name": W}}],
            "tool_calls": [{"id": {"name": "get_time"}, "function": {"name": W}}],
        }
    ]
    bedrock = [{"role": "assistant", "content": [{"toolUse": {"toolUseId": "c7", "name": W}}]}]
    bedrock[0]["content"].append({"text": "hi", "status": {"toolUseId": "c7"}})
    for shape, messages in ((ANTHROPIC, anthropic), (OPENAI_CHAT, chat), (BEDROCK, bedrock)):
        holds(shape, orjson.dumps(messages))
    assert holds(ANTHROPIC, orjson.dumps(anthropic))
    assert speedups.anthropic_json(orjson.dumps(anthropic), NO_NAME) == ([], {}, 1)


def gemini_turn(role: str, *parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": role, "parts": list(parts)}


def called(name: str, call_id: str | None = None, field: str = "functionCall") -> dict[str, Any]:
    element: dict[str, Any] = {"name": name, "args": {"city": "Paris"}}
    if call_id is not None:
        element["id"] = call_id
    return {field: element}


def answered(name: str, call_id: str | None = None, response: Any = None) -> dict[str, Any]:
    element: dict[str, Any] = {"name": name, "response": response or {"output": "sunny"}}
    if call_id is not None:
        element["id"] = call_id
    return {"functionResponse": element}


ASKED = gemini_turn("user", {"text": "weather?"})
#: Gemini histories the JSON function must answer (as its dict function does).
GEMINI_ANSWERED = {
    "paired by name, in order": [
        ASKED,
        gemini_turn("model", called(W), called(W), called("get_time")),
        gemini_turn("user", answered(W), answered("get_time")),
    ],
    "snake-case fields, one unanswered": [
        ASKED,
        gemini_turn("model", called(W, "a", "function_call"), called(W, "b", "function_call")),
        gemini_turn("user", {"function_response": {"id": "b", "name": W, "response": {}}}),
    ],
    "a null call beside a response": [
        ASKED,
        gemini_turn("model", called(W, "a")),
        gemini_turn("user", {"functionCall": None, **answered(W, "a")}),
    ],
    "a response of a plain text, and calls never answered": [
        ASKED,
        gemini_turn("model", called(W, "a")),
        gemini_turn("user", answered(W, "a", {"result": "sunny"})),
        gemini_turn("model", called(W, "b"), {"text": "and"}, called("get_time", "c")),
    ],
    "parts a string": [gemini_turn("model", called(W, "a")), {"role": "user", "parts": "hi"}],
}
#: Gemini histories its dict function is not sure of: the JSON function answers None.
GEMINI_LEFT = {
    "ids and names mixed": [gemini_turn("model", called(W, "a"), called(W))],
    "an id given twice": [
        gemini_turn("model", called(W, "a")),
        gemini_turn("model", called(W, "a")),
    ],
    "a response naming another tool": [
        gemini_turn("model", called(W, "a")),
        gemini_turn("user", answered("get_time", "a")),
    ],
    "a response that reports an error": [
        gemini_turn("model", called(W, "a")),
        gemini_turn("user", answered(W, "a", {"error": "no such city"})),
    ],
    "a response that may report a failure": [
        gemini_turn("model", called(W, "a")),
        gemini_turn("user", answered(W, "a", {"content": "Error: no such city"})),
    ],
    "a response in the model's content": [
        gemini_turn("model", called(W, "a"), answered(W, "a")),
    ],
    "a response two contents late": [
        gemini_turn("model", called(W, "a")),
        ASKED,
        gemini_turn("user", answered(W, "a")),
    ],
    "a name not a string": [gemini_turn("model", {"functionCall": {"name": 7}})],
    "an id not a string": [gemini_turn("model", {"functionCall": {"id": 7, "name": W}})],
    "a call not an object": [gemini_turn("model", {"functionCall": [W]})],
    "a part not an object": [gemini_turn("model", "hi")],
    "no parts": [{"role": "user"}],
}


@pytest.mark.parametrize("case", sorted(GEMINI_ANSWERED))
def test_gemini_histories_read_from_text(case: str):
    text = orjson.dumps(GEMINI_ANSWERED[case])
    assert holds(GEMINI, text)
    for seed in range(20):
        holds_written(GEMINI, GEMINI_ANSWERED[case], seed)


@pytest.mark.parametrize("case", sorted(GEMINI_LEFT))
def test_gemini_histories_left_to_python(case: str):
    messages = GEMINI_LEFT[case]
    assert speedups.gemini(messages, NO_NAME) is None
    assert speedups.gemini_json(orjson.dumps(messages), NO_NAME) is None


def test_gemini_unanswered_calls_name_their_field():
    found = speedups.gemini_json(
        orjson.dumps(GEMINI_ANSWERED["snake-case fields, one unanswered"]), NO_NAME
    )
    assert found == ([("a", W, 1, 0, "function_call")], {W: 1}, 3)
    by_name = [gemini_turn("model", called(W), called(W)), gemini_turn("user", answered(W))]
    assert speedups.gemini_json(orjson.dumps(by_name), NO_NAME) == (
        [(None, W, 0, 1, "functionCall")],
        {W: 1},
        2,
    )


def test_a_key_given_twice_where_the_check_skips_it_is_answered():
    text = CLEAN_CHAT.replace(b'"type":"function"', b'"type":"x","type":"function"')
    assert holds(OPENAI_CHAT, text)


#: Every key a text reader looks for (history/_speedups_json.c's names), matched where it
#: is written as it is, its closing quote right after (named_key), before it is scanned.
NAMED_KEYS = [
    "role", "tool_call_id", "name", "content", "function_call", "tool_calls", "id",
    "function", "type", "call_id", "output", "is_error", "tool_use_id", "toolUse",
    "toolResult", "toolUseId", "status", "isError", "text", "json", "error", "parts",
    "functionCall", "functionResponse", "function_response", "response", "result",
]  # fmt: skip
#: Keys written near a named key, as a key and what follows it up to its colon: longer,
#: shorter, a letter escaped (the first, the last), the closing quote escaped (a longer key),
#: a space or a line before the colon, in capitals; and the key itself.
NEAR_KEYS = [
    lambda key: f'"{key}x"', lambda key: f'"{key[:-1]}"', lambda key: f'"{key[:-1]}\\u0065"',
    lambda key: f'"\\u00{ord(key[0]):02x}{key[1:]}"', lambda key: f'"{key}\\"x"',
    lambda key: f'"{key}" ', lambda key: f'"{key}"\n', lambda key: f'"{key.upper()}"',
    lambda key: f'"{key}"',
]  # fmt: skip


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("fault", ["clean", "unanswered", "orphan", "duplicate call id"])
def test_keys_written_near_a_named_key_are_read_as_orjson_reads_them(shape: str, fault: str):
    text = orjson.dumps(build(BY_NAME[shape], FAULTS[fault][0]))
    for key in NAMED_KEYS:
        written = f'"{key}"'.encode()
        if written not in text:
            continue
        for near in NEAR_KEYS:
            replaced = text.replace(written, near(key).encode())
            answered = holds(shape, replaced)
            if "\\" not in near(key):  # no escape: as sure as the dict function
                by_dict = FROM_TEXT[shape][1](orjson.loads(replaced), NO_NAME)
                assert answered == (by_dict is not None), replaced
            for cut in (1, 2, len(key), len(key) + 2):  # the text ending in it or after it
                holds(shape, replaced[: replaced.find(near(key).encode()) + cut])
        assert holds(shape, text.replace(written, f'"{key}" '.encode())) == holds(shape, text)
    assert holds(shape, text) == (fault in ("clean", "unanswered"))


def test_every_cut_of_a_history_is_left_to_python():
    for shape in SHAPES:
        text = orjson.dumps(build(BY_NAME[shape], FAULTS["clean"][0]))
        for end in range(len(text)):
            assert FROM_TEXT[shape][0](text[:end], NO_NAME) is None


def test_any_buffer_is_read_and_anything_else_refused():
    text = CLEAN_CHAT
    answer = speedups.chat_json(text, NO_NAME)
    assert answer is not None
    raw = msgspec.json.decode(b'{"messages": ' + text + b"}", type=dict[str, msgspec.Raw])
    for buffer in (bytearray(text), memoryview(text), raw["messages"], memoryview(b"x" + text)[1:]):
        assert speedups.chat_json(buffer, NO_NAME) == answer
    for wrong in ((text.decode(), NO_NAME), (text, b"<no name>"), (text,)):
        with pytest.raises(TypeError):
            speedups.chat_json(*wrong)


def test_an_empty_history_is_answered_as_check_answers_it(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(fast_loop, "SPEEDUPS", speedups)  # on, TOOLAUDIT_PURE_PYTHON or not
    for shape in SHAPES:
        assert FROM_TEXT[shape][0](b" [ ] ", NO_NAME) == ([], {}, 0)
        checked = check([], shape, path="m", calls=False)
        assert not checked.problems and not checked.outcomes and checked.messages == 0
        assert fast.checked_from_text(b"[]", shape, "m") == {}  # all answered: no results


def test_a_tool_named_as_no_name_counts_with_the_calls_without_one():
    messages: list[Any] = [
        {"role": "assistant", "tool_calls": [{"id": "a", "function": {}}]},
        {"role": "tool", "tool_call_id": "a", "content": "ok"},
        {"role": "assistant", "tool_calls": [{"id": "b", "function": {"name": NO_NAME}}]},
        {"role": "tool", "tool_call_id": "b", "content": "ok"},
    ]
    assert holds(OPENAI_CHAT, orjson.dumps(messages))
    assert speedups.chat_json(orjson.dumps(messages), NO_NAME)[1] == {NO_NAME: 2}


def turns(names: list[str]) -> list[Any]:
    """Turns of 50 calls each, one call a name, all answered but the last."""
    calls = [(f"c{k}", name) for k, name in enumerate(names)]
    steps: list[Any] = [ASK]
    for start in range(0, len(calls), 50):
        batch = calls[start : start + 50]
        steps += [("calls", batch), ("results", [(i, n, False) for i, n in batch])]
    steps[-1][1].pop()
    return steps


def test_many_calls_are_found_and_more_tools_than_counted_left_to_python():
    for shape in SHAPES:
        messages = build(BY_NAME[shape], turns([W] * 300))  # the table of ids grows
        assert holds(shape, orjson.dumps(messages))
        assert len(FROM_TEXT[shape][0](orjson.dumps(messages), NO_NAME)[0]) == 1
        many_tools = orjson.dumps(build(BY_NAME[shape], turns([f"tool{k}" for k in range(34)])))
        assert FROM_TEXT[shape][0](many_tools, NO_NAME) is None
        holds(shape, many_tools)
    many_calls = build(BY_NAME[OPENAI_CHAT], [ASK, ("calls", [(f"c{k}", W) for k in range(65)])])
    assert speedups.chat_json(orjson.dumps(many_calls), NO_NAME) is None  # as chat: 64 at most
    del many_calls[-1]["tool_calls"][-1]
    assert holds(OPENAI_CHAT, orjson.dumps(many_calls))


@pytest.mark.parametrize("count", [15, 16, 17, 31, 32, 33, 63, 64, 65, 129])
def test_calls_and_blocks_past_those_a_reading_holds_itself_are_kept(count: int):
    # (a reading holds 32 calls and 16 blocks itself, then allocates: FIRST_CALLS...)
    calls = [(f"c{k}", W) for k in range(count)]
    for shape in SHAPES:
        for batch in (min(count, 64), 1):  # a message of up to 64 calls, or one a message
            steps: list[Any] = [ASK]
            for start in range(0, count, batch):
                done = calls[start : start + batch]
                steps += [("calls", done), ("results", [(i, n, False) for i, n in done])]
            steps[-1][1].pop()  # the last call left unanswered
            text = orjson.dumps(build(BY_NAME[shape], steps))
            assert holds(shape, text), (shape, count, batch)
            assert FROM_TEXT[shape][0](text, NO_NAME)[0][0][0] == f"c{count - 1}"
    for shape in SHAPES:  # every call left: each one's id and place read after growing
        texts = [
            orjson.dumps(
                build(BY_NAME[shape], [ASK, ("calls", [(f"{p}{k}", W) for k in range(count)])])
            )
            for p in ("a", "b")
        ]
        for text in texts:
            assert holds(shape, text) == (count <= 64 or shape not in (OPENAI_CHAT, GEMINI))


# -- the wrapper ------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [*SHAPES, "langchain"])
def test_checked_from_text_is_what_check_answers(shape: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(fast_loop, "SPEEDUPS", speedups)  # on, TOOLAUDIT_PURE_PYTHON or not
    messages = build(BY_NAME[shape], FAULTS["unanswered"][0])
    found = fast.checked_from_text(orjson.dumps(messages), shape, "request.messages")
    if shape in SHAPES:
        assert found == check(messages, shape, path="request.messages", calls=False)
    else:  # no reading from text: None
        assert found is None
    assert fast.checked_from_text(b"[1]", shape, "m") is None


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("fault", ["clean", "unanswered"])
def test_a_history_all_answered_is_given_as_its_results_per_tool(
    shape: str, fault: str, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(fast_loop, "SPEEDUPS", speedups)  # on, TOOLAUDIT_PURE_PYTHON or not
    messages = build(BY_NAME[shape], FAULTS[fault][0])
    text = orjson.dumps(messages)
    found = fast.checked_from_text(text, shape, "request.messages")
    checked = check(messages, shape, path="request.messages", calls=False)
    if fault == "clean":
        assert not checked.problems and found == {
            tool: outcome.results for tool, outcome in checked.outcomes.items()
        }
        assert all(o == ToolOutcome(o.results) for o in checked.outcomes.values())
    else:
        assert checked.problems and found == checked
    assert fast.checked_from_text(b"[1]", shape, "m") is None
    monkeypatch.setattr(fast_loop, "SPEEDUPS", None)  # off: always None
    assert fast.checked_from_text(text, shape, "m") is None


# -- any history, any fault, any writing ------------------------------------------------


@pytest.mark.slow  # a long property run
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    shape=st.sampled_from(SHAPES),
    steps=st.one_of(st.lists(STEP, max_size=8), st.lists(HOSTILE_STEP, max_size=6)),
    edits=st.one_of(EDITS, HOSTILE_EDITS),
    seed=st.integers(0, 2**32),
)
def test_any_history_with_any_fault_however_written_is_answered_alike(
    shape: str, steps: list, edits: list, seed: int
):
    holds_written(shape, edited(build(BY_NAME[shape], steps), edits), seed)


# -- bytes: never a crash, never an answer orjson would not back --------------------------

#: Bytes that matter to the scanner, for mutations to put in.
TOKENS = [b'"', b"\\", b"{", b"}", b"[", b"]", b":", b",", b" ", b"\x00", b"\xff", b"\xc3",
          b"\xe2\x82", b"\\u", b"\\ud83d", b"1e", b"-", b"0", b"true", b"null", b"\n"]  # fmt: skip
MUTATION = st.tuples(
    st.sampled_from(["replace", "insert", "delete", "copy"]),
    st.integers(0, 10_000),
    st.integers(0, 10_000),
    st.one_of(st.sampled_from(TOKENS), st.binary(min_size=1, max_size=2)),
)


def mutated(text: bytes, mutations: list[tuple[str, int, int, bytes]]) -> bytes:
    for how, at, other, token in mutations:
        at %= len(text) + 1
        if how == "replace":
            text = text[:at] + token + text[at + len(token) :]
        elif how == "insert":
            text = text[:at] + token + text[at:]
        elif how == "delete":
            text = text[:at] + text[at + 1 + other % 4 :]
        else:  # a piece of the text somewhere else: keys twice, values in other places
            start = other % (len(text) + 1)
            text = text[:at] + text[start : start + 1 + other % 24] + text[at:]
    return text


@pytest.mark.slow  # a long property run
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    shape=st.sampled_from(SHAPES),
    fault=st.sampled_from(sorted(FAULTS)),
    mutations=st.lists(MUTATION, min_size=1, max_size=4),
)
@example(shape=OPENAI_CHAT, fault="clean", mutations=[("delete", 10_000, 0, b"")])
def test_any_mutated_text_is_left_to_python_or_answered_alike(
    shape: str, fault: str, mutations: list
):
    text = mutated(orjson.dumps(build(BY_NAME[shape], FAULTS[fault][0])), mutations)
    for other in SHAPES:  # every function on every text: none may crash
        FROM_TEXT[other][0](text, NO_NAME)
    holds(shape, text)


@settings(max_examples=500, deadline=None)
@given(text=st.binary(max_size=64))
def test_any_bytes_are_read_without_a_crash(text: bytes):
    for shape in SHAPES:
        holds(shape, text)


class Fenced:
    """Texts laid against pages that cannot be read (mprotect), so that a byte read
    past either end of a text faults at once instead of reading what lies there."""

    def __init__(self) -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        self.page = mmap.PAGESIZE
        self.memory = mmap.mmap(-1, 4 * self.page)
        base = ctypes.addressof(ctypes.c_char.from_buffer(self.memory))
        for fence in (0, 3):  # the first page and the last: no access
            address = ctypes.c_void_p(base + fence * self.page)
            assert libc.mprotect(address, ctypes.c_size_t(self.page), 0) == 0

    def texts(self, text: bytes) -> list[memoryview]:
        """``text`` against the end of the readable pages, and against their start."""
        assert len(text) <= 2 * self.page
        view = memoryview(self.memory)
        end, start = 3 * self.page, self.page
        view[end - len(text) : end] = text
        view[start : start + len(text)] = text if len(text) <= self.page else text[: self.page]
        return [view[end - len(text) : end], view[start : start + min(len(text), self.page)]]


FENCED = Fenced() if sys.platform == "linux" else None


@pytest.mark.skipif(FENCED is None, reason="mprotect through ctypes: Linux only")
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    fault=st.sampled_from(sorted(FAULTS)),
    mutations=st.lists(MUTATION, max_size=3),
    cut=st.integers(0, 40),
)
def test_no_byte_past_either_end_of_the_text_is_read(fault: str, mutations: list, cut: int):
    assert FENCED is not None
    for shape in SHAPES:
        text = mutated(orjson.dumps(build(BY_NAME[shape], FAULTS[fault][0])), mutations)
        for piece in (text, text[: len(text) - cut], text[cut:]):
            for fenced in FENCED.texts(piece):
                found = FROM_TEXT[shape][0](fenced, NO_NAME)  # a fault here kills the run
                assert found == FROM_TEXT[shape][0](piece, NO_NAME)
