"""The benchmark scripts still run, each on a log of a few hundred lines.

They reach into the pipeline's pieces (the typed reader, its decoders, the runners), so a
change there can break one long before anybody runs ``make bench`` again: this happened
to ``typed_breakdown.py``. Only that they run to the end and print their table is
checked here; their figures mean nothing at this size. ``run.py`` is left out: its
peer rows need the ``bench`` extra, which the test install does not have.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

#: Each test runs a benchmark script end to end: left out of `make quick`.
pytestmark = pytest.mark.slow

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"

SCRIPTS = [
    ["typed_breakdown.py", "--calls", "300", "--rounds", "1"],
    ["typed_breakdown.py", "--provider", "openai-pair", "--calls", "300", "--rounds", "1"],
    ["typed_args.py", "--calls", "300", "--rounds", "1"],
    ["boundary.py", "--rounds", "1", "--number", "20"],
    ["streams.py", "--calls", "300", "--open", "30", "--repeat", "1", "--skip-rss"],
    ["streams.py", "--format", "anthropic", "--calls", "300", "--repeat", "1", "--skip-rss"],
    ["providers_bench.py", "--calls", "300", "--repeat", "1"],
    ["dask_bench.py", "--lines", "3000", "--repeat", "1", "--skip-report"],
    ["s3_bench.py", "--calls", "300", "--repeat", "1"],
    ["scoring.py", "--calls", "300", "--copies", "1", "--repeat", "1"],
    ["deep_cpu.py", "--calls", "300", "--repeat", "1"],
    ["conversations.py", "--lines", "40", "--messages", "12", "--repeat", "1"],
]
#: The scripts that write no log (every other writes its own, under DATA_DIR).
WRITE_NOTHING = {"typed_args.py", "boundary.py"}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda args: " ".join(args[:3]))
def test_the_benchmark_script_runs(script: list[str], tmp_path: Path) -> None:
    # (Its small logs written apart: in benchmarks/data they would replace the real ones,
    # which scoring.py, for one, names by log and not by size.)
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script[0]), *script[1:]],
        cwd=BENCHMARKS.parent,
        env={**os.environ, "TOOLAUDIT_BENCHMARK_DATA": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "|---" in done.stdout.replace(":", ""), done.stdout[-3000:]  # a table printed
    # Its logs where it was told, not over the real ones in benchmarks/data.
    assert script[0] in WRITE_NOTHING or any(tmp_path.iterdir())


@pytest.mark.parametrize("shape", ["openai-chat", "openai-responses", "bedrock"])
def test_every_conversation_log_is_read_as_histories(shape: str, tmp_path: Path) -> None:
    # conversations.py's figures hold only if each of its logs is read as its format reads
    # it: every line a record whose history is checked (a span whose tools went unread
    # once stopped the audit at its first line).
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import conversations
    finally:
        sys.path.remove(str(BENCHMARKS))
    from toolaudit.pipeline.audit import Audit

    for kind in conversations.LOGS:
        written = conversations.shape_of(kind, shape)
        if written is None:
            continue
        log = tmp_path / f"{kind}-{written}.jsonl"
        conversations.generate(log, 100, 12, kind=kind, shape=written)
        summary = Audit([str(log)]).run(None)
        assert (summary.records, summary.malformed_records) == (100, 0), (kind, written)
        assert summary.conversations is not None, (kind, written)
        assert summary.conversations.all.checked == 100, (kind, written)
        if "session" not in kind:
            # (About one conversation in ten has a call left unanswered: some, not all.)
            assert 0 < summary.conversations.all.with_problems < 100, (kind, written)
