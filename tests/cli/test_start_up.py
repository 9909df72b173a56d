"""What ``toolaudit audit`` loads: a plain audit leaves the ground-truth machinery, the
comparisons, the boundary API's repairs and pydantic unloaded (their imports are start-up
every run would pay for nothing; benchmarks/README.md), and an audit with --expected loads
and uses them.

Each audit runs in a fresh interpreter, as a user's does: in this process, other tests
have long loaded everything.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

CASE = Path(__file__).resolve().parents[1] / "cases" / "formats" / "openai-chat"
#: A record of valid calls that carries its tools: the audit exits 0.
RECORD = (CASE / "input.jsonl").read_text().splitlines()[0]

#: Modules a plain audit has no use for.
NOT_FOR_A_PLAIN_AUDIT = (
    "toolaudit.truth",
    "toolaudit.truth.expectations",
    "toolaudit.results.ground_truth",
    "toolaudit.output.ground_truth",
    "toolaudit.results.score_compare",
    "toolaudit.pipeline.scoring",
    "toolaudit.history.boundary",
    "toolaudit.history.repair",
    "statistics",
    # Typer 0.29 and later import it for every command, doubling the start-up: pinned below.
    "pydantic",
)

_AUDIT = """
import json, sys
from toolaudit.cli import main
found, sys.argv = sys.argv[1], ["toolaudit", *sys.argv[2:]]
try:
    main()
finally:
    with open(found, "w") as file:
        json.dump(sorted(set(json.loads(sys.stdin.read())) & set(sys.modules)), file)
"""


def _audit(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """The command line's run in a new interpreter, and which of NOT_FOR_A_PLAIN_AUDIT
    it loaded."""
    found = tmp_path / "loaded.json"
    run = subprocess.run(
        [sys.executable, "-c", _AUDIT, str(found), "audit", *args, "--no-progress"],
        input=json.dumps(NOT_FOR_A_PLAIN_AUDIT),
        capture_output=True,
        text=True,
    )
    return run, json.loads(found.read_text())


def _log(tmp_path: Path) -> Path:
    log = tmp_path / "log.jsonl"
    log.write_text(RECORD + "\n")
    return log


def test_a_plain_audit_loads_no_ground_truth_nor_boundary_machinery(tmp_path):
    log = str(_log(tmp_path))
    run, loaded = _audit(tmp_path, log, "--format", "json", "--summary", str(tmp_path / "s.json"))
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["calls"] > 0  # it did audit
    assert loaded == []


def test_a_plain_audit_with_the_table_loads_no_ground_truth(tmp_path):
    # The table (the default output) renders a ground-truth block only for a summary
    # that has one: its renderer, and the truth modules behind it, load only then.
    log = str(_log(tmp_path))
    run, loaded = _audit(tmp_path, log, "--summary", str(tmp_path / "s.json"))
    assert run.returncode == 0, run.stderr
    assert "calls" in run.stdout  # the table was rendered
    assert loaded == []


def test_an_audit_with_expected_calls_loads_and_scores_them(tmp_path):
    # The check above can fail: these are the modules an audit with --expected uses.
    first = json.loads(RECORD)
    calls = [
        {"name": call["function"]["name"], "arguments": json.loads(call["function"]["arguments"])}
        for call in first["response"]["choices"][0]["message"]["tool_calls"]
    ]
    expected = tmp_path / "expected.jsonl"
    expected.write_text(json.dumps({"id": first["response"]["id"], "calls": calls}) + "\n")
    run, loaded = _audit(
        tmp_path, str(_log(tmp_path)), "--format", "json",
        "--expected", str(expected), "--expected-key", "response.id",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["ground_truth"]["correct"] == 1
    assert "toolaudit.results.ground_truth" in loaded and "toolaudit.truth" in loaded
    assert "toolaudit.pipeline.scoring" in loaded and "statistics" in loaded
