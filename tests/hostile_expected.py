"""Hostile expected-calls files, seeded: entries of both shapes, most readable and each
with a hostile part (a field of another type, an accept object with a bad compare or a
tolerance of any type, a pattern RE2 cannot run or too long to compile, numbers past a
double's range or past 64 bits), and a log of records answering them with hostile
values under the same names, so that every compare meets them."""

from __future__ import annotations

import random
from typing import Any

from .hostile_inputs import SPOT, dumps

NUMBERS: list[Any] = [0, 1, -1, 1.5, 0.5, -0.0, 3, 2**64, 2**70 + 1, 10**30, 1e300, 0.1, SPOT, SPOT]
SCALARS: list[Any] = [True, False, None, "", "Paris", " paris ", "\ud800", "a\x00b", "🌍", *NUMBERS]
PATTERNS = [
    "^Par", "(?=a)", "(a)\\1", "[", "\\p{L}+", "\\p{Script=Greek}", "(?i)paris", "a{1000}{1000}",
    "(?<n>a)\\k<n>", "\\u{1F30D}", "\\d+$", "", "(?<=a)b", "\\bParis\\b", "a**", "\\", "x" * 10_001,
]  # fmt: skip
COMPARES = ["exact", "text", "number", "unordered", "subset", "pattern", "any"]
BAD_COMPARES: list[Any] = ["regex", None, 1, [], "EXACT"]
KEYS = ["city", "days", "extra"]


def value(rng: random.Random, depth: int = 0) -> Any:
    chance = rng.random()
    if depth < 3 and chance < 0.12:
        return [value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if depth < 3 and chance < 0.24:
        return {rng.choice(["city", "a", "accept", "compare"]): value(rng, depth + 1)}
    return rng.choice(SCALARS)


def _accepted(rng: random.Random, compare: Any) -> Any:
    if rng.random() < 0.2:
        return value(rng, 1)
    if compare == "pattern":
        return rng.choice(PATTERNS)
    if compare == "number":
        return rng.choice(NUMBERS)
    if compare == "text":
        return rng.choice(["Paris", " paris ", "\ud800", "", "ǅ", "ß"])
    if compare == "unordered":
        return [value(rng, 1) for _ in range(rng.randint(0, 3))]
    if compare == "subset":
        return {rng.choice(["a", "city"]): value(rng, 1)}
    return value(rng, 1)


def accept_object(rng: random.Random) -> dict[str, Any]:
    compare = rng.choice(BAD_COMPARES if rng.random() < 0.1 else COMPARES)
    accept: dict[str, Any] = {"compare": compare}
    if rng.random() < 0.95:
        accept["accept"] = [_accepted(rng, compare) for _ in range(rng.randint(0, 3))]
    if rng.random() < 0.2 or (compare == "number" and rng.random() < 0.7):
        accept["tolerance"] = rng.choice([0, 1, -1, 0.5, 1e300, "1", None, True, 2**70, SPOT])
    if rng.random() < 0.2:
        accept["optional"] = rng.choice([True, False, "yes", None])
    return accept


def entry(rng: random.Random, number: int) -> dict[str, Any]:
    """One expected line: native (arguments literal or accept objects) or BFCL's."""
    id: Any = f"r{number}" if rng.random() < 0.9 else rng.choice([number, None, [1], 1.5, True])
    calls = []
    for _ in range(rng.randint(0, 3)):
        name: Any = rng.choice(["get_weather"] * 8 + ["get_time", "", None, 1])
        chosen = rng.sample(KEYS, rng.randint(0, 3))
        if rng.random() < 0.4:  # BFCL's: each parameter lists its possible answers
            calls.append({name: {key: [value(rng) for _ in range(2)] for key in chosen}})
            continue
        arguments = {
            key: accept_object(rng) if rng.random() < 0.6 else value(rng) for key in chosen
        }
        calls.append({"name": name, "arguments": arguments if rng.random() < 0.97 else value(rng)})
    if calls and all("name" not in call for call in calls):
        return {"id": id, "ground_truth": calls if rng.random() < 0.97 else value(rng)}
    line: dict[str, Any] = {"id": id, "calls": [c for c in calls if "name" in c]}
    if rng.random() < 0.05:
        line["calls"] = rng.choice(["any", "x", None])
    if rng.random() < 0.2:
        line["order"] = rng.choice(["any", "strict"] * 4 + ["x", None])
    if rng.random() < 0.2:
        line["category"] = rng.choice(["weather"] * 4 + [None, 1])
    return line


def _answer(rng: random.Random, line: dict[str, Any], number: int) -> dict[str, Any]:
    """A record answering ``line``: its calls' tools and names, hostile values."""
    calls = []
    written = line.get("calls") or line.get("ground_truth")
    for call in written if isinstance(written, list) else []:
        if isinstance(call, dict) and "name" in call and isinstance(call["arguments"], dict):
            calls.append((call["name"], list(call["arguments"])))
        elif isinstance(call, dict) and len(call) == 1:
            [(name, parameters)] = call.items()
            calls.append((name, list(parameters) if isinstance(parameters, dict) else []))
    made = [
        (name, {key: rng.choice(NUMBERS) if rng.random() < 0.6 else value(rng) for key in keys})
        for name, keys in calls
    ]
    if len(made) == 1 and rng.random() < 0.5:
        return {"id": line["id"], "name": made[0][0], "arguments": made[0][1]}
    tool_calls = [
        {
            "id": f"c{j}",
            "type": "function",
            "function": {"name": name, "arguments": dumps(a, rng).decode("utf-8", "surrogatepass")},
        }
        for j, (name, a) in enumerate(made)
    ]
    message = {"role": "assistant", "content": None, "tool_calls": tool_calls}
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls"}
    return {
        "id": line.get("id", f"r{number}"),
        "object": "chat.completion",
        "model": "m",
        "choices": [choice],
    }


def expected_files(seed: int, entries: int = 25) -> tuple[bytes, bytes]:
    """(an expected-calls file, a log answering most of its entries, twice now and then)."""
    rng = random.Random(seed)
    lines = []
    seen: set[str] = set()
    for number in range(entries):
        line = entry(rng, number)
        if str(line["id"]) in seen:  # an id twice stops the run: not what is hunted here
            line["id"] = f"r{number}"
        seen.add(str(line["id"]))
        lines.append(line)
    expected = b"".join(dumps(line, rng) + b"\n" for line in lines)
    if rng.random() < 0.3:
        expected += rng.choice(
            [b"\n", b"not json\n", b"[1]\n", b'{"id": "z"\n', b"\xff\n", b"{}\n"]
        )
    log = [
        _answer(rng, line, number)
        if rng.random() < 0.8
        else {"id": f"r{number}", "name": "get_weather"}
        for number, line in enumerate(lines)
        for _ in range(rng.choice([1, 1, 1, 2]))
    ]
    return expected, b"".join(dumps(record, rng) + b"\n" for record in log)
