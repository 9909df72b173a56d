"""``toolaudit audit --dask`` against one process, on a log of about 1 GB.

Figures, not pass/fail (see README.md): each variant is ``toolaudit audit`` run as
a user runs it, a subprocess, start-up and the local cluster's start and stop
included; ``--repeat`` rounds, the variants interleaved round-robin so that the
noise of a shared machine spreads over all of them. Each target is judged on the
median of the rounds' ratios (a variant against one process in the same round);
the ratio of the medians is shown beside it. Two targets, on a
machine of two cores: ``--dask local:2`` at least 1.6x faster than one process,
``--dask local:1`` at most 1.15x slower (the cost of the cluster itself).

Beside them, the machine's own ceiling: two one-process runs of the summary at once,
as two workers run, with no cluster. Twice one run's time over the pair's says how
much of a second core this shared machine gives (2.00x: all of it); ``local:2``
cannot beat it, and its distance from it is what the cluster costs.

Each variant also writes its summary (and, with ``--report``, its report: one
file, or a directory of parts with --dask), and the first round checks that the
summary is byte for byte one process's, and that the parts concatenated by name
are the one-process report.

    .venv/bin/python benchmarks/dask_bench.py                 # summary only, then full report
    .venv/bin/python benchmarks/dask_bench.py --repeat 5 --skip-report
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from common import BenchmarkError, progress
from dataset import prepare_dataset, prepare_rss_log
from measure import audit_argv, run_child, toolaudit_executable

#: The generator's log of this many calls is repeated into the ~1 GB log.
BASE_CALLS = 1_000_000
SEED = 20261128
SPEEDUP_TARGET = 1.6
OVERHEAD_TARGET = 1.15


@dataclass
class Variant:
    key: str
    label: str
    dask: str | None
    report: bool
    #: How many copies of the run go at once (2: the machine's ceiling, no cluster).
    copies: int = 1
    seconds: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


def argv(
    exe: Path, log: Path, schemas: Path, variant: Variant, out: Path, copy: int = 0
) -> list[str]:
    suffix = f".{copy}" if copy else ""
    extra = ["--summary", str(out / f"{variant.key}{suffix}.summary.json")]
    if variant.report:
        extra += ["--report", str(out / f"{variant.key}{suffix}.report")]
    if variant.dask is not None:
        extra += ["--dask", variant.dask]
    return audit_argv(exe, log, schemas, *extra)


def run_copies(exe: Path, log: Path, schemas: Path, variant: Variant, out: Path) -> float:
    """Wall seconds of ``variant.copies`` runs of the variant started at once."""
    argvs = [argv(exe, log, schemas, variant, out, copy) for copy in range(variant.copies)]
    started = time.perf_counter()
    with ThreadPoolExecutor(len(argvs)) as pool:
        list(pool.map(run_child, argvs))
    return time.perf_counter() - started


def digest(path: Path) -> str:
    """The SHA-256 of a file, or of a directory's parts concatenated by name."""
    files = sorted(path.iterdir()) if path.is_dir() else [path]
    sha = hashlib.sha256()
    for file in files:
        with open(file, "rb") as data:
            while chunk := data.read(1 << 20):
                sha.update(chunk)
    return sha.hexdigest()


def one_process(group: list[Variant]) -> Variant:
    """The variant of a group that every other is compared with: one process, alone."""
    return next(v for v in group if v.dask is None and v.copies == 1)


def check_same(variants: list[Variant], out: Path) -> None:
    """Every variant's summary (and report) is one process's, byte for byte."""
    for report in (False, True):
        group = [v for v in variants if v.report == report]
        if not group:
            continue
        one = one_process(group)
        expected = (out / f"{one.key}.summary.json").read_bytes()
        for variant in group:
            if variant.copies > 1:
                continue  # the same run twice: the machine's ceiling, not a result
            if (out / f"{variant.key}.summary.json").read_bytes() != expected:
                raise BenchmarkError(f"{variant.label}: the summary differs from one process's")
        if report:
            reference = digest(out / f"{one.key}.report")
            for variant in group:
                if variant.copies > 1:
                    continue
                if digest(out / f"{variant.key}.report") != reference:
                    raise BenchmarkError(f"{variant.label}: the report differs from one process's")
    progress("  outputs checked: identical to one process's")


def clear(out: Path, variant: Variant) -> None:
    report = out / f"{variant.key}.report"
    if report.is_dir():
        shutil.rmtree(report)


def render(variants: list[Variant], log: Path, repeat: int) -> str:
    size = log.stat().st_size
    lines = [
        f"`toolaudit audit --dask` on {size / 1e9:.2f} GB ({log.name}), {os.cpu_count()} cores, "
        f"{repeat} interleaved rounds (load average at the end: "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}).",
        "",
        "| | variant | seconds | MB/s | medians' ratio | rounds' ratios | target |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for report in (False, True):
        group = [v for v in variants if v.report == report]
        if not group:
            continue
        one = one_process(group)
        for variant in group:
            # Judged on the rounds' ratios: a variant runs minutes from the one-process
            # run of its round, and the machine's speed drifts (see the note below).
            ratio = paired_ratio(one, variant) * variant.copies
            if variant.copies > 1:
                target = "the most local:2 can reach here"
            elif variant.dask == "local:2":
                target = f">= {SPEEDUP_TARGET}x faster: " + (
                    "met" if ratio >= SPEEDUP_TARGET else "not met"
                )
            elif variant.dask == "local:1":
                slower = 1 / ratio
                target = f"<= {OVERHEAD_TARGET}x slower ({slower:.2f}x): " + (
                    "met" if slower <= OVERHEAD_TARGET else "not met"
                )
            else:
                target = ""
            lines.append(
                f"| {variant.key} | {variant.label} | {variant.median:.1f} | "
                f"{variant.copies * size / variant.median / 1e6:.0f} | "
                f"{variant.copies * one.median / variant.median:.2f}x | "
                f"{ratio:.2f}x | {target} |"
            )
    lines += [
        "",
        "Rounds' ratios: the median over the rounds of one process's time over the "
        "variant's in the same round. A shared machine's speed drifts by up to a quarter "
        "over minutes: runs side by side in one round compare better than medians taken "
        "over rounds. Rows p and q run the one-process audit twice at once (q with the "
        "report): their MB/s and ratios count both runs' work.",
    ]
    return "\n".join(lines) + "\n"


def paired_ratio(one: Variant, variant: Variant) -> float:
    """The median, over the rounds, of one process's time over the variant's."""
    return statistics.median(a / b for a, b in zip(one.seconds, variant.seconds, strict=True))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=6_000_000, help="lines of the log (~170 B)")
    parser.add_argument("--repeat", type=int, default=3, help="interleaved rounds (default: 3)")
    parser.add_argument("--skip-report", action="store_true", help="summary-only variants alone")
    args = parser.parse_args()
    try:
        exe = toolaudit_executable()
        dataset = prepare_dataset(BASE_CALLS, SEED)
        log = prepare_rss_log(dataset, BASE_CALLS, args.lines)
        variants = [
            Variant("a", "one process, summary only", None, False),
            Variant("b", "--dask local:2, summary only", "local:2", False),
            Variant("c", "--dask local:1, summary only", "local:1", False),
            Variant("p", "two one-process runs at once, summary only", None, False, copies=2),
        ]
        if not args.skip_report:
            variants += [
                Variant("d", "one process, --report FILE", None, True),
                Variant("e", "--dask local:2, --report DIR (parts)", "local:2", True),
                Variant("f", "--dask local:1, --report DIR (parts)", "local:1", True),
                Variant("q", "two one-process runs at once, --report FILE", None, True, copies=2),
            ]
        with tempfile.TemporaryDirectory(prefix="dask-bench-", dir=log.parent) as temporary:
            out = Path(temporary)
            for round_number in range(1, args.repeat + 1):
                for variant in variants:
                    clear(out, variant)
                    seconds = run_copies(exe, log, dataset.schemas, variant, out)
                    variant.seconds.append(seconds)
                    round_name = f"round {round_number}/{args.repeat}"
                    progress(f"  {round_name}  {variant.key}  {seconds:7.2f}s")
                if round_number == 1:
                    check_same(variants, out)
    except BenchmarkError as error:
        print(f"dask_bench: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(render(variants, log, args.repeat))
    return 0


if __name__ == "__main__":
    sys.exit(main())
