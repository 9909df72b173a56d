"""The text readers' one-pass steps (``tight_chat_message``, ``tight_chat_call``,
``tight_message``, ``tight_*_block``, ``tight_otel_part``, ``tight_responses_item`` in
``history/_speedups_json.c``) against the reading they stand in front of: a message, a
call or a block written as the SDKs and orjson write it (no space, its keys in their
order) is read in one pass; anything else, from its start, by the general steps. Each
history here is written so, in every shape, with calls answered, left, failed and
misnamed; written with spaces (``json.dumps``: no one-pass step takes it) it must be
answered exactly alike, and every text one edit away from it (a byte replaced by one the
grammar cares about, one inserted, one deleted) answered None or as orjson and the dict
function answer it (:func:`holds`)."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest

from toolaudit.history import model
from toolaudit.history.model import NO_NAME

from .test_speedups_json import FENCED, FROM_TEXT, holds

ARGUMENTS = '{"city":"Oslo","days":3}'  # written with six escaped quotes
#: A call's input (args): a value of each kind, skipped.
INPUT = {"city": "Oslo", "days": 3, "metric": True, "hourly": False, "hint": None, "t": -1.5e-3}


def chat(results: list[tuple[str, str]]) -> list[dict[str, Any]]:
    calls = [
        {"id": i, "type": "function", "function": {"name": "get_weather", "arguments": ARGUMENTS}}
        for i, _ in results
    ]
    return [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": "Weather, please?"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        *[{"role": "tool", "tool_call_id": i, "content": c} for i, c in results if c],
        {"role": "assistant", "content": "Done.", "tool_calls": calls[:0]},
        {"role": "user", "content": "Thanks."},
    ]


def responses(results: list[tuple[str, str]]) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Weather, please?"},
        *[
            {"type": "function_call", "call_id": i, "name": "get_weather", "arguments": ARGUMENTS}
            for i, _ in results
        ],
        *[{"type": "function_call_output", "call_id": i, "output": c} for i, c in results if c],
        {"role": "assistant", "content": [{"type": "output_text", "text": "Done."}]},
    ]


def anthropic(results: list[tuple[str, str]]) -> list[dict[str, Any]]:
    uses = [
        {"type": "tool_use", "id": i, "name": "get_weather", "input": INPUT} for i, _ in results
    ]
    answers = [{"type": "tool_result", "tool_use_id": i, "content": c} for i, c in results if c]
    return [
        {"role": "user", "content": "Weather, please?"},
        {"role": "assistant", "content": [{"type": "text", "text": "Let me see."}, *uses]},
        {"role": "user", "content": answers},
        {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
    ]


def bedrock(results: list[tuple[str, str]]) -> list[dict[str, Any]]:
    uses = [
        {"toolUse": {"toolUseId": i, "name": "get_weather", "input": INPUT}} for i, _ in results
    ]
    answers = [{"toolResult": {"toolUseId": i, "content": [{"text": c}]}} for i, c in results if c]
    return [
        {"role": "user", "content": [{"text": "Weather, please?"}]},
        {"role": "assistant", "content": uses},
        {"role": "user", "content": answers},
        {"role": "assistant", "content": [{"text": "Done."}]},
    ]


def gemini(results: list[tuple[str, str]]) -> list[dict[str, Any]]:
    calls = [{"functionCall": {"id": i, "name": "get_weather", "args": INPUT}} for i, _ in results]
    answers = [
        {"functionResponse": {"id": i, "name": "get_weather", "response": {"output": c}}}
        for i, c in results
        if c
    ]
    return [
        {"role": "user", "parts": [{"text": "Weather, please?"}]},
        {"role": "model", "parts": calls},
        {"role": "user", "parts": answers},
        {"role": "model", "parts": [{"text": "Done."}]},
    ]


def otel(results: list[tuple[str, str]]) -> list[dict[str, Any]]:
    calls = [
        {"type": "tool_call", "id": i, "name": "get_weather", "arguments": INPUT}
        for i, _ in results
    ]
    answers = [{"type": "tool_call_response", "id": i, "response": c} for i, c in results if c]
    return [
        {"role": "user", "parts": [{"type": "text", "content": "Weather, please?"}]},
        {"role": "assistant", "parts": [{"type": "text", "content": "Let me see."}, *calls]},
        {"role": "tool", "parts": answers},
        {"role": "assistant", "parts": [{"type": "text", "content": "Done."}]},
    ]


WRITTEN = {
    model.OPENAI_CHAT: chat,
    model.OPENAI_RESPONSES: responses,
    model.ANTHROPIC: anthropic,
    model.BEDROCK: bedrock,
    model.GEMINI: gemini,
    model.OTEL: otel,
}
SHAPES = sorted(WRITTEN)
#: The results of each history: (call id, result text; "" for a call left unanswered).
RESULTS = {
    "answered": [("call_1", "-3C"), ("call_2", "sunny")],
    "left": [("call_1", "-3C"), ("call_2", "")],
    "failed": [("call_1", "Error: no such city"), ("call_2", "-3C")],
    "one": [("call_1", "-3C")],
}


def texts(shape: str, results: str) -> tuple[bytes, bytes]:
    """The history as orjson writes it (the one-pass steps read it) and with spaces after
    every comma and colon (the general steps read it)."""
    messages = WRITTEN[shape](RESULTS[results])
    return orjson.dumps(messages), json.dumps(messages, ensure_ascii=False).encode()


@pytest.mark.parametrize("results", sorted(RESULTS))
@pytest.mark.parametrize("shape", SHAPES)
def test_a_history_written_as_the_sdks_write_it_is_answered_as_written_with_spaces(
    shape: str, results: str
):
    compact, spaced = texts(shape, results)
    read = FROM_TEXT[shape][0]
    assert read(compact, NO_NAME) == read(spaced, NO_NAME)
    # every history here is answered but where a result may report a failure (Python's
    # to count)
    assert holds(shape, compact) or results == "failed"


#: Edits that matter to the one-pass steps: the bytes of the grammar, a key's letters,
#: escapes, UTF-8 cut or overlong, a control byte.
TOKENS = [b'"', b"\\", b"{", b"}", b"[", b"]", b":", b",", b" ", b"\x00", b"\x1f", b"\xff",
          b"\xc3", b"\xc0\xaf", b"\xed\xa0\x80", b"\\u0041", b"\\ud800", b"n", b"_", b"e",
          b"1", b"null", b"true", b'""', b"{}", b"[]"]  # fmt: skip


def one_edit_away(text: bytes, start: int, stop: int) -> list[bytes]:
    """Every text one edit away from ``text`` at the positions ``start`` to ``stop``."""
    edits = []
    for at in range(start, stop):
        edits.append(text[:at] + text[at + 1 :])
        for token in TOKENS:
            edits.append(text[:at] + token + text[at + 1 :])
            edits.append(text[:at] + token + text[at:])
    return edits


@pytest.mark.parametrize("shape", SHAPES)
def test_every_text_one_edit_away_is_left_to_python_or_answered_alike(shape: str):
    compact, _ = texts(shape, "left")
    for text in one_edit_away(compact, 0, len(compact)):
        holds(shape, text)


@pytest.mark.parametrize("shape", SHAPES)
def test_keys_reordered_repeated_or_added_are_read_as_the_general_steps_read_them(shape: str):
    messages = WRITTEN[shape](RESULTS["left"])
    read = FROM_TEXT[shape][0]
    for message in range(len(messages)):
        for variant in variants(messages[message]):
            edited = [*messages[:message], variant, *messages[message + 1 :]]
            compact, spaced = orjson.dumps(edited), json.dumps(edited, ensure_ascii=False).encode()
            assert read(compact, NO_NAME) == read(spaced, NO_NAME)
            holds(shape, compact)
        for text in repeated_keys(orjson.dumps(messages[message])):
            edited_text = b",".join(
                [orjson.dumps(m) if k != message else text for k, m in enumerate(messages)]
            )
            holds(shape, b"[" + edited_text + b"]")


def variants(value: Any) -> list[Any]:
    """``value`` and each object within it with its keys reversed, one key dropped, a key
    added before and after the others, and each value a string, null, a number, a list."""
    if isinstance(value, list):
        return [
            [*value[:k], variant, *value[k + 1 :]]
            for k, item in enumerate(value)
            for variant in variants(item)
        ]
    if not isinstance(value, dict):
        return []
    found: list[Any] = [dict(reversed(value.items())), {"x": 1, **value}, {**value, "x": 1}]
    for key, item in value.items():
        found.append({k: v for k, v in value.items() if k != key})
        for other in ("Error", None, 7, [], {}, "\u00e9t\u00e9", 'a"b'):
            found.append({**value, key: other})
        found += [{**value, key: variant} for variant in variants(item)]
    return found


def repeated_keys(text: bytes) -> list[bytes]:
    """``text`` (an object) with each of its keys given again after it, its value null."""
    found = []
    for at in range(len(text)):
        if text[at : at + 2] == b',"' or text[at : at + 2] == b'{"':
            end = text.index(b'"', at + 2)
            key = text[at + 1 : end + 1]
            found.append(text[:-1] + b"," + key + b":null}")
            found.append(text[:-1] + b"," + key + b':"tool"}')
    return found


@pytest.mark.skipif(FENCED is None, reason="mprotect through ctypes: Linux only")
@pytest.mark.parametrize("shape", SHAPES)
def test_no_byte_past_the_end_of_a_text_cut_anywhere_is_read(shape: str):
    assert FENCED is not None
    read = FROM_TEXT[shape][0]
    compact, _ = texts(shape, "left")
    for cut in range(len(compact) + 1):
        piece = compact[:cut]
        for fenced in FENCED.texts(piece):
            assert read(fenced, NO_NAME) == read(piece, NO_NAME)  # a fault here kills the run


#: A tool's name as a JSON writer may escape it: a letter as \u, the solidus, a letter
#: beyond ASCII as \u (each decodes to another string than its bytes).
ESCAPED_NAMES = [b"na\\u006de", b"a\\/b", b"\\u00e9"]


def gemini_by_name(results: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """A Gemini history whose calls and responses have no id (paired by name)."""
    messages = gemini(results)
    for message in messages:
        for part in message["parts"]:
            for element in part.values():
                if isinstance(element, dict):
                    element.pop("id", None)
    return messages


@pytest.mark.parametrize("results", sorted(RESULTS))
@pytest.mark.parametrize("shape", [*SHAPES, "gemini by name"])
def test_a_name_written_with_escapes_is_left_to_python_or_answered_decoded(
    shape: str, results: str
):
    # The readers compare names by their bytes: a name escaped in a call, in its result or
    # in both is left to Python (or answered as its decoded name), read in one pass or not.
    # (Gemini's parts refuse an escaped name; the calls of the other shapes, and Gemini's
    # with an id, are refused when kept, as the one-pass steps read them too.)
    by_name = shape == "gemini by name"
    shape, build = (model.GEMINI, gemini_by_name) if by_name else (shape, WRITTEN[shape])
    messages = build(RESULTS[results])
    read = FROM_TEXT[shape][0]
    compact, spaced = orjson.dumps(messages), json.dumps(messages, ensure_ascii=False).encode()
    for escaped in ESCAPED_NAMES:
        name = b'"' + escaped + b'"'
        for count in (1, 2, -1):  # the first name, the first two, every one
            edited = compact.replace(b'"get_weather"', name, count)
            edited_spaced = spaced.replace(b'"get_weather"', name, count)
            assert read(edited, NO_NAME) == read(edited_spaced, NO_NAME)
            holds(shape, edited)
            holds(shape, edited_spaced)


def with_input(value: Any, nested: Any) -> Any:
    """``value`` with every call's input (INPUT itself) replaced by ``nested``."""
    if value is INPUT:
        return nested
    if isinstance(value, list):
        return [with_input(item, nested) for item in value]
    if isinstance(value, dict):
        return {key: with_input(item, nested) for key, item in value.items()}
    return value


@pytest.mark.parametrize("shape", [model.ANTHROPIC, model.BEDROCK, model.GEMINI, model.OTEL])
def test_an_input_nested_to_the_depth_limit_is_refused_alike_in_one_pass_or_not(shape: str):
    # The one-pass steps skip a call's input (args, arguments) at the depth the general
    # steps reach it: a nesting one of them refuses (past 64 levels) the other refuses too.
    read = FROM_TEXT[shape][0]
    answered = set()
    for levels in range(50, 66):
        for nested in ([], {"a": 1}):
            for _ in range(levels):
                nested = [nested] if isinstance(nested, list) else {"a": nested}
            messages = with_input(WRITTEN[shape](RESULTS["left"]), nested)
            compact, spaced = orjson.dumps(messages), json.dumps(messages).encode()
            assert read(compact, NO_NAME) == read(spaced, NO_NAME), (levels, type(nested))
            answered.add(holds(shape, compact))
    assert answered == {True, False}  # (the limit is among the levels)
