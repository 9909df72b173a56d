"""The generator: valid calls of the synthetic tools, about 20% of them broken on purpose.

Every broken call carries the errors toolaudit's contract gives it (missing,
unexpected, wrong type, outside the enum, unknown tool), and a few lines are
not JSON at all, so the checks can demand that each error be found exactly.
Everything is drawn from one seeded ``random.Random``, so a seed gives the same
bytes on every run.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

from tools import TOOL_NAMES, TOOLS, Param

#: Bump whenever the generated log or schemas change: it is part of the cache names.
GENERATOR_VERSION = 1
ERROR_SHARE = 0.20
UNKNOWN_TOOLS = ["web_search", "get_forecast", "browse", "run_python", "send_sms"]
EXTRA_PARAMS = ["verbose", "api_key", "stream", "user_id", "debug", "timezone"]
#: Values of the wrong type for each declared type; True for an integer comes first on purpose.
WRONG_TYPE_VALUES: dict[str, list[object]] = {
    "string": [42, True, ["Paris"], {"value": "x"}],
    "integer": [True, "5", 2.5, False, None],
    "number": ["12.5", True, None, [1]],
    "boolean": ["true", 1, "yes", None],
    "array": ["a@example.com,b@example.com", {"0": "a"}, 3],
    "object": ["{}", [1, 2], 7],
    "string|null": [0, False, ["x"]],
}
OPTIONAL_SHARE = 0.5
# Error kinds of the broken calls, by weight; malformed lines are "a few".
ERROR_KIND_WEIGHTS = {
    "missing": 26,
    "unexpected": 22,
    "type": 26,
    "enum": 14,
    "unknown_tool": 10,
    "malformed": 2,
}
SECOND_ERROR_SHARE = 0.1


def valid_arguments(r: random.Random, params: list[Param]) -> dict[str, object]:
    return {p.name: p.make(r) for p in params if p.required or r.random() < OPTIONAL_SHARE}


def break_arguments(
    r: random.Random, params: list[Param], args: dict[str, object], kind: str, touched: set[str]
) -> str | None:
    """Inject one error of ``kind`` into ``args``; the contract's error, or None if impossible."""
    free = [p for p in params if p.name not in touched]
    if kind == "missing":
        candidates = [p for p in free if p.required]
        if not candidates:
            return None
        param = r.choice(candidates)
        args.pop(param.name, None)
        touched.add(param.name)
        return f"missing:{param.name}"
    if kind == "unexpected":
        extra = r.choice([e for e in EXTRA_PARAMS if e not in args])
        args[extra] = r.choice([True, "yes", 1, "Europe/Paris"])
        return f"unexpected:{extra}"
    if kind == "type":
        if not free:
            return None
        param = r.choice(free)
        wrong = WRONG_TYPE_VALUES[param.type_key]
        args[param.name] = (
            wrong[0] if param.type_key == "integer" and r.random() < 0.5 else r.choice(wrong)
        )
        touched.add(param.name)
        return f"type:{param.name}"
    if kind == "enum":
        candidates = [p for p in free if "enum" in p.schema]
        if not candidates:
            return None
        param = r.choice(candidates)
        args[param.name] = r.choice(["Celsius", "urgent", "xx", "EURO", "auto-detect", ""])
        touched.add(param.name)
        return f"enum:{param.name}"
    raise ValueError(kind)


def malformed_line(r: random.Random, line: str) -> str:
    """A line that is not JSON: truncated, Python's repr, or a trailing comma."""
    style = r.random()
    if style < 0.6:
        return line[: r.randint(1, len(line) - 2)]
    if style < 0.8:
        return line.replace('"', "'")
    return line[:-1] + ", }"


def generate_lines(calls: int, seed: int) -> Iterator[tuple[str, list[str] | None]]:
    """(line, its expected errors) for each call; None as errors for a malformed line."""
    r = random.Random(seed)
    kinds = list(ERROR_KIND_WEIGHTS)
    weights = list(ERROR_KIND_WEIGHTS.values())
    call_kinds = [k for k in kinds if k not in ("unknown_tool", "malformed")]
    dumps = json.dumps
    for index in range(calls):
        name = r.choice(TOOL_NAMES)
        params = TOOLS[name]
        args = valid_arguments(r, params)
        errors: list[str] = []
        kind = r.choices(kinds, weights)[0] if r.random() < ERROR_SHARE else None
        if kind == "unknown_tool":
            name = r.choice(UNKNOWN_TOOLS)
            errors.append(f"unknown_tool:{name}")
        elif kind is not None and kind != "malformed":
            touched: set[str] = set()
            for each in [kind] + (
                [r.choice(call_kinds)] if r.random() < SECOND_ERROR_SHARE else []
            ):
                error = break_arguments(r, params, args, each, touched)
                if error is not None:
                    errors.append(error)
        line = dumps(
            {"id": f"call_{index:08d}", "name": name, "arguments": args}, ensure_ascii=False
        )
        if kind == "malformed":
            yield malformed_line(r, line), None
        else:
            yield line, errors
