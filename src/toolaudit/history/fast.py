"""The fast path of ``check`` for the history most logs hold: every call with a string id
of its own, every result where its provider wants it. One loop over the raw dicts pairs
the ids, checks the provider's placement rule and counts the outcomes, with no object per
message and no path string but for the calls and problems it returns.

Anything unusual (a result out of place or unpaired, a repeated id, an id missing or not
a string, a block of another shape, a legacy or custom tool, a name that disagrees) makes
it return None, "not sure", and the full reading (:mod:`toolaudit.history.check`) runs
and decides. The one problem it reports itself is the commonest, a call left without a
result, built by the same function the full reading uses. Its answers are therefore the
full reading's; tests/history/test_fast.py holds the two to it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal

import toolaudit.history.fast_loop as fast_loop
from toolaudit.formats.base import JSON_STRING
from toolaudit.history.fast_blocks import (
    ANTHROPIC_BLOCK,
    BEDROCK_BLOCK,
    GEMINI_PART,
    anthropic,
    bedrock,
    gemini,
)
from toolaudit.history.fast_by_id import OTEL_PART, langchain, otel
from toolaudit.history.fast_loop import (
    Loop,
    Open,
    answered_in_c,
    plainly_checked,
    reports_failure,
)
from toolaudit.history.model import (
    ANTHROPIC,
    BEDROCK,
    GEMINI,
    LANGCHAIN,
    NO_NAME,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
    OTEL,
    UNANSWERED,
    Checked,
)
from toolaudit.results.conversations import Conversations, Histories, Outcomes
from toolaudit.results.folding import table_key

if TYPE_CHECKING:
    from typing_extensions import Buffer  # bytes, a msgspec Raw, a memoryview...

_CHAT_CALL = "{}[{}].tool_calls[{}]"
_RESPONSES_ITEM = "{}[{}]"


def chat(messages: list[Any], path: str, calls: bool) -> Checked | None:
    """OpenAI Chat: a call's results are the run of tool messages right after its message."""
    sped = answered_in_c("chat", OPENAI_CHAT, _CHAT_CALL, messages, path, calls)
    if sped is not None:
        return sped
    loop = Loop(path, calls, _CHAT_CALL)
    seen, held, waiting = loop.seen, loop.held, loop.outcomes.waiting
    result = loop.outcomes.result
    #: the calls of the last message not answered yet, while tool messages follow it
    window: dict[str, Open] = {}
    for index, message in enumerate(messages):
        if type(message) is not dict:
            return None
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            call = window.pop(call_id, None) if type(call_id) is str else None
            if call is None:
                return None
            name = message.get("name")
            if name is not None and name != call[0] and _both_names(name, call[0]):
                return None
            result(call, call[0], reports_failure(message.get("content")))
            continue
        if window:  # any other message ends the run of tool messages
            loop.unanswered.extend(window.items())
            window = {}
        if role == "assistant":
            if message.get("function_call") is not None:
                return None  # legacy functions pair by name: the full reading does that
            tool_calls = message.get("tool_calls")
            if tool_calls is None:
                continue
            if type(tool_calls) is not list:
                return None
            for j, tool_call in enumerate(tool_calls):
                function = tool_call.get("function") if type(tool_call) is dict else None
                if type(function) is not dict:
                    return None  # not an object, or a custom tool's call
                call_id = tool_call.get("id")
                if type(call_id) is not str or call_id in seen:
                    return None
                seen.add(call_id)
                window[call_id] = at = (function.get("name"), index, j, "")
                if held is not None or waiting:
                    loop.call(call_id, at, function, "arguments", JSON_STRING)
        elif role == "function":
            return None
    loop.unanswered.extend(window.items())
    return loop.checked(OPENAI_CHAT, len(messages))


def _both_names(name: object, called: object) -> bool:
    return isinstance(name, str) and isinstance(called, str)


def responses(messages: list[Any], path: str, calls: bool) -> Checked | None:
    """OpenAI Responses: a ``function_call_output`` anywhere after its ``function_call``."""
    sped = answered_in_c("responses", OPENAI_RESPONSES, _RESPONSES_ITEM, messages, path, calls)
    if sped is not None:
        return sped
    loop = Loop(path, calls, _RESPONSES_ITEM)
    seen, held, waiting = loop.seen, loop.held, loop.outcomes.waiting
    unpaired: dict[str, Open] = {}  #: calls not answered yet, in order
    for index, item in enumerate(messages):
        if type(item) is not dict:
            return None
        kind, call_id = item.get("type"), item.get("call_id")
        if kind == "function_call":
            if type(call_id) is not str or call_id in seen:
                return None
            seen.add(call_id)
            unpaired[call_id] = at = (item.get("name"), index, 0, "")
            if held is not None or waiting:
                loop.call(call_id, at, item, "arguments", JSON_STRING)
        elif kind == "function_call_output":
            call = unpaired.pop(call_id, None) if type(call_id) is str else None
            if call is None:
                return None
            loop.outcomes.result(call, call[0], reports_failure(item.get("output")))
        elif kind in ("custom_tool_call", "custom_tool_call_output"):
            return None
    loop.unanswered.extend(unpaired.items())
    return loop.checked(OPENAI_RESPONSES, len(messages))


#: The shapes with a fast path, and theirs.
FAST: dict[str, Callable[[list[Any], str, bool], Checked | None]] = {
    OPENAI_CHAT: chat,
    OPENAI_RESPONSES: responses,
    ANTHROPIC: anthropic,
    BEDROCK: bedrock,
    GEMINI: gemini,
    LANGCHAIN: langchain,
    OTEL: otel,
}


#: What checking a history finds where every call was answered and no result reports a
#: failure (no problem, no failure, nothing retried): its results per tool, and only that.
AllAnswered = dict[str, int]

#: The shapes the C speedups read from a history's dicts: their function, and where their
#: calls are.
IN_C = {
    OPENAI_CHAT: ("chat", _CHAT_CALL),
    OPENAI_RESPONSES: ("responses", _RESPONSES_ITEM),
    ANTHROPIC: ("anthropic", ANTHROPIC_BLOCK),
    BEDROCK: ("bedrock", BEDROCK_BLOCK),
    GEMINI: ("gemini", GEMINI_PART),
    OTEL: ("otel", OTEL_PART),
}
if fast_loop.SPEEDUPS is not None:  # what counted_in_c's tables are
    fast_loop.SPEEDUPS.know_tables(Conversations, Histories, Outcomes, UNANSWERED, table_key(None))
#: The C functions of IN_C, looked up once (fast_loop.SPEEDUPS, read at each call, still
#: turns them off): what counted_in_c calls for every history.
_IN_C_FUNCTIONS = (
    {shape: getattr(fast_loop.SPEEDUPS, function) for shape, (function, _) in IN_C.items()}
    if fast_loop.SPEEDUPS is not None
    else {}
)
#: The shapes they also read from a history's JSON text (``chat_json``...): every one.
FROM_TEXT = {shape: (f"{function}_json", where) for shape, (function, where) in IN_C.items()}


#: What checking a history finds where its only problems are calls left without a result
#: and no result reports a failure, when the problems are counted and not worded (no
#: report row is written): the calls left, each (call id, name, and where it is), and the
#: results per tool.
LeftUnanswered = tuple[list[tuple[Any, ...]], dict[str, int]]


def counted_in_c(
    messages: list[Any],
    shape: str,
    path: str,
    tables: Conversations | None = None,
    model: object = None,
    worded: bool = True,
) -> AllAnswered | Checked | LeftUnanswered | Literal[True] | None:
    """``check(messages, shape, path=path, calls=False)`` where the C speedups answer it,
    building nothing for a history whose every call was answered (most): True where they
    counted it in ``tables`` themselves, as ``tables.count_all_answered(model, ...)``
    would (where every entry it adds to is there already, its name its own key), else its
    results per tool, :data:`AllAnswered`. Not ``worded``, a history whose only problems
    are calls left unanswered is counted in ``tables`` so too (as the recorder's
    ``unanswered_history`` would count it), else given as :data:`LeftUnanswered`. None
    where the speedups are off, do not read this shape, or are not sure."""
    function = _IN_C_FUNCTIONS.get(shape) if fast_loop.SPEEDUPS is not None else None
    found = function(messages, NO_NAME, tables, model, not worded) if function else None
    if found is None or found is True:
        return found
    if not found[0]:
        return found[1]  # every call answered: its results alone
    if not worded:
        return found
    return plainly_checked(shape, IN_C[shape][1], path, len(messages), found)


def counted_answered(
    tables: Conversations,
    model: object,
    results: Mapping[str, int],
    left: list[tuple[Any, ...]] | None = None,
) -> bool:
    """``tables.count_all_answered(model, results)`` done by the C speedups, where they can
    (every entry it adds to there already, its name its own key): True; False where they
    are off or cannot (the caller then counts it). Given ``left``, the calls a history left
    unanswered (its only problems, as :data:`LeftUnanswered` gives them), the history is
    counted with them as the recorder's ``unanswered_history`` counts it."""
    speedups = fast_loop.SPEEDUPS
    if speedups is None:
        return False
    if left is None:
        return bool(speedups.count_answered(tables, model, results))
    return bool(speedups.count_answered(tables, model, results, left))


def history_prefixes() -> object | None:
    """A cache of the histories :func:`checked_from_text` reads, for a log whose lines
    carry one session's history again and again, each longer by a turn (as agents and
    gateways log their requests): a history that starts with the very bytes of one read
    before is read on from where that one ended, with the same answer. None where the
    speedups are off. One per reader of a log: it holds the texts of the last sessions
    (at most 256 of them, 32 MB in all)."""
    speedups = fast_loop.SPEEDUPS
    return speedups.history_prefixes() if speedups is not None else None


def checked_from_text(
    text: Buffer,
    shape: str,
    path: str,
    worded: bool = True,
    tables: Conversations | None = None,
    model: object = None,
    prefixes: object | None = None,
) -> AllAnswered | Checked | LeftUnanswered | Literal[True] | None:
    """``check(orjson.loads(text), shape, path=path, calls=False)`` for the commonest
    histories, read by the C speedups straight from ``text``, the JSON text of the
    messages, building no Python object for them: a history whose every call was answered
    (most) given as its results per tool alone, :data:`AllAnswered`; not ``worded``, one
    whose only problems are calls left unanswered as :data:`LeftUnanswered`. None where
    the speedups are off, do not read this shape, or are not sure (a text orjson may refuse
    or read otherwise, an escape in a string the check reads...: then parse the text and
    check it). ``text`` is any buffer (bytes, a msgspec ``Raw``, a memoryview); the C
    function (``chat_json``, ``anthropic_json``...) is called here, with no Python call
    between: this runs once a pair's line. Given ``tables``, a history whose every call
    was answered is counted there for ``model`` by the C function itself where it can
    (as :func:`counted_answered` counts its results): True. Given ``prefixes`` (from
    :func:`history_prefixes`), a history that starts as one read before is read on from
    there."""
    speedups = fast_loop.SPEEDUPS
    function, where = FROM_TEXT.get(shape, ("", ""))
    if not function or speedups is None:
        return None
    # (tables None: counted nowhere; prefixes None: read whole, as the C twin calls it too)
    found = getattr(speedups, function)(text, NO_NAME, tables, model, prefixes)
    if found is None or found is True:
        return found
    left, results, messages = found
    if not left:
        return results
    if not worded:
        return left, results
    return plainly_checked(shape, where, path, messages, (left, results))


def checked_from_str(
    text: str,
    shape: str,
    path: str,
    worded: bool = True,
    tables: Conversations | None = None,
    model: object = None,
    prefixes: object | None = None,
) -> AllAnswered | Checked | LeftUnanswered | Literal[True] | None:
    """:func:`checked_from_text` of a history held as a str (an OTel span's attribute, its
    line parsed): its UTF-8 read; None where it has none (a lone surrogate), as where the
    speedups are not sure."""
    try:
        data = text.encode()
    except UnicodeEncodeError:
        return None
    return checked_from_text(data, shape, path, worded, tables, model, prefixes)
