"""Benchmark toolaudit against the floor (orjson alone) and against peer validators.

One run does everything and prints a Markdown report on stdout (progress goes
to stderr):

1. Generates a synthetic JSONL log of tool calls, deterministically from a seed,
   with the matching schemas file: 10 tools, 3-8 parameters each, about 20% of
   the calls broken in every way the contract knows (missing, unexpected, wrong
   type, outside the enum, unknown tool, malformed JSON). The files are cached
   under benchmarks/data/ by generator version, seed and size.
2. Times, median of ``--repeat`` runs with the variants interleaved round-robin:
   the floor (orjson.loads per line, in-process), ``toolaudit audit`` as a
   subprocess (summary only, full report, ``--jobs 2``, gzip input), and the
   peers jsonschema and fastjsonschema in-process on the same lines.
3. Measures the peak RSS of ``toolaudit audit`` on the log and on a log
   ``--rss-calls`` long, and the start-up cost of ``toolaudit --version``.
4. Checks that toolaudit and the peers found what the generator put in, and
   marks each performance target met or not met.

Run it with ``make bench``; ``--write-readme`` also rewrites the results section
of benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import importlib.metadata
import itertools
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

BENCH_DIR = Path(__file__).resolve().parent
DATA_DIR = BENCH_DIR / "data"
README = BENCH_DIR / "README.md"
RESULTS_START = "<!-- results start -->"
RESULTS_END = "<!-- results end -->"
PEERS_HINT = "n/a (pip install -e '.[bench]')"
NO_JOBS = "n/a (no --jobs yet)"

#: Bump whenever the generated log or schemas change: it is part of the cache names.
GENERATOR_VERSION = 1
ERROR_SHARE = 0.20
READ_BUFFER = 1 << 20
COPY_CHUNK = 1 << 20

# The targets of the performance issue.
TARGET_SUMMARY_VS_FLOOR = 1.6
TARGET_REPORT_VS_FLOOR = 2.0
TARGET_JOBS_SPEEDUP = 1.7
TARGET_GZIP_VS_PLAIN = 1.5
TARGET_PEAK_RSS_MB = 100.0
TARGET_RSS_GROWTH = 0.10


# -- the synthetic log ----------------------------------------------------------------


@dataclass(frozen=True)
class Param:
    """One parameter of a synthetic tool: its schema and how to make a valid value."""

    name: str
    schema: dict[str, Any]
    make: Callable[[random.Random], object]
    required: bool = False

    @property
    def type_key(self) -> str:
        declared = self.schema["type"]
        return "|".join(declared) if isinstance(declared, list) else declared


def string(name: str, pool: list[str], required: bool = False) -> Param:
    return Param(name, {"type": "string"}, lambda r: r.choice(pool), required)


def integer(name: str, low: int, high: int, required: bool = False) -> Param:
    return Param(name, {"type": "integer"}, lambda r: r.randint(low, high), required)


def number(name: str, low: float, high: float, required: bool = False) -> Param:
    return Param(name, {"type": "number"}, lambda r: round(r.uniform(low, high), 2), required)


def boolean(name: str, required: bool = False) -> Param:
    return Param(name, {"type": "boolean"}, lambda r: r.random() < 0.5, required)


def array(name: str, pool: list[str], required: bool = False) -> Param:
    return Param(name, {"type": "array"}, lambda r: r.sample(pool, r.randint(1, 3)), required)


def obj(
    name: str, make: Callable[[random.Random], dict[str, Any]], required: bool = False
) -> Param:
    return Param(name, {"type": "object"}, make, required)


def enum(name: str, values: list[str], required: bool = False) -> Param:
    return Param(name, {"type": "string", "enum": values}, lambda r: r.choice(values), required)


def nullable(name: str, pool: list[str], required: bool = False) -> Param:
    def make(r: random.Random) -> str | None:
        return None if r.random() < 0.3 else r.choice(pool)

    return Param(name, {"type": ["string", "null"]}, make, required)


CITIES = ["Paris", "Zürich", "São Paulo", "Tokyo", "New York", "Lagos", "Reykjavík", "Mumbai"]
QUERIES = [
    "best hiking trails near Lake Geneva",
    "python asyncio timeout example",
    "how long to boil an egg",
    "latest results of the chess olympiad",
    "cheap flights Lisbon to Oslo in March",
    "symptoms of vitamin D deficiency",
]
EMAILS = [
    "ana@example.com",
    "bo@example.org",
    "chen@example.net",
    "dana@example.com",
    "eli@example.io",
]
SUBJECTS = ["Quarterly report", "Lunch on Friday?", "Re: invoice #4411", "Draft for review"]
BODIES = [
    "Hi, please find the figures attached. Let me know if anything looks off.",
    "Can we move our call to 3pm? Something came up this morning.",
    "Thanks for the quick turnaround, this looks great.",
]
TITLES = ["Dentist", "Team sync", "Flight to Berlin", "Yoga class", "1:1 with Sam"]
DATETIMES = [
    "2026-12-01T09:30:00",
    "2026-12-03T14:00:00",
    "2026-12-22T18:45:00",
    "2027-01-05T08:00:00",
]
DATES = ["2026-12-04", "2026-12-12", "2026-12-31", "2027-01-09"]
TIMES = ["12:30", "19:00", "20:15", "21:00"]
PLACES = ["Room 4.12", "Zoom", "Café Central", "HQ, 3rd floor"]
CURRENCIES = ["EUR", "USD", "GBP", "JPY", "CHF", "BRL", "INR", "CNY", "AUD", "CAD"]
LANGUAGES = ["en", "de", "fr", "es", "ja", "pt", "it"]
ROOMS = ["living room", "bedroom", "kitchen", "office"]
SQL = [
    "SELECT id, email FROM users WHERE created_at > ?",
    "SELECT count(*) FROM orders WHERE status = ?",
    "UPDATE sessions SET expired = 1 WHERE last_seen < ?",
]
RESTAURANTS = ["Le Petit Zinc", "Sushi Dai", "Trattoria da Enzo", "The Green Fork"]
NOTES = ["window seat please", "birthday, a small cake if possible", "we come with a stroller"]
DIETS = ["vegetarian", "vegan", "gluten-free", "nut allergy", "halal"]
URLS = ["https://cdn.example.com/img/4481.png", "https://example.org/photos/cat.jpg"]
TEXTS = [
    "Where is the nearest train station?",
    "The meeting has been moved to Thursday.",
    "Good morning!",
]


def schedule(r: random.Random) -> dict[str, Any]:
    return {
        "from": r.choice(TIMES),
        "to": r.choice(TIMES),
        "days": r.sample(["mon", "tue", "wed", "sat"], 2),
    }


def crop(r: random.Random) -> dict[str, Any]:
    return {"x": r.randint(0, 200), "y": r.randint(0, 200)}


TOOLS: dict[str, list[Param]] = {
    "get_weather": [
        string("city", CITIES, required=True),
        integer("days", 1, 14),
        enum("units", ["celsius", "fahrenheit", "kelvin"]),
        boolean("include_hourly"),
    ],
    "search_web": [
        string("query", QUERIES, required=True),
        integer("max_results", 1, 50),
        boolean("safe_search"),
        nullable("site", ["wikipedia.org", "stackoverflow.com", "github.com"]),
        enum("language", LANGUAGES),
    ],
    "send_email": [
        array("to", EMAILS, required=True),
        string("subject", SUBJECTS, required=True),
        string("body", BODIES, required=True),
        array("cc", EMAILS),
        enum("priority", ["low", "normal", "high"]),
        nullable("send_at", DATETIMES),
    ],
    "create_event": [
        string("title", TITLES, required=True),
        string("start", DATETIMES, required=True),
        integer("duration_minutes", 15, 240, required=True),
        array("attendees", EMAILS),
        nullable("location", PLACES),
        integer("reminder_minutes", 0, 60),
        boolean("all_day"),
        enum("visibility", ["public", "private", "default"]),
    ],
    "convert_currency": [
        number("amount", 1, 5000, required=True),
        enum("from_currency", CURRENCIES, required=True),
        enum("to_currency", CURRENCIES, required=True),
    ],
    "set_thermostat": [
        string("room", ROOMS, required=True),
        number("temperature", 15, 28, required=True),
        enum("mode", ["heat", "cool", "auto", "off"]),
        obj("schedule", schedule),
    ],
    "query_database": [
        string("sql", SQL, required=True),
        array("params", ["2026-01-01", "paid", "42", "eu-west"]),
        number("timeout_seconds", 0.5, 30),
        boolean("read_only"),
        integer("max_rows", 1, 10000),
    ],
    "translate_text": [
        string("text", TEXTS, required=True),
        enum("target_language", LANGUAGES, required=True),
        nullable("source_language", LANGUAGES),
        enum("formality", ["default", "more", "less"]),
    ],
    "book_restaurant": [
        string("restaurant", RESTAURANTS, required=True),
        integer("party_size", 1, 12, required=True),
        string("date", DATES, required=True),
        string("time", TIMES, required=True),
        nullable("notes", NOTES),
        boolean("outdoor"),
        array("dietary", DIETS),
    ],
    "resize_image": [
        string("url", URLS, required=True),
        integer("width", 16, 4096, required=True),
        integer("height", 16, 4096, required=True),
        enum("format", ["png", "jpeg", "webp"]),
        integer("quality", 1, 100),
        boolean("keep_aspect"),
        obj("crop", crop),
    ],
}
TOOL_NAMES = list(TOOLS)
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


@dataclass
class Expected:
    """What the generator put in the log, in the words of toolaudit's summary."""

    lines: int = 0
    bytes: int = 0
    malformed_records: int = 0
    calls: int = 0
    invalid: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)

    @property
    def error_rate(self) -> float:
        audited = self.calls + self.malformed_records
        return (self.invalid + self.malformed_records) / audited if audited else 0.0


@dataclass(frozen=True)
class Dataset:
    log: Path
    gz: Path
    schemas: Path
    expected: Expected


def tool_schemas() -> dict[str, Any]:
    """The schemas file: tool name -> {"parameters": JSON Schema of the arguments}."""
    return {
        name: {
            "parameters": {
                "type": "object",
                "properties": {p.name: p.schema for p in params},
                "required": [p.name for p in params if p.required],
            }
        }
        for name, params in TOOLS.items()
    }


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


def write_log(path: Path, calls: int, seed: int) -> Expected:
    expected = Expected()
    with atomic_path(path) as partial, open(partial, "wb", buffering=READ_BUFFER) as out:
        for line, errors in generate_lines(calls, seed):
            data = line.encode() + b"\n"
            out.write(data)
            expected.lines += 1
            expected.bytes += len(data)
            if errors is None:
                expected.malformed_records += 1
                continue
            expected.calls += 1
            if errors:
                expected.invalid += 1
                for error in errors:
                    error_kind = error.split(":", 1)[0]
                    expected.by_kind[error_kind] = expected.by_kind.get(error_kind, 0) + 1
    return expected


class atomic_path:
    """A temporary path beside ``path``, renamed over it only on success."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.partial = path.with_name(path.name + ".partial")

    def __enter__(self) -> Path:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        return self.partial

    def __exit__(self, kind: object, *rest: object) -> None:
        if kind is None:
            os.replace(self.partial, self.path)
        else:
            self.partial.unlink(missing_ok=True)


def gzip_file(source: Path, target: Path) -> None:
    """Gzip at level 6, with no name or time in the header: the same bytes every time."""
    with (
        atomic_path(target) as partial,
        open(source, "rb") as src,
        open(partial, "wb") as raw,
        gzip.GzipFile(filename="", mode="wb", compresslevel=6, fileobj=raw, mtime=0) as out,
    ):
        shutil.copyfileobj(src, out, COPY_CHUNK)


def repeat_log(source: Path, source_lines: int, target: Path, lines: int) -> None:
    """Write ``lines`` lines by concatenating ``source`` (streamed, never held in memory)."""
    whole, rest = divmod(lines, source_lines)
    with atomic_path(target) as partial, open(partial, "wb", buffering=READ_BUFFER) as out:
        for _ in range(whole):
            with open(source, "rb") as src:
                shutil.copyfileobj(src, out, COPY_CHUNK)
        with open(source, "rb", buffering=READ_BUFFER) as src:
            out.writelines(itertools.islice(src, rest))


def prepare_dataset(calls: int, seed: int) -> Dataset:
    """The log, its gzip, the schemas and the expected counts: cached, or generated now."""
    stem = f"calls-v{GENERATOR_VERSION}-seed{seed}-{calls}"
    log = DATA_DIR / f"{stem}.jsonl"
    gz = DATA_DIR / f"{stem}.jsonl.gz"
    meta = DATA_DIR / f"{stem}.expected.json"
    schemas = DATA_DIR / f"schemas-v{GENERATOR_VERSION}.json"
    if not schemas.exists():
        with atomic_path(schemas) as partial:
            partial.write_bytes(orjson.dumps(tool_schemas(), option=orjson.OPT_INDENT_2))
    if log.exists() and meta.exists():
        expected = Expected(**orjson.loads(meta.read_bytes()))
        progress(f"reusing {log.relative_to(BENCH_DIR.parent)}")
    else:
        progress(f"generating {calls:,} calls into {log.relative_to(BENCH_DIR.parent)} ...")
        started = time.perf_counter()
        gz.unlink(missing_ok=True)  # it was made from another log
        expected = write_log(log, calls, seed)
        with atomic_path(meta) as partial:
            partial.write_bytes(orjson.dumps(expected.__dict__, option=orjson.OPT_INDENT_2))
        progress(f"  done in {time.perf_counter() - started:.1f}s")
    if not gz.exists():
        progress(f"gzipping it (level 6) into {gz.name} ...")
        gzip_file(log, gz)
    return Dataset(log=log, gz=gz, schemas=schemas, expected=expected)


def prepare_rss_log(dataset: Dataset, calls: int, lines: int) -> Path:
    path = DATA_DIR / f"calls-v{GENERATOR_VERSION}-{lines}-from-{dataset.log.stem}.jsonl"
    if path.exists():
        progress(f"reusing {path.name}")
    else:
        progress(f"writing {lines:,} lines into {path.name} (the log repeated) ...")
        repeat_log(dataset.log, calls, path, lines)
    return path


# -- running things and timing them --------------------------------------------------------

# Runs a command in a fresh, small process and reports its wall time and peak RSS.
# Linux carries the parent's RSS high-water mark across fork/vfork and exec into the
# child's ru_maxrss, so a child spawned straight from this (large) benchmark process
# would report at least this process's peak; a grandchild forked from a bare
# `python -S` only inherits that interpreter's few MB.
PROBE = r"""
import os, sys, time
stdout_path, argv = sys.argv[1], sys.argv[2:]
started = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        fd = os.open(stdout_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1)
        os.execv(argv[0], argv)
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
elapsed = time.perf_counter() - started
print(elapsed, usage.ru_maxrss, os.waitstatus_to_exitcode(status))
"""


@dataclass(frozen=True)
class ChildRun:
    seconds: float
    peak_rss_kib: int
    exit_code: int


class BenchmarkError(Exception):
    """Something the benchmark cannot go on without."""


def run_child(
    argv: list[str],
    stdout_path: str | os.PathLike[str] = os.devnull,
    ok_codes: tuple[int, ...] = (0, 1),
) -> ChildRun:
    """Run ``argv`` through the probe: wall seconds, peak RSS (KiB) and exit code."""
    probe = subprocess.run(
        [sys.executable, "-S", "-c", PROBE, os.fspath(stdout_path), *argv],
        capture_output=True,
        text=True,
        check=False,
    )
    if probe.returncode != 0 or not probe.stdout.strip():
        raise BenchmarkError(f"the probe failed running {' '.join(argv)}:\n{probe.stderr}")
    seconds, peak, code = probe.stdout.split()
    run = ChildRun(float(seconds), int(peak), int(code))
    if run.exit_code not in ok_codes:
        raise BenchmarkError(f"{' '.join(argv)} exited {run.exit_code}:\n{probe.stderr.strip()}")
    return run


def toolaudit_executable() -> Path:
    path = Path(sys.executable).with_name("toolaudit")
    if not path.exists():
        raise BenchmarkError(
            f"{path} not found: run `make bench`, which installs the package into .venv"
        )
    return path


def audit_argv(exe: Path, log: Path, schemas: Path, *extra: str) -> list[str]:
    return [
        str(exe),
        "audit",
        str(log),
        "--schemas",
        str(schemas),
        "--no-progress",
        "--format",
        "json",
        *extra,
    ]


def supports_jobs(exe: Path) -> bool:
    result = subprocess.run(
        [str(exe), "audit", "--help"], capture_output=True, text=True, check=False
    )
    return "--jobs" in result.stdout


# -- the in-process measurements ------------------------------------------------------------


@dataclass
class Counts:
    """What an in-process reader found, to check it against the generator."""

    lines: int = 0
    malformed: int = 0
    invalid: int = 0


def floor_pass(path: Path) -> Counts:
    """The floor: read the lines and parse each with orjson, nothing else."""
    counts = Counts()
    loads = orjson.loads
    decode_error = orjson.JSONDecodeError
    with open(path, "rb", buffering=READ_BUFFER) as f:
        for line in f:
            counts.lines += 1
            try:
                loads(line)
            except decode_error:
                counts.malformed += 1
    return counts


def peer_pass(path: Path, validate: dict[str, Callable[[object], bool]]) -> Counts:
    """Parse with orjson, validate the arguments with a peer; unknown tools are errors."""
    counts = Counts()
    loads = orjson.loads
    decode_error = orjson.JSONDecodeError
    get = validate.get
    with open(path, "rb", buffering=READ_BUFFER) as f:
        for line in f:
            counts.lines += 1
            try:
                record = loads(line)
            except decode_error:
                counts.malformed += 1
                continue
            if type(record) is not dict:
                counts.malformed += 1
                continue
            is_valid = get(record.get("name"))
            if is_valid is None or not is_valid(record.get("arguments", {})):
                counts.invalid += 1
    return counts


def peer_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """toolaudit's contract in JSON Schema: no undeclared argument."""
    return {**schema["parameters"], "additionalProperties": False}


def jsonschema_validators(schemas: dict[str, Any]) -> dict[str, Callable[[object], bool]] | None:
    try:
        from jsonschema import Draft202012Validator
    except ImportError:
        return None
    validators = {
        name: Draft202012Validator(peer_schema(schema)) for name, schema in schemas.items()
    }

    def all_errors(validator: Any) -> Callable[[object], bool]:
        iter_errors = validator.iter_errors
        # Collect every error, as toolaudit reports every error of a call.
        return lambda arguments: not list(iter_errors(arguments))

    return {name: all_errors(v) for name, v in validators.items()}


def fastjsonschema_validators(
    schemas: dict[str, Any],
) -> dict[str, Callable[[object], bool]] | None:
    try:
        import fastjsonschema
    except ImportError:
        return None
    compiled = {
        name: fastjsonschema.compile(peer_schema(schema)) for name, schema in schemas.items()
    }
    failure = fastjsonschema.JsonSchemaValueException

    def first_error(validate: Callable[[object], object]) -> Callable[[object], bool]:
        def is_valid(arguments: object) -> bool:
            try:
                validate(arguments)
            except failure:
                return False
            return True

        return is_valid

    return {name: first_error(v) for name, v in compiled.items()}


# -- the measurements, side by side ----------------------------------------------------------


@dataclass
class Variant:
    """One row of the table: how to run it once, and its timings so far."""

    key: str
    label: str
    run: Callable[[], float] | None  # None: not available, see ``unavailable``
    unavailable: str = ""
    seconds: list[float] = field(default_factory=list)
    counts: Counts | None = None

    @property
    def median(self) -> float | None:
        return statistics.median(self.seconds) if self.seconds else None


def timed_in_process(
    variant_counts: Callable[[], Counts], keep: Callable[[Counts], None]
) -> Callable[[], float]:
    def run() -> float:
        started = time.perf_counter()
        counts = variant_counts()
        elapsed = time.perf_counter() - started
        keep(counts)
        return elapsed

    return run


def timed_child(argv: list[str]) -> Callable[[], float]:
    return lambda: run_child(argv).seconds


def build_variants(exe: Path, dataset: Dataset, jobs: bool) -> list[Variant]:
    """The rows of the table, in order; a row that cannot run says why instead."""
    schemas = orjson.loads(dataset.schemas.read_bytes())
    log, schema_path = dataset.log, dataset.schemas
    report = DATA_DIR / "report.jsonl"
    variants: list[Variant] = []

    def in_process(key: str, label: str, count: Callable[[], Counts] | None) -> None:
        variant = Variant(key, label, None, PEERS_HINT)
        if count is not None:
            variant.run = timed_in_process(count, lambda c: setattr(variant, "counts", c))
        variants.append(variant)

    def child(key: str, label: str, argv: list[str] | None, unavailable: str = "") -> None:
        variants.append(Variant(key, label, timed_child(argv) if argv else None, unavailable))

    in_process("a", "floor: `orjson.loads` per line, in-process", lambda: floor_pass(log))
    child("b", "`toolaudit audit`, summary only", audit_argv(exe, log, schema_path))
    child(
        "c",
        "`toolaudit audit --report FILE` (full per-call report)",
        audit_argv(exe, log, schema_path, "--report", str(report)),
    )
    child(
        "d",
        "`toolaudit audit --jobs 2`, summary only",
        audit_argv(exe, log, schema_path, "--jobs", "2") if jobs else None,
        NO_JOBS,
    )
    child(
        "e",
        "`toolaudit audit` on the gzipped log (level 6), summary only",
        audit_argv(exe, dataset.gz, schema_path),
    )
    js = jsonschema_validators(schemas)
    in_process(
        "f1",
        "peer: orjson + jsonschema (`Draft202012Validator`, all errors)",
        (lambda: peer_pass(log, js)) if js else None,
    )
    fjs = fastjsonschema_validators(schemas)
    in_process(
        "f2",
        "peer: orjson + fastjsonschema (stops at the first error)",
        (lambda: peer_pass(log, fjs)) if fjs else None,
    )
    return variants


def measure_round_robin(variants: list[Variant], repeat: int) -> None:
    """Each variant once per round, in turn, so that the machine's noise spreads over all."""
    runnable = [v for v in variants if v.run is not None]
    for round_number in range(1, repeat + 1):
        for variant in runnable:
            assert variant.run is not None
            seconds = variant.run()
            variant.seconds.append(seconds)
            progress(f"  round {round_number}/{repeat}  {variant.key:>2}  {seconds:7.3f}s")


def measure_startup(exe: Path, times: int = 10) -> tuple[float, int]:
    """Median seconds of `toolaudit --version`, and its peak RSS (KiB)."""
    runs = [run_child([str(exe), "--version"], ok_codes=(0,)) for _ in range(times)]
    return statistics.median(r.seconds for r in runs), max(r.peak_rss_kib for r in runs)


@dataclass(frozen=True)
class RssResult:
    calls: int
    rss_calls: int
    base: ChildRun
    big: ChildRun


def measure_rss(exe: Path, dataset: Dataset, calls: int, rss_calls: int) -> RssResult:
    big_log = prepare_rss_log(dataset, calls, rss_calls)
    progress("peak RSS: summary-only audit of both logs ...")
    base = run_child(audit_argv(exe, dataset.log, dataset.schemas))
    big = run_child(audit_argv(exe, big_log, dataset.schemas))
    return RssResult(calls, rss_calls, base, big)


# -- checks: did everyone find what the generator put in? -------------------------------------


def check_toolaudit(exe: Path, dataset: Dataset) -> list[str]:
    """One untimed summary-only run (it also warms the page cache), against the generator."""
    with tempfile.NamedTemporaryFile(suffix=".json", dir=DATA_DIR, delete=False) as out:
        summary_path = Path(out.name)
    try:
        run_child(audit_argv(exe, dataset.log, dataset.schemas), stdout_path=summary_path)
        summary = orjson.loads(summary_path.read_bytes())
    finally:
        summary_path.unlink(missing_ok=True)
    want = dataset.expected
    pairs = [
        ("lines", summary.get("lines"), want.lines),
        ("malformed records", summary.get("malformed_records"), want.malformed_records),
        ("calls", summary.get("calls"), want.calls),
        ("invalid calls", summary.get("invalid"), want.invalid),
    ]
    by_kind = summary.get("by_kind", {})
    pairs += [
        (f"{kind} errors", by_kind.get(kind, 0), count)
        for kind, count in sorted(want.by_kind.items())
    ]
    wrong = [
        f"{what} {got} (expected {expected})" for what, got, expected in pairs if got != expected
    ]
    if wrong:
        return ["toolaudit's summary differs from the generator: " + "; ".join(wrong)]
    return [
        f"toolaudit's summary matches the generator ({want.invalid:,} invalid calls, "
        f"{want.malformed_records:,} malformed lines, every error kind counted exactly)"
    ]


def check_in_process(variants: list[Variant], expected: Expected) -> list[str]:
    notes = []
    for variant in variants:
        counts = variant.counts
        if counts is None:
            continue
        problems = []
        if counts.lines != expected.lines:
            problems.append(f"{counts.lines:,} lines (expected {expected.lines:,})")
        if counts.malformed != expected.malformed_records:
            problems.append(
                f"{counts.malformed:,} malformed (expected {expected.malformed_records:,})"
            )
        if variant.key != "a" and counts.invalid != expected.invalid:
            problems.append(f"{counts.invalid:,} invalid calls (expected {expected.invalid:,})")
        if problems:
            notes.append(f"row {variant.key} found " + ", ".join(problems))
        elif variant.key != "a":
            notes.append(f"row {variant.key} found the same {counts.invalid:,} invalid calls")
    return notes


# -- the report ------------------------------------------------------------------------------


def package_version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def usable_cores() -> str:
    total = os.cpu_count() or 0
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        return str(total)
    return str(total) if usable == total else f"{usable} usable of {total}"


def toolaudit_version(exe: Path) -> str:
    result = subprocess.run([str(exe), "--version"], capture_output=True, text=True, check=False)
    return result.stdout.strip().removeprefix("toolaudit ") or package_version("toolaudit")


def mb(kib: int) -> float:
    return kib * 1024 / 1e6


def met(ok: bool) -> str:
    return "met" if ok else "**not met**"


def markdown_table(header: list[str], rows: list[list[str]], align: str) -> list[str]:
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join(":---" if a == "l" else "---:" for a in align) + "|",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def render_report(
    *,
    exe: Path,
    dataset: Dataset,
    args: argparse.Namespace,
    variants: list[Variant],
    startup: tuple[float, int],
    rss: RssResult | None,
    checks: list[str],
) -> str:
    """The whole report, in Markdown: header, timings, derived figures, checks."""
    lines = render_header(exe, dataset, args)
    lines += render_timings(variants, dataset.expected.lines)
    lines += render_figures({v.key: v.median for v in variants}, startup, rss)
    lines += ["Checks:", ""] + [f"- {check}" for check in checks]
    return "\n".join(lines) + "\n"


def render_header(exe: Path, dataset: Dataset, args: argparse.Namespace) -> list[str]:
    expected = dataset.expected
    now = dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    rss_args = "--skip-rss" if args.skip_rss else f"--rss-calls {args.rss_calls}"
    command = f"benchmarks/run.py --calls {args.calls} --repeat {args.repeat} {rss_args}"
    versions = [
        f"Python {platform.python_version()}",
        f"orjson {orjson.__version__}",
        f"toolaudit {toolaudit_version(exe)}",
        f"jsonschema {package_version('jsonschema')}",
        f"fastjsonschema {package_version('fastjsonschema')}",
    ]
    size, gz_size = expected.bytes, dataset.gz.stat().st_size
    return [
        f"Measured {now} with `{command}`.",
        "",
        f"- machine: {cpu_model()}, {usable_cores()} cores, "
        f"{platform.system()} {platform.release()}",
        f"- {', '.join(versions)}",
        f"- input: {expected.lines:,} lines, {size / 1e6:.1f} MB "
        f"({size / expected.lines:.0f} bytes a line), gzip {gz_size / 1e6:.1f} MB; "
        f"{expected.invalid:,} invalid calls and {expected.malformed_records:,} malformed lines "
        f"(error rate {expected.error_rate:.1%}); generator v{GENERATOR_VERSION}, seed {args.seed}",
        f"- times: median of {args.repeat}, all rows interleaved round-robin; "
        "ratios are to the floor's median",
        "",
    ]


def render_timings(variants: list[Variant], calls: int) -> list[str]:
    floor = variants[0].median
    assert floor is not None and variants[0].key == "a"
    limits = {"b": TARGET_SUMMARY_VS_FLOOR, "c": TARGET_REPORT_VS_FLOOR}
    elsewhere = {"d": "speedup, below", "e": "gzip / plain, below"}
    rows = []
    for v in variants:
        median = v.median
        if median is None:
            rows.append([v.key, v.label, v.unavailable, "—", "—", "—", "—"])
            continue
        ratio = median / floor
        target, status = elsewhere.get(v.key, "—"), "—"
        if v.key in limits:
            target, status = f"≤ {limits[v.key]:.2f}x floor", met(ratio <= limits[v.key])
        rows.append(
            [
                v.key,
                v.label,
                f"{median:.3f}",
                f"{calls / median:,.0f}",
                f"{ratio:.2f}x",
                target,
                status,
            ]
        )
    header = ["row", "measurement", "median s", "calls/s", "vs floor", "target", "status"]
    return [*markdown_table(header, rows, "llrrrll"), ""]


def render_figures(
    medians: dict[str, float | None], startup: tuple[float, int], rss: RssResult | None
) -> list[str]:
    one, two, gz = medians["b"], medians["d"], medians["e"]
    assert one is not None and gz is not None
    jobs_target = f"≥ {TARGET_JOBS_SPEEDUP:.2f}x"
    rss_target = f"≤ {TARGET_PEAK_RSS_MB:.0f} MB"
    figures = []
    if two is None:
        figures.append(
            ["`--jobs 2` speedup over one process (b / d)", NO_JOBS, jobs_target, met(False)]
        )
    else:
        speedup = one / two
        figures.append(
            [
                "`--jobs 2` speedup over one process (b / d)",
                f"{speedup:.2f}x",
                jobs_target,
                met(speedup >= TARGET_JOBS_SPEEDUP),
            ]
        )
    figures.append(
        [
            "gzip / plain (e / b)",
            f"{gz / one:.2f}x",
            f"≤ {TARGET_GZIP_VS_PLAIN:.2f}x",
            met(gz / one <= TARGET_GZIP_VS_PLAIN),
        ]
    )
    if rss is None:
        figures.append(["peak RSS", "skipped (--skip-rss)", rss_target, "—"])
    else:
        for calls, run in ((rss.calls, rss.base), (rss.rss_calls, rss.big)):
            peak = mb(run.peak_rss_kib)
            speed = f"{run.seconds:.1f} s, {calls / run.seconds:,.0f} calls/s"
            figures.append(
                [
                    f"peak RSS, summary only, {calls:,} lines ({speed})",
                    f"{peak:.1f} MB",
                    rss_target,
                    met(peak <= TARGET_PEAK_RSS_MB),
                ]
            )
        growth = rss.big.peak_rss_kib / rss.base.peak_rss_kib
        figures.append(
            [
                f"peak RSS ratio, {rss.rss_calls:,} / {rss.calls:,} lines",
                f"{growth:.2f}x",
                f"within {TARGET_RSS_GROWTH:.0%}",
                met(abs(growth - 1) <= TARGET_RSS_GROWTH),
            ]
        )
    seconds, kib = startup
    figures.append(
        [
            "start-up: `toolaudit --version` (median of 10; its peak RSS)",
            f"{seconds * 1000:.0f} ms ({mb(kib):.1f} MB)",
            "—",
            "—",
        ]
    )
    return [*markdown_table(["figure", "value", "target", "status"], figures, "lrll"), ""]


README_TEMPLATE = f"""# Benchmarks

`benchmarks/run.py` measures how fast `toolaudit audit` goes compared with the
floor (what parsing the log with orjson alone costs) and with peer validators,
how much memory it holds, and how long it takes to start.

## How to run

```console
$ make bench                                                     # full: 1M calls, RSS at 10M
$ BENCH_ARGS="--calls 200000 --repeat 3 --skip-rss" make bench   # a quick run
$ BENCH_ARGS="--write-readme" make bench                         # and rewrite the results below
```

The first run generates the synthetic log (seeded, so every run sees the same
bytes) into `benchmarks/data/`, which is git-ignored; later runs reuse it. The
log holds 10 tools of 3 to 8 parameters (string, integer, number, boolean,
array, object, enum-constrained string, `["string", "null"]`), about 170 bytes
a line, with about 20% of the calls broken: missing, unexpected, wrong type
(`true` for an integer among them), outside the enum, unknown tool, and a few
lines that are not JSON. The script checks that toolaudit and the peers find
exactly the errors the generator put in.

## What each row means

- **a, floor**: in-process, `for line in open(log, "rb")`, `orjson.loads(line)`.
  No tool can audit the log faster than it can read and parse it: every other
  row is compared with this one.
- **b**: `toolaudit audit LOG --schemas S --no-progress --format json` as a
  subprocess, stdout to /dev/null: the summary only. Includes start-up.
- **c**: the same, also writing the full per-call report (`--report FILE`).
- **d**: the same as b with `--jobs 2` (n/a while toolaudit has no `--jobs`).
- **e**: the same as b on the log gzipped at level 6.
- **f1, f2**: peers, in-process, on the same lines: orjson, then the call's
  arguments validated by python-jsonschema (`Draft202012Validator`, every error
  collected with `iter_errors`, as toolaudit reports every error) or by
  fastjsonschema (compiled once per tool; it stops at the first error, so it
  does less work on invalid calls). Their schemas say the same as toolaudit's
  contract: `additionalProperties: false`, `required`, `type`, `enum`; an
  unknown tool is an error without validation.
- **peak RSS**: `toolaudit audit` (summary only) on the log and on a log ten
  times as long (the same log repeated), read with `os.wait4`. The audit
  streams, so the two should be the same. Linux carries a parent's RSS
  high-water mark over fork and exec into the child's `ru_maxrss`, so the
  command is started from a bare `python -S` that forks it, not from the
  benchmark process itself.
- **start-up**: `toolaudit --version`, median of 10.

Times are medians; all rows run once per round, round-robin, so that the noise
of a shared machine spreads over all of them.

## Targets

| figure | target |
|:---|:---|
| summary only (b) | ≤ {TARGET_SUMMARY_VS_FLOOR:.1f}x the floor |
| full report (c) | ≤ {TARGET_REPORT_VS_FLOOR:.1f}x the floor |
| `--jobs 2` (d) | ≥ {TARGET_JOBS_SPEEDUP:.1f}x faster than one process (b) |
| gzip input (e) | ≤ {TARGET_GZIP_VS_PLAIN:.1f}x plain input (b) |
| peak RSS | ≤ {TARGET_PEAK_RSS_MB:.0f} MB; at 10M calls within {TARGET_RSS_GROWTH:.0%} of 1M |

## Latest results

{RESULTS_START}
(none yet: run `BENCH_ARGS="--write-readme" make bench`)
{RESULTS_END}
"""


def write_readme(results: str) -> None:
    """Replace what lies between the results markers (creating the README if needed)."""
    text = README.read_text(encoding="utf-8") if README.exists() else README_TEMPLATE
    start, end = text.find(RESULTS_START), text.find(RESULTS_END)
    if start < 0 or end < start:
        text = text.rstrip("\n") + f"\n\n## Latest results\n\n{RESULTS_START}\n{RESULTS_END}\n"
        start, end = text.find(RESULTS_START), text.find(RESULTS_END)
    text = text[: start + len(RESULTS_START)] + "\n" + results + text[end:]
    with atomic_path(README) as partial:
        partial.write_text(text, encoding="utf-8")


# -- main ------------------------------------------------------------------------------------


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def positive(text: str) -> int:
    value = int(text.replace("_", "").replace(",", ""))
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--calls",
        type=positive,
        default=1_000_000,
        help="lines in the synthetic log (default: 1,000,000)",
    )
    parser.add_argument(
        "--repeat",
        type=positive,
        default=5,
        help="runs of each measurement; the median is reported (default: 5)",
    )
    parser.add_argument(
        "--rss-calls",
        type=positive,
        default=10_000_000,
        help="lines in the long log of the peak-RSS measurement (default: 10,000,000)",
    )
    parser.add_argument("--skip-rss", action="store_true", help="skip the peak-RSS measurement")
    parser.add_argument(
        "--seed", type=int, default=20261128, help="seed of the generator (default: 20261128)"
    )
    parser.add_argument(
        "--write-readme",
        action="store_true",
        help="rewrite the results section of benchmarks/README.md",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        exe = toolaudit_executable()
        dataset = prepare_dataset(args.calls, args.seed)
        progress("checking toolaudit's findings (untimed, warms the page cache) ...")
        checks = check_toolaudit(exe, dataset)
        variants = build_variants(exe, dataset, jobs=supports_jobs(exe))
        progress(
            f"timing {sum(v.run is not None for v in variants)} rows, {args.repeat} rounds ..."
        )
        measure_round_robin(variants, args.repeat)
        checks += check_in_process(variants, dataset.expected)
        progress("start-up: toolaudit --version x10 ...")
        startup = measure_startup(exe)
        rss = None if args.skip_rss else measure_rss(exe, dataset, args.calls, args.rss_calls)
    except BenchmarkError as error:
        print(f"benchmarks/run.py: error: {error}", file=sys.stderr)
        return 2
    report = render_report(
        exe=exe,
        dataset=dataset,
        args=args,
        variants=variants,
        startup=startup,
        rss=rss,
        checks=checks,
    )
    print(report, end="")
    if args.write_readme:
        write_readme(report)
        progress(f"wrote the results into {README.relative_to(BENCH_DIR.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
