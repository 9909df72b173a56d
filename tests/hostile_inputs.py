"""Hostile inputs for the newest code paths, seeded (a failing case is found again by its
seed): records whose conversation history is hostile, streamed events with hostile
fields, expected-calls files with hostile entries, arguments hostile to deep mode.

Where tests/hostile.py puts one hostile value at any place of a case's record, these
aim at what each path reads: ids and names of every type in a history, the indexes and
ids of a stream's events, the accept objects and numbers of an expected entry, numbers
at the edges of a double and of 64 bits inside nested arguments.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from typing import Any

from .history.shapes import BY_NAME, build
from .hostile import CASES, case_lines

#: Where a raw JSON text goes: a string json writes as it is.
SPOT = "@@hostile@@"
#: Raw numbers json cannot write: past a double's range, past 64 bits, integral floats.
RAW_NUMBERS = [
    b"1e400", b"-1e400", b"1e-400", b"-1e-400", b"18446744073709551617", b"-9223372036854775809",
    b"9" * 30, b"1.0", b"-0.0", b"1E+2", b"5e-324", b"1.7976931348623157e308",
]  # fmt: skip
#: Ids and names as a broken logger or a model writes them.
IDS = [
    "c1", "c2", "c1", 1, 2**70, 1.5, -0.0, [], ["c1"], {}, {"a": 1}, None, True, "",
    "\ud800", "c1\x00", "Error: x", "<other>",
]  # fmt: skip
NAMES = ["get_weather", "get_weather", "get_time", None, 1, [], {}, "", "\ud800", "x\u202e"]
#: Values an edit puts anywhere in a history, or deletes (DELETE).
DELETE = "<delete>"
EDITS = [
    *IDS, "user", "assistant", "model", "tool", "function", "function_call", "tool_use",
    "tool_result", {"type": "text", "text": "hi"}, {"role": "user", "content": "hi"},
    {"functionCall": {"name": "x"}}, {"toolResult": "x"}, DELETE, [[]], [{}], '{"city": 1}',
]  # fmt: skip


def dumps(value: Any, rng: random.Random) -> bytes:
    """``value`` as a JSON line, its SPOT strings replaced by raw hostile numbers, lone
    surrogates written escaped or (now and then) raw, which is invalid UTF-8."""
    text = json.dumps(value, ensure_ascii=rng.random() < 0.9)
    while json.dumps(SPOT) in text:
        text = text.replace(json.dumps(SPOT), rng.choice(RAW_NUMBERS).decode(), 1)
    return text.encode("utf-8", "surrogatepass")


def spots(value: Any) -> list[tuple[Any, Any]]:
    """Every (container, key) inside ``value``."""
    found: list[tuple[Any, Any]] = []
    pending = [value]
    while pending:
        container = pending.pop()
        for key in range(len(container)) if isinstance(container, list) else list(container):
            found.append((container, key))
            if isinstance(container[key], (list, dict)):
                pending.append(container[key])
    return found


# -- conversation histories ------------------------------------------------------------

#: Each format whose records carry a history: the history's shape and where it is.
HISTORY_FOLDERS: dict[str, tuple[str | None, tuple[str, ...]]] = {
    "openai-chat-request": ("openai-chat", ("messages",)),
    "openai-responses-request": ("openai-responses", ("input",)),
    "anthropic-request": ("anthropic", ("messages",)),
    "bedrock-request": ("bedrock", ("messages",)),
    "gemini-request": ("gemini", ("contents",)),
    "langsmith": ("langchain", ("inputs", "messages")),
    "otel-span": ("otel", ("attributes", "gen_ai.input.messages")),
    "envelope": (None, ("request", "messages")),
}


def hostile_history(rng: random.Random, shape: str) -> Any:
    """A history in ``shape`` of calls and results with hostile ids and names, a few
    values edited anywhere; now and then 10,000 messages, or no list at all."""
    steps: list[tuple[str, Any]] = []
    for _ in range(rng.randint(0, 8)):
        kind = rng.random()
        if kind < 0.4:
            calls = [(rng.choice(IDS), rng.choice(NAMES)) for _ in range(rng.randint(1, 3))]
            steps.append(("calls", calls))
        elif kind < 0.8:
            results = [(rng.choice(IDS), rng.choice(NAMES), rng.random() < 0.5) for _ in range(3)]
            steps.append(("results", results[: rng.randint(1, 3)]))
        else:
            steps.append(("user", "go on"))
    messages: Any = copy.deepcopy(build(BY_NAME[shape], steps))
    for _ in range(rng.randint(0, 3)):
        places = spots(messages)
        if not places:
            break
        container, key = rng.choice(places)
        value = copy.deepcopy(rng.choice(EDITS))
        if value == DELETE:
            del container[key]
        elif rng.random() < 0.3 and isinstance(container, list):
            container.insert(key, value)
        else:
            container[key] = value
    chance = rng.random()
    if chance < 0.01:
        messages = messages * (10_000 // max(1, len(messages)))
    elif chance < 0.03:
        messages = rng.choice([None, 1, "x", {}, {"role": "user"}, [[]], [[messages]]])
    return messages


def history_log(folder: str, seed: int, records: int = 20) -> bytes:
    """``records`` records of the case ``folder``, each with a hostile history."""
    rng = random.Random(seed)
    shape, path = HISTORY_FOLDERS[folder]
    bases = [json.loads(line) for line in case_lines(CASES / folder)]
    lines = []
    for _ in range(records):
        record = copy.deepcopy(rng.choice([base for base in bases if isinstance(base, dict)]))
        messages = hostile_history(rng, shape or rng.choice(["openai-chat", "anthropic"]))
        if folder == "langsmith" and rng.random() < 0.8:
            messages = [messages]  # LangSmith's batch: a list of histories
        if folder == "otel-span" and rng.random() < 0.9:
            messages = json.dumps(messages)  # an attribute holds JSON text
        holder = record
        for key in path[:-1]:
            if not isinstance(holder.get(key), dict):
                holder[key] = {}
            holder = holder[key]
        holder[path[-1]] = messages
        lines.append(dumps(record, rng))
    return b"".join(line + b"\n" for line in lines)


# -- streamed events -------------------------------------------------------------------

STREAM_FOLDERS = [
    "openai-chat-stream",
    "openai-responses-stream",
    "anthropic-stream",
    "bedrock-stream",
]
#: Values a stream's fields are swapped for: indexes huge, negative, of other types.
STREAM_VALUES = [
    None, True, 0, 1, -1, 7, 2**31, 2**63, 2**64, 1.0, 1.5, "0", "", "x", [], [0], {},
    "\ud800", "get_weather", "tool_use", "function", "call_1", "stop", SPOT,
]  # fmt: skip
#: The fields stream readers look at, which a mutation aims at most of the time.
STREAM_FIELDS = {
    "index", "contentBlockIndex", "output_index", "content_index", "sequence_number", "id",
    "call_id", "item_id", "type", "name", "arguments", "partial_json", "delta",
    "finish_reason", "stop_reason", "stopReason", "tool_calls", "function", "input",
    "toolUse", "toolUseId", "choices", "content_block", "message", "item", "event",
}  # fmt: skip


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, item in items:
        yield from _paths(item, (*path, key))


def mutated_event(rng: random.Random, line: bytes) -> bytes:
    """``line`` with one field (most often one a stream reader reads) swapped or deleted."""
    record = json.loads(line)
    paths = list(_paths(record))[1:]
    if not paths:
        return line
    aimed = [path for path in paths if path[-1] in STREAM_FIELDS]
    *parents, last = rng.choice(aimed if aimed and rng.random() < 0.7 else paths)
    holder = record
    for step in parents:
        holder = holder[step]
    if rng.random() < 0.15:
        del holder[last]
    else:
        holder[last] = copy.deepcopy(rng.choice(STREAM_VALUES))
    return dumps(record, rng)


def stream_log(folder: str, seed: int) -> bytes:
    """The stream case ``folder``'s streams, some twice, interleaved event by event,
    events dropped, repeated, mutated, and more after the ends."""
    rng = random.Random(seed)
    lines = case_lines(CASES / folder)
    streams: list[list[bytes]] = [[]]
    for line in lines:
        if streams[-1] and any(
            mark in line for mark in (b"essageStart", b"message_start", b"response.created")
        ):
            streams.append([])
        streams[-1].append(line)
    streams = [list(stream) for stream in streams for _ in range(rng.randint(1, 2))]
    order = [which for which, stream in enumerate(streams) for _ in stream]
    if rng.random() < 0.7:
        rng.shuffle(order)
    positions = [0] * len(streams)
    out = []
    for which in order:
        line = streams[which][positions[which]]
        positions[which] += 1
        chance = rng.random()
        if chance < 0.08:
            continue  # dropped
        out.append(mutated_event(rng, line) if chance < 0.4 else line)
        if rng.random() < 0.05:
            out.append(line)
    out += [mutated_event(rng, rng.choice(lines)) for _ in range(rng.randint(0, 3))]
    return b"".join(line + b"\n" for line in out)


# -- arguments hostile to deep mode ------------------------------------------------------

#: Raw JSON values at the edges where a typed decoder and deep mode could part.
DEEP_VALUES = [
    *RAW_NUMBERS, b"true", b"false", b"null", b'""', b'"\\ud800"', b'"a\\u0000b"', b'"ABC"',
    b"[]", b"{}", b"[1, true]", b"[1, 1]", b"[1, 1.0]", b'{"a": 1, "a": 2}', b"0.1",
    b"[" * 60 + b"]" * 60, b'{"x":' * 60 + b"1" + b"}" * 60, b'"' + "\u00e9".encode() * 40 + b'"',
]  # fmt: skip


def hostile_arguments(rng: random.Random, arguments: dict[str, Any]) -> bytes:
    """``arguments`` as JSON text with one value (at any depth) replaced by a raw
    hostile one, or deleted."""
    arguments = copy.deepcopy(arguments)
    places = spots(arguments)
    if not places:
        return json.dumps(arguments).encode()
    container, key = rng.choice(places)
    if rng.random() < 0.1:
        del container[key]
        return json.dumps(arguments).encode()
    container[key] = SPOT
    return (
        json.dumps(arguments)
        .replace(json.dumps(SPOT), rng.choice(DEEP_VALUES).decode(), 1)
        .encode()
    )


def call_line(rng: random.Random, name: str, arguments: bytes, index: int) -> bytes:
    """A call as a flat record (arguments as an object or as text) or in an OpenAI Chat
    response."""
    shape = rng.random()
    if shape < 0.5:
        return b'{"name": ' + json.dumps(name).encode() + b', "arguments": ' + arguments + b"}"
    if shape < 0.7:
        return json.dumps({"name": name, "arguments": arguments.decode()}).encode()
    function = {"name": name, "arguments": arguments.decode()}
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": f"c{index}", "type": "function", "function": function}],
    }
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls"}
    return json.dumps(
        {"id": "r", "object": "chat.completion", "model": "m", "choices": [choice]}
    ).encode()


def deep_log(valid: list[tuple[str, dict[str, Any]]], seed: int) -> bytes:
    """Each valid call, and half of them again with hostile arguments."""
    rng = random.Random(seed)
    lines = []
    for index, (name, arguments) in enumerate(valid):
        lines.append(call_line(rng, name, json.dumps(arguments).encode(), index))
        if rng.random() < 0.5:
            lines.append(call_line(rng, name, hostile_arguments(rng, arguments), index))
    return b"".join(line + b"\n" for line in lines)
