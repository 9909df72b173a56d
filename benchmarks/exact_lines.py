"""Instructions a line on stream and request-alone logs, two trees side by side: what the
general reader's exact parse of every line that may hold a number orjson misreads costs
(branch tinyzero). Figures, not pass/fail (see README.md).

Each log is audited in one process (summary only, the tree's sources from ``PYTHONPATH``),
the cyclic collector off after a warm-up on the log's first 50 lines, under callgrind: on
the log and on its first fifth, the difference over the lines between (start-up aside).
``--before`` is measured twice, first and last, which shows how far two runs of one tree
differ. The logs: streams.py's OpenAI Chat chunks and Anthropic events (``--calls``
streams), each by the typed path and by the general path alone; the test cases' Responses
and Bedrock streams repeated ``--copies`` times (the general path's: no typed reader reads
them); conversations.py's requests logged alone (``--lines`` of ``--messages``), by either
path. Compile both trees' bytecode first (``python -m compileall -q SRC``).

    .venv/bin/python benchmarks/exact_lines.py --before /tmp/snap/m51/src --after src
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
from pathlib import Path

import conversations
import streams
from common import DATA_DIR
from dataset import prepare_dataset
from measure import callgrind_instructions

CASES = Path(__file__).resolve().parent.parent / "tests" / "cases" / "formats"
#: The logs' rows: (label, log, schemas or "-", "typed" or "general").
Row = tuple[str, Path, str, str]


def audit_in_process(log: str, schemas: str, path: str) -> None:
    """The child callgrind counts: the audit of ``log`` after a warm-up, collector off."""
    from toolaudit.pipeline.audit import NO_SCHEMAS, Audit, AuditOptions
    from toolaudit.schemas import load_schemas
    from toolaudit.sources import Source

    def run(source: str) -> None:
        tools = load_schemas(schemas) if schemas != "-" else NO_SCHEMAS
        audit = Audit([Source(source)], tools, AuditOptions())
        audit.typed_fast_path = path == "typed"
        audit.run(None)

    warm = Path(tempfile.mkdtemp()) / "warm.jsonl"
    warm.write_bytes(b"".join(Path(log).read_bytes().splitlines(keepends=True)[:50]))
    run(str(warm))
    gc.collect()
    gc.disable()
    run(log)


def rows(args: argparse.Namespace) -> list[Row]:
    found: list[Row] = []
    dataset = prepare_dataset(args.calls, streams.SEED)
    for api, name in (("openai", "openai-chat-stream"), ("anthropic", "anthropic-stream")):
        log = streams.chunks_log(dataset.log, 100, stream_format=api)
        for path in ("typed", "general"):
            found.append((f"{name}, {path} path", log, str(dataset.schemas), path))
    for case in ("openai-responses-stream", "bedrock-stream"):
        log = DATA_DIR / f"{case}-x{args.copies}.jsonl"
        log.write_bytes((CASES / case / "input.jsonl").read_bytes() * args.copies)
        label = f"{case} (its case x{args.copies}), general path"
        found.append((label, log, str(CASES / case / "schemas.json"), "general"))
    for shape in args.shapes.split(","):
        name = f"conversations-{shape}-requests-{args.lines}x{args.messages}.jsonl"
        log = DATA_DIR / name
        if not log.exists():
            conversations.generate(log, args.lines, args.messages, kind="requests", shape=shape)
        for path in ("typed", "general"):
            found.append((f"{shape} requests alone, {path} path", log, "-", path))
    return found


def per_line(log: Path, schemas: str, path: str, src: str) -> float:
    """Instructions a line of ``log`` past its first fifth, the tree ``src``'s."""
    lines = log.read_bytes().splitlines(keepends=True)
    short = log.with_name(f"{log.stem}-fifth.jsonl")
    short.write_bytes(b"".join(lines[: len(lines) // 5]))
    env = dict(os.environ, PYTHONPATH=src, PYTHONHASHSEED="0")
    child = [sys.executable, __file__, "--child"]
    full = callgrind_instructions([*child, str(log), schemas, path], env)
    part = callgrind_instructions([*child, str(short), schemas, path], env)
    return (full - part) / (len(lines) - len(lines) // 5)


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        audit_in_process(*sys.argv[2:5])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="the sources before (a src/)")
    parser.add_argument("--after", required=True, help="the sources after")
    parser.add_argument("--calls", type=int, default=2_000, help="streams of streams.py")
    parser.add_argument("--copies", type=int, default=100, help="of each stream test case")
    parser.add_argument("--lines", type=int, default=300, help="requests a log")
    parser.add_argument("--messages", type=int, default=40, help="messages a request")
    parser.add_argument("--shapes", default="openai-chat,anthropic,gemini")
    args = parser.parse_args()
    print("| log | before | after | after / before | before, again |")
    print("|---|---:|---:|---:|---:|")
    for label, log, schemas, path in rows(args):
        before, after, again = (
            per_line(log, schemas, path, src) for src in (args.before, args.after, args.before)
        )
        print(
            f"| {label} | {before:,.0f} | {after:,.0f} | {after / before:.3f}x | {again:,.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
