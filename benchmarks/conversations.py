"""What checking conversations costs: request logs with long histories audited with the
check (the default), with the check in pure Python (``TOOLAUDIT_PURE_PYTHON=1``: the C
speedups off) and without it (``--no-conversations``, the audit as it was before
conversations were read), rounds interleaved, medians, beside the orjson floor.

Eight logs. In most, each line is a conversation of ``--messages`` messages of its own
(user turns, assistant turns with one or two calls, their results; about one in ten
conversations has a problem): request/response pairs (``{"request": ..., "response":
...}``, the response a Chat completion with one call), request bodies logged alone (as
gateways log them), OpenAI Batch input lines (``batch``), LangSmith runs of a wrapped client
(``langsmith``) and OpenTelemetry chat spans (``otel``: the history in
``gen_ai.input.messages``, as JSON text). In ``sessions``, ``session-pairs`` and
``otel-sessions``, each line is a turn of one of 8 conversations logged at once, its
request (or span) carrying the whole history so far again (about ``--messages`` messages on
average), as an agent or a gateway logs every turn: the lines of a conversation share their
history's first bytes. ``--today DIR`` (with ``--instructions``) also counts the audit of a
tree from before the check (171dc87, the day it was asked for), with its own defaults: what
the checked audit costs against the audit users had.

    .venv/bin/python benchmarks/conversations.py --lines 20000 --messages 40 --repeat 5

``--cpu`` times each command's CPU seconds (user + system) rather than its wall clock, less
moved by a shared machine's load; ``--instructions`` counts, instead of seconds, the
instructions of each command (start-up included) with valgrind's callgrind, which the load
does not move at all; with it, ``--src DIR`` measures another checkout's sources (``git
archive <commit> src | tar -x -C DIR``, its extensions built there with ``python setup.py
build_ext --inplace``, its bytecode compiled with ``python -m compileall DIR``) for a
before/after side by side, ``--log pairs`` (or ``requests``) measures one log alone, and
``--per-line`` counts each command again on the log's first fifth and takes the difference:
what a line costs, start-up aside, as on the long logs users audit, where the start-up is
nothing (``PYTHONHASHSEED=0``: the same hash seed in every command, which moves a few
thousand instructions a line otherwise); ``--in-process`` counts, instead of the command,
the same audit in one process with the cyclic collector off, whose passes move a
command's line by thousands of instructions between runs (the steadier measure).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson

from common import DATA_DIR, atomic_path, progress, source_state
from measure import (
    Variant,
    callgrind_instructions,
    measure_round_robin,
    run_child,
    toolaudit_executable,
)

SEED = 20261205
#: The logs: each line a conversation of its own (request/response pairs, or request bodies
#: alone), or each line a turn of one of a few conversations logged again and again, its
#: history a turn longer each time (sessions: request bodies alone; session-pairs: pairs);
#: and the other records that carry a history, each line a conversation of its own: OpenAI
#: Batch input lines (batch), LangSmith runs of a wrapped client (langsmith), OpenTelemetry
#: GenAI spans with their input messages (otel), and an agent's chat spans, a turn each, of a
#: few sessions interleaved (otel-sessions).
LOGS = (
    "pairs",
    "requests",
    "sessions",
    "session-pairs",
    "batch",
    "langsmith",
    "otel",
    "otel-sessions",
)
#: The logs written in one provider's shape whatever --shape says (the first shape given).
FIXED_SHAPES = {
    "langsmith": ("openai-chat",),
    "otel": ("openai-chat",),
    "otel-sessions": ("openai-chat",),
}
#: The logs only some shapes have (a Batch line holds a Chat or a Responses request).
SHAPES_OF = {"batch": ("openai-chat", "openai-responses")}
#: How many conversations a session log interleaves.
CONCURRENT = 8
#: The providers' request shapes a log can be written in (HISTORY_FIELDS: where each keeps
#: its conversation).
HISTORY_FIELDS = {
    "openai-chat": "messages",
    "openai-responses": "input",
    "anthropic": "messages",
    "bedrock": "messages",
    "gemini": "contents",
}
SHAPES = list(HISTORY_FIELDS)
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"],
        },
    },
}


def call(call_id: str, city: str) -> dict[str, object]:
    arguments = orjson.dumps({"city": city, "days": 3}).decode()
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": "get_weather", "arguments": arguments},
    }


def history(rng: random.Random, length: int, number: int) -> list[dict[str, object]]:
    """A Chat history of about ``length`` messages; one in ten has a call left unanswered."""
    messages: list[dict[str, object]] = [{"role": "system", "content": "You are helpful."}]
    turn = 0
    while len(messages) < length:
        turn += 1
        messages.append({"role": "user", "content": f"Weather, please ({turn})?"})
        ids = [f"call_{number}_{turn}_{k}" for k in range(rng.choice((1, 1, 2)))]
        messages.append(
            {"role": "assistant", "content": None, "tool_calls": [call(i, "Oslo") for i in ids]}
        )
        answered = ids if rng.random() > 0.1 / max(1, length // 4) else ids[:-1]
        messages += [{"role": "tool", "tool_call_id": i, "content": "-3C"} for i in answered]
    messages.append({"role": "user", "content": "Thanks."})
    return messages


def calls_of(message: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """A Chat assistant message's calls: (id, tool, arguments parsed)."""
    return [
        (each["id"], each["function"]["name"], orjson.loads(each["function"]["arguments"]))
        for each in message["tool_calls"]
    ]


def as_anthropic(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same conversation as Anthropic's Messages API takes it (the system prompt
    apart): calls as tool_use blocks, each run of results as one user message."""
    turns: list[dict[str, Any]] = []
    for message in messages[1:]:
        if message["role"] == "tool":
            block = {"type": "tool_result", "tool_use_id": message["tool_call_id"]}
            block["content"] = message["content"]
            if turns[-1]["role"] != "user" or not isinstance(turns[-1]["content"], list):
                turns.append({"role": "user", "content": []})
            turns[-1]["content"].append(block)
        elif message["role"] == "assistant":
            uses = [
                {"type": "tool_use", "id": id, "name": name, "input": arguments}
                for id, name, arguments in calls_of(message)
            ]
            turns.append({"role": "assistant", "content": uses})
        else:
            turns.append({"role": "user", "content": message["content"]})
    return turns


def as_responses(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same conversation as OpenAI's Responses API takes it: input items."""
    items: list[dict[str, Any]] = []
    for message in messages[1:]:
        if message["role"] == "tool":
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": message["tool_call_id"],
                    "output": message["content"],
                }
            )
        elif message["role"] == "assistant":
            items += [
                {
                    "type": "function_call",
                    "call_id": each["id"],
                    "name": each["function"]["name"],
                    "arguments": each["function"]["arguments"],
                }
                for each in message["tool_calls"]
            ]
        else:
            items.append({"role": "user", "content": message["content"]})
    return items


def as_bedrock(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same conversation as Bedrock's Converse API takes it: toolUse blocks, each
    run of results as one user message of toolResult blocks."""
    turns: list[dict[str, Any]] = []
    for message in as_anthropic(messages):
        content = message["content"]
        if isinstance(content, str):
            turns.append({"role": message["role"], "content": [{"text": content}]})
            continue
        blocks = []
        for block in content:
            if block["type"] == "tool_use":
                use = {"toolUseId": block["id"], "name": block["name"], "input": block["input"]}
                blocks.append({"toolUse": use})
            else:
                result = {
                    "toolUseId": block["tool_use_id"],
                    "content": [{"text": block["content"]}],
                }
                blocks.append({"toolResult": result})
        turns.append({"role": message["role"], "content": blocks})
    return turns


def as_gemini(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same conversation as Gemini's generateContent takes it: functionCall parts, each
    run of results as one user content of functionResponse parts (paired by id)."""
    contents: list[dict[str, Any]] = []
    for message in as_anthropic(messages):
        content = message["content"]
        role = "model" if message["role"] == "assistant" else "user"
        if isinstance(content, str):
            contents.append({"role": role, "parts": [{"text": content}]})
            continue
        parts = []
        for block in content:
            if block["type"] == "tool_use":
                call = {"id": block["id"], "name": block["name"], "args": block["input"]}
                parts.append({"functionCall": call})
            else:
                answer = {"id": block["tool_use_id"], "name": WEATHER["function"]["name"]}
                parts.append(
                    {"functionResponse": answer | {"response": {"output": block["content"]}}}
                )
        contents.append({"role": role, "parts": parts})
    return contents


def request_and_response(
    shape: str, messages: list[dict[str, Any]], made: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A request of ``shape`` holding ``messages`` (a Chat history), and the response a
    provider gives it, with the call ``made``, written as each API writes it (every
    field the SDKs' response types carry, so that the audit reads them as it reads real
    logs)."""
    function = WEATHER["function"]
    name, arguments = made["function"]["name"], made["function"]["arguments"]
    if shape == "anthropic":
        tools = [{"name": function["name"], "input_schema": function["parameters"]}]
        request = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "tools": tools}
        request |= {"system": messages[0]["content"], "messages": as_anthropic(messages)}
        use = {"type": "tool_use", "id": made["id"], "name": name, "input": orjson.loads(arguments)}
        response = {"id": "msg_1", "type": "message", "role": "assistant"}
        response |= {"model": "claude-sonnet-4-5", "content": [use], "stop_reason": "tool_use"}
        response["usage"] = {"input_tokens": 812, "output_tokens": 40}
    elif shape == "openai-responses":
        tools = [
            {"type": "function", "name": function["name"], "parameters": function["parameters"]}
        ]
        request = {"model": "gpt-4.1", "input": as_responses(messages), "tools": tools}
        item = {"type": "function_call", "id": "fc_1", "call_id": made["id"], "name": name}
        item |= {"arguments": arguments, "status": "completed"}
        response = {"id": "resp_1", "object": "response", "model": "gpt-4.1"}
        response |= {"status": "completed", "output": [item]}
    elif shape == "bedrock":
        spec = {"name": function["name"], "inputSchema": {"json": function["parameters"]}}
        request = {"modelId": "anthropic.claude-3-5-sonnet", "messages": as_bedrock(messages)}
        request["toolConfig"] = {"tools": [{"toolSpec": spec}]}
        use = {"toolUseId": made["id"], "name": name, "input": orjson.loads(arguments)}
        message = {"role": "assistant", "content": [{"toolUse": use}]}
        response = {"output": {"message": message}, "stopReason": "tool_use"}
        response["usage"] = {"inputTokens": 812, "outputTokens": 40, "totalTokens": 852}
    elif shape == "gemini":
        declaration = {"name": function["name"], "parameters": function["parameters"]}
        request = {
            "contents": as_gemini(messages),
            "tools": [{"functionDeclarations": [declaration]}],
        }
        call = {"id": made["id"], "name": name, "args": orjson.loads(arguments)}
        candidate = {"content": {"role": "model", "parts": [{"functionCall": call}]}}
        response = {"candidates": [candidate | {"finishReason": "STOP", "index": 0}]}
        response["modelVersion"] = "gemini-2.5-flash"
    else:
        request = {"model": "gpt-4o", "messages": messages, "tools": [WEATHER]}
        message = {"role": "assistant", "content": None, "tool_calls": [made], "refusal": None}
        choice = {"index": 0, "message": message, "finish_reason": "tool_calls", "logprobs": None}
        response = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1764950000}
        response |= {"model": "gpt-4o", "choices": [choice]}
    return request, response


def record_of(rng: random.Random, shape: str, length: int, number: int, kind: str) -> object:
    """One line of a log of ``kind`` whose lines are conversations of their own: a request
    of ``shape`` alone, paired with its response, or held as the other formats hold it."""
    messages = history(rng, length, number)
    made = call(f"c{number}", "Rome")
    request, response = request_and_response(shape, messages, made)
    if kind == "pairs":
        return {"request": request, "response": response}
    if kind == "batch":
        url = "/v1/responses" if shape == "openai-responses" else "/v1/chat/completions"
        return {"custom_id": f"req-{number}", "method": "POST", "url": url, "body": request}
    if kind == "langsmith":
        # A run of a client wrapped by LangSmith (wrap_openai): the request it sent, and the
        # completion it got.
        return {
            "id": f"run-{number}",
            "name": "ChatOpenAI",
            "run_type": "llm",
            "inputs": request,
            "outputs": response,
            "extra": {"invocation_params": {"model": "gpt-4o"}},
        }
    if kind == "otel":
        return otel_span(messages, made, rng)
    return request


def as_otel(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same conversation as OpenTelemetry's GenAI conventions write it: messages of
    parts (text, tool_call, tool_call_response)."""
    written: list[dict[str, Any]] = []
    for message in messages:
        if message["role"] == "tool":
            part = {"type": "tool_call_response", "id": message["tool_call_id"]}
            written.append({"role": "tool", "parts": [part | {"response": message["content"]}]})
        elif message["role"] == "assistant":
            parts = [
                {"type": "tool_call", "id": id, "name": name, "arguments": arguments}
                for id, name, arguments in calls_of(message)
            ]
            written.append({"role": "assistant", "parts": parts})
        else:
            part = {"type": "text", "content": message["content"]}
            written.append({"role": message["role"], "parts": [part]})
    return written


def otel_span(messages: list[dict[str, Any]], made: dict[str, Any], rng: random.Random) -> object:
    """A chat span as an instrumented SDK dumps it (``ReadableSpan.to_json()``): its input
    messages as a JSON string (the attribute's usual writing), its output the call made,
    its ids random hex (ids of zeros, runs of digits, would send every line to the exact
    parse kept for integers past 64 bits)."""
    [output] = as_otel([{"role": "assistant", "tool_calls": [made]}])
    function = WEATHER["function"]
    assert isinstance(function, dict)
    attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.tool.definitions": orjson.dumps([{"type": "function"} | function]).decode(),
        "gen_ai.input.messages": orjson.dumps(as_otel(messages)).decode(),
        "gen_ai.output.messages": [output | {"finish_reason": "tool_call"}],
    }
    return {
        "name": "chat gpt-4o",
        "context": {
            "trace_id": f"0x{rng.getrandbits(128):032x}",
            "span_id": f"0x{rng.getrandbits(64):016x}",
        },
        "kind": "SpanKind.CLIENT",
        "parent_id": None,
        "start_time": "2026-01-01T00:00:00.000000Z",
        "end_time": "2026-01-01T00:00:01.000000Z",
        "status": {"status_code": "UNSET"},
        "attributes": attributes,
        "events": [],
        "links": [],
        "resource": {"attributes": {"service.name": "agent"}, "schema_url": ""},
    }


def session_records(
    rng: random.Random, lines: int, length: int, shape: str, kind: str
) -> Iterator[object]:
    """``lines`` lines as an agent's gateway logs them: every request of a conversation,
    each with the whole history so far (a turn longer than the last), ``CONCURRENT``
    conversations at a time, their lines interleaved. A conversation grows to about twice
    ``length`` messages, so that a line's history is about ``length`` long, as in the
    other logs; a call left unanswered stays in every later line of its conversation."""
    live: list[tuple[list[dict[str, Any]], Iterator[int]]] = []
    number = written = 0
    while written < lines:
        while len(live) < CONCURRENT:
            messages = history(rng, 2 * length, number)
            number += 1
            asked = (i for i, message in enumerate(messages) if message["role"] == "assistant")
            live.append((messages, asked))
        k = rng.randrange(len(live))
        messages, asked = live[k]
        at = next(asked, None)
        if at is None:
            del live[k]
            continue
        made = messages[at]["tool_calls"][0]
        if kind == "otel-sessions":
            yield otel_span(messages[:at], made, rng)
        else:
            request, response = request_and_response(shape, messages[:at], made)
            yield {"request": request, "response": response} if kind == "session-pairs" else request
        written += 1


def generate(path: Path, lines: int, length: int, *, kind: str, shape: str) -> None:
    rng = random.Random(SEED)
    if "session" in kind:
        records: Iterable[object] = session_records(rng, lines, length, shape, kind)
    else:
        records = (record_of(rng, shape, length, number, kind) for number in range(lines))
    with atomic_path(path) as partial, partial.open("wb") as out:
        for record in records:
            out.write(orjson.dumps(record) + b"\n")


def floor_seconds(path: Path) -> float:
    started = time.perf_counter()
    with path.open("rb") as log:
        for line in log:
            orjson.loads(line)
    return time.perf_counter() - started


def shape_of(kind: str, shape: str) -> str | None:
    """The shape a log of ``kind`` is written in when ``shape`` is asked for; None where
    that log has no such shape."""
    fixed = FIXED_SHAPES.get(kind)
    if fixed is not None:
        return fixed[0]
    return shape if shape in SHAPES_OF.get(kind, SHAPES) else None


def log_path(kind: str, args: argparse.Namespace) -> Path:
    shape = shape_of(kind, args.shape)
    name = f"conversations-{shape}-{kind}-{args.lines}x{args.messages}-seed{SEED}.jsonl"
    return DATA_DIR / name


def in_process(log: Path, repeat: int) -> None:
    """The check alone on the log's histories, in this process: the full reading (all
    that ``check`` did before its fast path, calls listed) beside ``check`` as the audit
    calls it (``calls=False`` unless --history), rounds interleaved, best round."""
    from toolaudit.history import check, fast_loop  # here: the command is timed
    from toolaudit.history.check import examine

    def pure(messages: list[object]) -> object:
        """check as the audit calls it, with the C speedups set aside."""
        speedups, fast_loop.SPEEDUPS = fast_loop.SPEEDUPS, None
        try:
            return check(messages, shape, calls=False)
        finally:
            fast_loop.SPEEDUPS = speedups

    [shape] = [name for name in SHAPES if f"-{name}-" in log.name]
    histories = [orjson.loads(line)[HISTORY_FIELDS[shape]] for line in log.open("rb")]
    count = sum(len(messages) for messages in histories)
    ways = {
        "full reading (before)": lambda: [examine(h, shape, "messages") for h in histories],
        "check, calls listed": lambda: [check(h, shape) for h in histories],
        "check, calls=False, pure Python": lambda: [pure(h) for h in histories],
        "check, calls=False (the audit)": lambda: [check(h, shape, calls=False) for h in histories],
    }
    best = dict.fromkeys(ways, float("inf"))
    for _ in range(repeat):
        for label, way in ways.items():
            started = time.process_time()
            way()
            best[label] = min(best[label], time.process_time() - started)
    each = count / len(histories)
    print(f"\nthe check in-process, {len(histories):,} histories of {each:.0f} messages")
    print("| way | us / history | us / message | x full reading |\n|---|---:|---:|---:|")
    full = best["full reading (before)"]
    for label, seconds in best.items():
        each, per = seconds / len(histories) * 1e6, seconds / count * 1e6
        print(f"| {label} | {each:.1f} | {per:.2f} | {seconds / full:.2f}x |")


def audit_in_process(log: Path, checked: bool | None) -> None:
    """The summary-only audit of ``log`` in this process, with the check or without it
    (None: with the options' defaults, for a tree older than the check), the cyclic
    collector off once the audit's modules are imported (a first audit of the log's first
    line): what ``--in-process`` counts, without the collector's passes, which fall at
    other lines in every tree and move a command's line by thousands of instructions."""
    import gc

    from toolaudit.pipeline.audit import Audit, AuditOptions

    first = log.with_name(f"{log.stem}-first1.jsonl")
    if not first.exists():
        with atomic_path(first) as partial, log.open("rb") as lines:
            partial.write_bytes(lines.readline())
    Audit([str(first)]).run(None)
    gc.disable()
    options = None if checked is None else AuditOptions(conversations=checked)
    Audit([str(log)], options=options).run(None)


def count_instructions(
    kind: str,
    argv: list[str],
    log: Path,
    per_line: bool,
    src: str | None,
    in_process: bool = False,
    today: str | None = None,
) -> None:
    """The check's cost in instructions: the command on ``log`` with it and without it,
    once each; ``per_line``: also on the log's first fifth, and what a line costs (``src``:
    another checkout's sources, measured instead of these; ``in_process``: the audit in
    one process with the cyclic collector off, :func:`audit_in_process`, not the command;
    ``today``: the sources of a tree from before the check, whose audit, with its own
    defaults, the checked audit is also held to)."""
    # (1: the audit found problems, as the check finds in these logs.)
    env = dict(os.environ)
    if per_line:
        env["PYTHONHASHSEED"] = "0"
    if src:
        env["PYTHONPATH"] = src
    then = env | {"PYTHONPATH": today or ""}

    def counted(log: Path) -> tuple[int, int, int | None]:
        """Instructions unchecked, checked, and (with ``today``) that tree's audit."""
        if in_process:
            child = [sys.executable, __file__, "--audit-in-process", str(log)]
            off = callgrind_instructions([*child, "--no-conversations"], env)
            before = callgrind_instructions([*child, "--as-before"], then) if today else None
            return off, callgrind_instructions(child, env), before
        command = [*argv, str(log)]
        off = callgrind_instructions([*command, "--no-conversations"], env, ok_codes=(0, 1))
        before = callgrind_instructions(command, then, ok_codes=(0, 1)) if today else None
        return off, callgrind_instructions(command, env, ok_codes=(0, 1)), before

    def verdict(ratio: float) -> str:
        return "met" if ratio <= 1.15 else "not met"

    off, on, before = counted(log)
    print(f"{kind}: {off:,} instructions unchecked, {on:,} checked: {on / off:.3f}x")
    if before is not None:
        print(f"{kind}: {before:,} before the check: checked {on / before:.3f}x")
    if not per_line:
        return
    lines = log.read_bytes().splitlines(keepends=True)
    short = log.with_name(f"{log.stem}-first{len(lines) // 5}.jsonl")
    if not short.exists():
        with atomic_path(short) as partial:
            partial.write_bytes(b"".join(lines[: len(lines) // 5]))
    short_off, short_on, short_before = counted(short)
    each = len(lines) - len(lines) // 5
    off_line, on_line = (off - short_off) / each, (on - short_on) / each
    ratio = on_line / off_line
    print(
        f"{kind}, a line (start-up aside): {off_line:,.0f} instructions unchecked, "
        f"{on_line:,.0f} checked: {ratio:.3f}x ({verdict(ratio)} against unchecked)"
    )
    if before is not None and short_before is not None:
        before_line = (before - short_before) / each
        ratio = on_line / before_line
        print(
            f"{kind}, a line: {before_line:,.0f} instructions before the check "
            f"({today}): checked {ratio:.3f}x ({verdict(ratio)} against before)"
        )


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--messages", type=int, default=40, help="messages a conversation")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--shape", choices=SHAPES, default="openai-chat")
    parser.add_argument("--cpu", action="store_true", help="CPU seconds, not the wall clock")
    parser.add_argument(
        "--instructions", action="store_true", help="count instructions (callgrind), not seconds"
    )
    parser.add_argument(
        "--src", help="with --instructions: another checkout's sources, measured instead"
    )
    parser.add_argument("--log", choices=LOGS, help="one log alone")
    parser.add_argument(
        "--per-line",
        action="store_true",
        help="with --instructions: also a line's cost, the start-up aside (two log lengths)",
    )
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="with --instructions: the audit in one process, the cyclic collector off",
    )
    parser.add_argument(
        "--today",
        help="with --instructions: the sources of a tree from before the check (171dc87: "
        "the day issue 30 was filed), whose audit the checked audit is also held to",
    )
    parser.add_argument("--audit-in-process", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--no-conversations", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--as-before", action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args()


def main() -> None:
    args = arguments()
    if args.audit_in_process is not None:  # a child of --in-process, counted by callgrind
        checked = None if args.as_before else not args.no_conversations
        audit_in_process(args.audit_in_process, checked)
        return
    exe = toolaudit_executable()
    counted_elsewhere = args.instructions and args.src is not None
    measured = f"the sources in {args.src}" if counted_elsewhere else source_state()
    progress(f"toolaudit: {measured}")
    clock = "cpu_seconds" if args.cpu else "seconds"
    for kind in LOGS:
        shape = shape_of(kind, args.shape)
        if args.log not in (None, kind) or shape is None:
            continue
        log = log_path(kind, args)
        if not log.exists():
            progress(f"generating {log.name} ...")
            generate(log, args.lines, args.messages, kind=kind, shape=shape)
        argv = [str(exe), "audit", str(log), "--no-progress", "--format", "json"]
        if args.instructions:
            command = [sys.executable, "-m", "toolaudit", "audit", "--no-progress"]
            count_instructions(
                kind,
                [*command, "--format", "json"],
                log,
                args.per_line,
                args.src,
                args.in_process,
                args.today,
            )
            continue
        variants = [
            Variant(
                "floor", "orjson.loads per line, in-process", lambda log=log: floor_seconds(log)
            ),
            Variant(
                "off",
                "--no-conversations",
                lambda a=argv: getattr(run_child([*a, "--no-conversations"]), clock),
            ),
            Variant(
                "pure",
                "checked, pure Python (TOOLAUDIT_PURE_PYTHON=1)",
                lambda a=argv: getattr(run_child(a, env={"TOOLAUDIT_PURE_PYTHON": "1"}), clock),
            ),
            Variant(
                "on",
                "conversations checked (the default)",
                lambda a=argv: getattr(run_child(a), clock),
            ),
        ]
        progress(f"{kind}: {log.stat().st_size / 1e6:.1f} MB")
        measure_round_robin(variants, args.repeat)
        floor, off, pure, on = (v.median or 0.0 for v in variants)
        size = log.stat().st_size / 1e6
        print(f"\n{kind}: {args.lines:,} lines of {args.messages} messages, {size:.1f} MB")
        print("| variant | median s | x floor | x --no-conversations |\n|---|---:|---:|---:|")
        for variant in variants:
            median = variant.median or 0.0
            print(
                f"| {variant.label} | {median:.3f} | {median / floor:.2f}x | {median / off:.2f}x |"
            )
        verdict = "met" if on / off <= 1.15 else "not met"
        print(f"- checked / unchecked: {on / off:.3f}x (target <= 1.15x: {verdict})")
        print(f"- pure Python checked / unchecked: {pure / off:.3f}x")


if __name__ == "__main__":
    main()
    given = arguments()
    if not given.instructions and given.audit_in_process is None:
        in_process(log_path("requests", given), given.repeat)
