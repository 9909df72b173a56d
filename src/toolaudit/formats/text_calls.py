"""Tool calls written into a message's text, in the markup of an open model's chat
template, that the serving stack passed on as plain content (no tool parser, or
one that failed): the call never reached the tool.

Read only where a format says so: the model's own output, in a message without
structured calls, and raw completion text. Markup that is there but cannot be
read is one call with no name and a ``failure`` saying where and why.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from toolaudit.formats.base import ABSENT, OBJECT, Call, is_one_of
from toolaudit.jsonutil import EXACT_DECODER, loads_exact
from toolaudit.values import kind_phrase, shown

#: The markups, by the names a report row gives them ("found in the message text
#: as Hermes <tool_call> markup").
HERMES = "Hermes <tool_call>"
LLAMA = "Llama <|python_tag|>"
MISTRAL = "Mistral [TOOL_CALLS]"
BARE_JSON = "bare JSON"

_HERMES_OPEN = "<tool_call>"
_HERMES_CLOSE = "</tool_call>"
_PYTHON_TAG = "<|python_tag|>"
_TOOL_CALLS = "[TOOL_CALLS]"
_ARGS = "[ARGS]"
_CALL_ID = "[CALL_ID]"

# Each matches one run of a character class from a given position: linear, with
# nothing to backtrack into, whatever the text.
_SPACE = re.compile(r"\s*")
_NAME = re.compile(r"[\w.:/-]+")
_CALL_ID_RUN = re.compile(r"[A-Za-z0-9]*")

#: The content parts whose text is the model's answer (Gemini and Bedrock parts
#: have no type; a Gemini part marked ``thought`` is reasoning, not the answer).
_TEXT_PARTS = frozenset({"text", "output_text"})


#: JSON is decoded from a window of the text, doubled while the value may go on
#: past its end: the parser's error counts the lines before the failure, so
#: decoding in the whole text would cost the text's length for every broken call.
_FIRST_WINDOW = 1024
#: A value or error this close to a window's end may be a cut token ("tr" of true,
#: half a \u escape pair): the window grows.
_MARGIN = 16


def text_of(content: object) -> str:
    """A message's text: its content as a string, or the text parts of a content
    list (OpenAI parts, Anthropic, Gemini and Bedrock text blocks) joined."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = []
    for part in content:
        if isinstance(part, str):  # LangChain lists mix strings and blocks
            texts.append(part)
        elif isinstance(part, Mapping) and not part.get("thought"):
            text = part.get("text")
            if isinstance(text, str) and is_one_of(part.get("type", "text"), _TEXT_PARTS):
                texts.append(text)
    return "".join(texts)


def append_calls_in_text(calls: list[Call], content: object, note: str | None = None) -> None:
    """Append the calls hidden in a message's content (see :func:`text_of`),
    each with ``note`` (a cut-off response's)."""
    for call in calls_in_text(text_of(content), len(calls)):
        call.note = note
        calls.append(call)


def calls_in_text(text: str, first_index: int) -> list[Call]:
    """The calls written into ``text`` as markup, numbered from ``first_index``.

    One markup per text, the first of: Hermes/Qwen ``<tool_call>{...}</tool_call>``,
    Llama ``<|python_tag|>{...}; {...}``, Mistral ``[TOOL_CALLS]`` (a JSON list,
    or ``name[ARGS]{...}`` / ``name{...}``), or a whole text that is exactly one
    call object ``{"name": ..., "arguments": {...}}``.
    """
    if not isinstance(text, str):
        return []
    # Most messages are ordinary text: each check is one scan in C.
    if _HERMES_OPEN in text:
        calls = _hermes(text)
    elif _PYTHON_TAG in text:
        calls = _llama(text)
    elif _TOOL_CALLS in text:
        calls = _mistral(text)
    else:
        calls = _bare_json(text)
    for offset, call in enumerate(calls):
        call.index = first_index + offset
    return calls


def _hermes(text: str) -> list[Call]:
    """``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``, any number; the
    last may be unclosed (the response ended, or the template never closes it)."""
    calls: list[Call] = []
    start = text.find(_HERMES_OPEN)
    while start != -1:
        body = _skip_space(text, start + len(_HERMES_OPEN))
        decoded = _decode(text, body)
        if isinstance(decoded, _Unparsed):
            calls.append(_unreadable(HERMES, start, decoded.why))
            # Read on after this call's closing tag, or at the next call if it has none
            # (past what the parser read: each part of the text is parsed once).
            following = text.find(_HERMES_OPEN, max(body, decoded.at))
            close = text.find(_HERMES_CLOSE, body, len(text) if following == -1 else following)
            resume = following if close == -1 else close + len(_HERMES_CLOSE)
            if resume == -1:
                break
        else:
            value, end = decoded
            calls.append(_call_of_object(HERMES, start, value))
            # A closing tag inside the JSON's strings was read as JSON: search from its end.
            resume = _skip_space(text, end)
        start = text.find(_HERMES_OPEN, resume)
    return calls


def _llama(text: str) -> list[Call]:
    """``<|python_tag|>{"name": ..., "parameters": {...}}``, several joined by ``;``."""
    calls: list[Call] = []
    start = text.find(_PYTHON_TAG)
    while start != -1:
        at = _skip_space(text, start + len(_PYTHON_TAG))
        while True:
            decoded = _decode(text, at)
            if isinstance(decoded, _Unparsed):
                calls.append(_unreadable(LLAMA, start, decoded.why))
                break
            value, at = decoded
            calls.append(_call_of_object(LLAMA, start, value))
            at = _skip_space(text, at)
            if not text.startswith(";", at):
                break
            at = _skip_space(text, at + 1)
            if at == len(text):  # a trailing separator
                break
        start = text.find(_PYTHON_TAG, at)
    return calls


def _mistral(text: str) -> list[Call]:
    """``[TOOL_CALLS]`` then a JSON list of ``{"name", "arguments"}`` (tokenizers
    before v11), or ``name[ARGS]{...}`` (v13; v11 puts ``[CALL_ID]id`` between),
    or ``name{...}`` pairs (the same with ``[ARGS]`` dropped as a special token).
    Newer tokenizers repeat ``[TOOL_CALLS]`` before each call."""
    calls: list[Call] = []
    start = text.find(_TOOL_CALLS)
    while start != -1:
        at = _skip_space(text, start + len(_TOOL_CALLS))
        if text.startswith(("[", "{"), at):
            decoded = _decode(text, at)
            if isinstance(decoded, _Unparsed):
                calls.append(_unreadable(MISTRAL, start, decoded.why))
            else:
                value, at = decoded
                items = value if isinstance(value, list) else [value]
                calls.extend(_call_of_object(MISTRAL, start, item) for item in items)
        else:
            at = _mistral_named(text, start, at, calls)
        start = text.find(_TOOL_CALLS, at)
    return calls


def _mistral_named(text: str, start: int, at: int, calls: list[Call]) -> int:
    """The ``name[ARGS]{...}`` calls after the ``[TOOL_CALLS]`` at ``start``;
    returns where they end."""
    first = True
    while True:
        name = _NAME.match(text, at)
        after = name.end() if name else at
        call_id = None
        if name and text.startswith(_CALL_ID, after):
            id_run = _CALL_ID_RUN.match(text, after + len(_CALL_ID))
            if id_run is not None:
                call_id, after = id_run.group(), id_run.end()
        marked = name is not None and text.startswith(_ARGS, after)
        if marked:
            after += len(_ARGS)
        after = _skip_space(text, after)
        if name is None or not (marked or text.startswith("{", after)):
            if first:  # prose after the marker, or a name with nothing after it
                found = shown(text[at : at + 40], 24)
                why = f"expected a JSON list of calls or name[ARGS]{{...}}, not {found}"
                calls.append(_unreadable(MISTRAL, start, why))
            return at  # text after the calls, not another call
        decoded = _decode(text, after)
        if isinstance(decoded, _Unparsed):
            # The name is readable, so the call counts under its tool.
            failure = f"{MISTRAL} markup at character {start} of the text: {decoded.why}"
            calls.append(Call(0, name.group(), id=call_id, failure=failure, in_text=MISTRAL))
            return after
        arguments, at = decoded
        calls.append(Call(0, name.group(), arguments, id=call_id, encoding=OBJECT, in_text=MISTRAL))
        at = _skip_space(text, at)
        if text.startswith(",", at):
            at = _skip_space(text, at + 1)
        first = False


def _bare_json(text: str) -> list[Call]:
    """A whole text that is one call object and nothing else. Strict, as an ordinary
    answer may well be JSON: exactly a tool-like ``name`` and an object of
    ``arguments`` (or ``parameters``, as Llama 3.1's JSON tool calling writes it)."""
    start = _skip_space(text, 0)
    if not text.startswith("{", start):
        return []
    try:
        value = loads_exact(text)
    except (ValueError, RecursionError):
        return []
    if not isinstance(value, dict) or len(value) != 2:
        return []
    name = value.get("name")
    arguments = value.get("arguments", value.get("parameters"))
    if not isinstance(name, str) or not _NAME.fullmatch(name) or not isinstance(arguments, dict):
        return []
    return [Call(0, name, arguments, encoding=OBJECT, in_text=BARE_JSON)]


def _call_of_object(markup: str, start: int, value: object) -> Call:
    """The call a markup's JSON object stands for, or why it stands for none."""
    if not isinstance(value, dict):
        why = f'expected a call {{"name": ..., "arguments": {{...}}}}, got {kind_phrase(value)}'
        return _unreadable(markup, start, why)
    if "name" not in value:
        return _unreadable(markup, start, 'the call has no "name"')
    arguments = value["arguments"] if "arguments" in value else value.get("parameters", ABSENT)
    call_id = value.get("id")  # the Mistral list form's
    return Call(0, value["name"], arguments, id=call_id, encoding=OBJECT, in_text=markup)


def _unreadable(markup: str, start: int, why: str) -> Call:
    """One call for markup that is there but cannot be read."""
    failure = f"{markup} markup at character {start} of the text: {why}"
    return Call(0, None, failure=failure, in_text=markup)


class _Unparsed:
    """Why the JSON at some point of a text does not parse, and where that shows."""

    __slots__ = ("at", "why")

    def __init__(self, why: str, at: int) -> None:
        self.why = why
        self.at = at


def _decode(text: str, at: int) -> tuple[Any, int] | _Unparsed:
    """The JSON value at ``at`` and where it ends, or why there is none."""
    window = _FIRST_WINDOW
    while True:
        part = text[at : at + window]
        whole = at + window >= len(text)
        try:
            value, end = EXACT_DECODER.raw_decode(part)
        except json.JSONDecodeError as error:
            cut = error.pos >= len(part) - _MARGIN or error.msg.startswith("Unterminated")
            if cut and not whole:
                window *= 2
                continue
            return _unparsed(error, at)
        except RecursionError:
            return _Unparsed("its JSON is nested too deeply to read", at)
        except ValueError as error:  # NaN or Infinity
            return _Unparsed(f"its JSON does not parse ({error})", at)
        if end >= len(part) - _MARGIN and not whole:  # a number may go on
            window *= 2
            continue
        return value, at + end


def _unparsed(error: json.JSONDecodeError, at: int) -> _Unparsed:
    """How a parser's error reads, located in the whole text."""
    where = at + error.pos
    if error.pos >= len(error.doc):
        return _Unparsed("its JSON is cut short: the text ends first", where)
    if error.msg.startswith("Unterminated string"):
        why = f"its JSON is cut short: the string at character {where} never closes"
        return _Unparsed(why, where)
    return _Unparsed(f"its JSON does not parse ({error.msg}: character {where})", where)


def _skip_space(text: str, at: int) -> int:
    match = _SPACE.match(text, at)
    return match.end() if match else at
