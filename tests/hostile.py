"""A structure-aware mutator of log lines: what an attacker (or a broken logger) writes.

Each mutation takes one record of a real format (a line of a case folder) and puts a
hostile value at one place inside it, at any depth: nesting near the parser's limit,
numbers past a double's range or past Python's digit limit, a value of another type,
lone surrogates, NUL. Line mutations cut a line short or put a raw NUL in it; stream
mutations drop chunks. Seeded: a failing case is found again by its seed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

CASES = Path(__file__).resolve().parent / "cases" / "formats"
#: Where a hostile value goes in the line's JSON text: a string orjson writes as is.
_SPOT = "@@hostile@@"

#: Raw JSON texts of hostile values (orjson parses up to 1,024 levels).
HOSTILE_VALUES: dict[str, Callable[[random.Random], bytes]] = {
    "deep list": lambda rng: b"[" * rng.randint(960, 1023),
    "deep object": lambda rng: b'{"a":' * rng.randint(500, 1023),
    "deep list of a string": lambda rng: b"[" * rng.randint(960, 1020) + b'"x"',
    "huge float": lambda rng: rng.choice(
        # (the last: an exponent past what Python's Decimal holds)
        [b"1e400", b"-1e400", b"2e308", b"1e-400", b"-0.0", b"1e9999999999999999999"]
    ),
    "huge integer": lambda rng: b"9" * rng.choice([20, 400, 4300, 4301, 5000]),
    "lone surrogate": lambda rng: rng.choice([b'"\\ud800"', b'"a\\udfffb"', b'"\\ud83d"']),
    "nul": lambda rng: b'"a\\u0000b"',
    "type swap": lambda rng: rng.choice(
        [b"null", b"true", b"0", b"-1", b"1.5", b'""', b"[]", b"{}", b'"x"', b"[null]"]
    ),
}


def _closed(text: bytes) -> bytes:
    """A value opened by ``[`` and ``{"a":`` runs closed again."""
    closing = []
    position = 0
    while position < len(text):
        if text.startswith(b'{"a":', position):
            closing.append(b"}")
            position += 5
        elif text[position : position + 1] == b"[":
            closing.append(b"]")
            position += 1
        else:
            break
    tail = text[position:]
    if not tail:
        tail = b"0" if closing and closing[-1] == b"}" else b""
    return text[:position] + tail + b"".join(reversed(closing))


def _places(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a parsed record: the path to each value, the record's own too."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _places(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _places(item, (*path, index))


def _put(record: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    *parents, last = path
    target = record
    for step in parents:
        target = target[step]
    target[last] = value
    return record


def mutate_value(line: bytes, rng: random.Random, kind: str) -> bytes:
    """``line`` with a hostile value of ``kind`` at one of its places (any depth)."""
    record = orjson.loads(line)
    places = list(_places(record))
    place = rng.choice(places[1:] or places)
    text = orjson.dumps(_put(record, place, _SPOT))
    hostile = _closed(HOSTILE_VALUES[kind](rng))
    return text.replace(orjson.dumps(_SPOT), hostile, 1)


def mutate_line(line: bytes, rng: random.Random) -> bytes:
    """``line`` cut short, or with a raw NUL byte or invalid UTF-8 in it."""
    cut = rng.randrange(1, max(2, len(line)))
    return rng.choice([line[:cut], line[:cut] + b"\x00" + line[cut:], line[:cut] + b"\xff"])


def case_lines(folder: Path) -> list[bytes]:
    return [line for line in (folder / "input.jsonl").read_bytes().splitlines() if line.strip()]


def hostile_log(folder: Path, seed: int, per_line: int = 2) -> bytes:
    """A log of ``folder``'s case in which every line is hostile in its own way: each
    record, ``per_line`` times, with a value mutated, then a few lines cut or broken and
    a few chunks dropped. The original lines stay in too (streams need their start)."""
    rng = random.Random(seed)
    lines = case_lines(folder)
    out: list[bytes] = []
    for line in lines:
        out.append(line)
        for _ in range(per_line):
            out.append(mutate_value(line, rng, rng.choice(list(HOSTILE_VALUES))))
        if rng.random() < 0.3:
            out.append(mutate_line(line, rng))
    if len(out) > 3:  # a cut stream: chunks lost
        for _ in range(rng.randint(1, 3)):
            del out[rng.randrange(len(out))]
    return b"".join(line + b"\n" for line in out)


def case_folders() -> list[Path]:
    return sorted(path for path in CASES.iterdir() if (path / "input.jsonl").exists())
