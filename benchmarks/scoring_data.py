"""The scoring benchmark's inputs: expected-calls files made from a log's own calls, and
BFCL's fixtures made as long as wanted.

An expected file takes each record's calls as its expected calls and changes about 20%
of the entries (another value, another tool, no call expected), and adds about 1% of
ids that no record has, counting the outcome each entry must score. Everything is drawn
from one seeded ``random.Random``, so a seed gives the same file on every run.
"""

from __future__ import annotations

import gzip
import random
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson

from common import BENCH_DIR
from providers import PEER_CALLS
from tools import TOOL_NAMES

BFCL = BENCH_DIR.parent / "tests" / "fixtures" / "bfcl" / "reproduce"
#: The one model of the fixtures with a result file in every category.
BFCL_MODEL = "glyphh-ada-1.1"
#: Shares of the entries changed, by how (the rest expect the record's own calls).
ANOTHER_VALUE, ANOTHER_TOOL, NO_CALL = 0.08, 0.06, 0.06
ABSENT_SHARE = 0.01

#: Calls as an expected file writes them: [{"name", "arguments"}].
Calls = list[dict[str, Any]]


def other_value(value: object) -> object:
    """A value that no exact comparison takes for ``value``."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value + " (another)"
    if isinstance(value, list):
        return [*value, "another"]
    if isinstance(value, dict):
        return {**value, "another": 1}
    return "another"


def expected_lines(
    records: Iterable[tuple[str, Calls]], seed: int, outcomes: Counter[str]
) -> Iterator[bytes]:
    """An expected line per record, then and again one of an id no record has;
    ``outcomes`` counts the outcome each entry must score."""
    r = random.Random(seed)
    for id, calls in records:
        first, draw = calls[0], r.random()
        if draw < ANOTHER_VALUE and first["arguments"]:
            arguments = dict(first["arguments"])
            name = r.choice(sorted(arguments))
            arguments[name] = other_value(arguments[name])
            calls, outcome = [{**first, "arguments": arguments}, *calls[1:]], "incorrect"
        elif draw < ANOTHER_VALUE + ANOTHER_TOOL:
            name = r.choice([tool for tool in TOOL_NAMES if tool != first["name"]])
            calls, outcome = [{**first, "name": name}, *calls[1:]], "incorrect"
        elif draw < ANOTHER_VALUE + ANOTHER_TOOL + NO_CALL:
            calls, outcome = [], "unwanted_call"
        else:
            outcome = "correct"
        outcomes[outcome] += 1
        yield orjson.dumps({"id": id, "calls": calls})
        if r.random() < ABSENT_SHARE:
            outcomes["no_record"] += 1
            yield orjson.dumps({"id": f"absent-{id}", "calls": []})


def write_expected(path: Path, records: Iterable[tuple[str, Calls]], seed: int) -> Counter[str]:
    """Write the expected file of ``records``; the outcomes its entries must score."""
    outcomes: Counter[str] = Counter()
    with open(path, "wb") as out:
        for line in expected_lines(records, seed, outcomes):
            out.write(line + b"\n")
    return outcomes


def flat_records(log: Path) -> Iterator[tuple[str, Calls]]:
    """The flat log's records that parse (the others have no id): (id, [their call])."""
    with open(log, "rb") as lines:
        for line in lines:
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            yield record["id"], [{"name": record["name"], "arguments": record["arguments"]}]


def openai_records(log: Path) -> Iterator[tuple[str, Calls]]:
    """The OpenAI Chat responses whose calls all parse: (the response's id, its calls)."""
    with open(log, "rb") as lines:
        for line in lines:
            try:
                response = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            calls = [{"name": n, "arguments": a} for n, a in PEER_CALLS["openai"](response)]
            if calls and all(isinstance(call["arguments"], dict) for call in calls):
                yield response["id"], calls


def gz_lines(path: Path) -> Iterator[dict[str, Any]]:
    with gzip.open(path, "rb") as lines:
        for line in lines:
            yield orjson.loads(line)


def bfcl_categories() -> list[str]:
    """The categories of the model's result fixtures that have possible answers (not
    the relevance ones)."""
    results = sorted(BFCL.glob(f"{BFCL_MODEL}.*.result.jsonl.gz"))
    categories = [path.name.removeprefix(f"{BFCL_MODEL}.").split(".")[0] for path in results]
    return [c for c in categories if (BFCL / f"{c}.possible_answer.jsonl.gz").exists()]


def write_bfcl(log: Path, questions: Path, answers: Path, copies: int) -> tuple[int, int]:
    """Write the result log, question file and possible answers, each line ``copies``
    times, its id suffixed ``-N`` (still in its category); (entries, how many BFCL's
    score files call correct)."""
    categories = bfcl_categories()
    parts = {log: "{}.result", questions: "{}.function", answers: "{}.possible_answer"}
    entries = 0
    for path, pattern in parts.items():
        with open(path, "wb") as out:
            for category in categories:
                name = pattern.format(f"{BFCL_MODEL}.{category}" if path == log else category)
                lines = list(gz_lines(BFCL / f"{name}.jsonl.gz"))
                entries += len(lines) * copies if path == answers else 0
                for copy in range(copies):
                    for line in lines:
                        out.write(orjson.dumps({**line, "id": f"{line['id']}-{copy}"}) + b"\n")
    correct = sum(
        next(gz_lines(BFCL / f"{BFCL_MODEL}.{category}.score.jsonl.gz"))["correct_count"]
        for category in categories
    )
    return entries, correct * copies
