"""The Markdown report: header, timings, derived figures against the targets, checks.

It goes to stdout and, with ``--write-readme``, between the results markers of
benchmarks/README.md, whose other sections (what each row means, the targets)
are written by hand.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.metadata
import os
import platform
import subprocess
from pathlib import Path

import orjson

from common import BENCH_DIR, atomic_path
from dataset import Dataset, NestedDataset
from measure import RssResult, Variant
from nested import NESTED_GENERATOR_VERSION
from nested_tools import NESTED_TOOL_NAMES
from synthetic import GENERATOR_VERSION

README = BENCH_DIR / "README.md"
#: The start-up figures: (seconds, peak RSS in KiB) of `--version`, then of a one-line audit.
Startup = tuple[tuple[float, int], tuple[float, int]]
RESULTS_START = "<!-- results start -->"
RESULTS_END = "<!-- results end -->"

# The targets of the performance issues (--jobs 2: 1.7x at first, 1.8x since the typed path).
TARGET_SUMMARY_VS_FLOOR = 1.6
TARGET_REPORT_VS_FLOOR = 2.0
TARGET_JOBS_SPEEDUP = 1.8
TARGET_GZIP_VS_PLAIN = 1.5
#: Deep mode on the flat log, summary only and full report, over plain mode.
TARGET_DEEP_VS_PLAIN = 1.3
TARGET_PEAK_RSS_MB = 100.0
TARGET_RSS_GROWTH = 0.10


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
    sources: str,
    exe: Path,
    dataset: Dataset,
    nested: NestedDataset | None,
    args: argparse.Namespace,
    variants: list[Variant],
    nested_variants: list[Variant],
    startup: Startup,
    rss: RssResult | None,
    checks: list[str],
) -> str:
    """The whole report, in Markdown: header, timings (the flat log's, then the nested
    log's), derived figures, checks."""
    lines = render_header(exe, sources, dataset, nested, args)
    lines += render_timings(variants, dataset.expected.lines)
    if nested is not None:
        lines += [
            "On the nested log (deep mode's; every error inside the arguments, so plain mode "
            "finds none), ratios to its own floor, row n:",
            "",
        ]
        lines += render_timings(nested_variants, nested.expected.lines)
    medians = {v.key: v.median for v in variants + nested_variants}
    lines += render_figures(medians, startup, rss, deep=nested is not None)
    lines += ["Checks:", ""] + [f"- {check}" for check in checks]
    return "\n".join(lines) + "\n"


def render_header(
    exe: Path,
    sources: str,
    dataset: Dataset,
    nested: NestedDataset | None,
    args: argparse.Namespace,
) -> list[str]:
    now = dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    rss_args = "--skip-rss" if args.skip_rss else f"--rss-calls {args.rss_calls}"
    deep_args = "--skip-deep" if nested is None else f"--nested-calls {args.nested_calls}"
    command = (
        f"benchmarks/run.py --calls {args.calls} --repeat {args.repeat} {rss_args} {deep_args}"
    )
    versions = [
        f"Python {platform.python_version()}",
        f"orjson {orjson.__version__}",
        f"toolaudit {toolaudit_version(exe)} ({sources})",
        f"google-re2 {package_version('google-re2')}",
        f"jsonschema {package_version('jsonschema')}",
        f"fastjsonschema {package_version('fastjsonschema')}",
    ]
    inputs = [f"- input: {describe_input(dataset, args.seed)}"]
    if nested is not None:
        inputs.append(f"- nested input: {describe_nested_input(nested, args.seed)}")
    return [
        f"Measured {now} with `{command}`.",
        "",
        f"- machine: {describe_machine()}",
        f"- {', '.join(versions)}",
        *inputs,
        (
            f"- times: median of {args.repeat}, all rows interleaved round-robin; "
            "ratios are to the floor's median"
        ),
        "",
    ]


def describe_machine() -> str:
    return f"{cpu_model()}, {usable_cores()} cores, {platform.system()} {platform.release()}"


def describe_input(dataset: Dataset, seed: int) -> str:
    expected = dataset.expected
    size, gz_size = expected.bytes, dataset.gz.stat().st_size
    return (
        f"{expected.lines:,} lines, {size / 1e6:.1f} MB "
        f"({size / expected.lines:.0f} bytes a line), gzip {gz_size / 1e6:.1f} MB; "
        f"{expected.invalid:,} invalid calls and {expected.malformed_records:,} malformed lines "
        f"(error rate {expected.error_rate:.1%}); generator v{GENERATOR_VERSION}, seed {seed}"
    )


def describe_nested_input(nested: NestedDataset, seed: int) -> str:
    expected = nested.expected
    size = expected.bytes
    kinds = ", ".join(f"{n:,} {kind}" for kind, n in sorted(expected.by_kind.items()))
    return (
        f"{expected.lines:,} lines, {size / 1e6:.1f} MB "
        f"({size / expected.lines:.0f} bytes a line), {len(NESTED_TOOL_NAMES)} tools; "
        f"{expected.invalid:,} invalid calls (error rate {expected.error_rate:.1%}), "
        f"errors {kinds}; nested generator v{NESTED_GENERATOR_VERSION}, seed {seed}"
    )


def render_timings(variants: list[Variant], calls: int) -> list[str]:
    """A table of rows whose first is their floor, the denominator of their ratios."""
    floor = variants[0].median
    assert floor is not None and variants[0].key in ("a", "n")
    rows = [timing_row(v, floor, calls) for v in variants]
    header = ["row", "measurement", "median s", "calls/s", "vs floor", "target", "status"]
    return [*markdown_table(header, rows, "llrrrll"), ""]


def timing_row(variant: Variant, floor: float, calls: int) -> list[str]:
    """A row of the timings: its median, speed, ratio to the floor and target, if any."""
    median = variant.median
    if median is None:
        return [variant.key, variant.label, variant.unavailable, "—", "—", "—", "—"]
    limits = {"b": TARGET_SUMMARY_VS_FLOOR, "c": TARGET_REPORT_VS_FLOOR}
    elsewhere = {
        "d": "speedup, below",
        "d2": "speedup, below",
        "e": "gzip / plain, below",
        "g1": "deep / plain, below",
        "g2": "deep / plain, below",
    }
    ratio = median / floor
    target, status = elsewhere.get(variant.key, "—"), "—"
    if variant.key in limits:
        limit = limits[variant.key]
        target, status = f"≤ {limit:.2f}x floor", met(ratio <= limit)
    return [
        variant.key,
        variant.label,
        f"{median:.3f}",
        f"{calls / median:,.0f}",
        f"{ratio:.2f}x",
        target,
        status,
    ]


def render_figures(
    medians: dict[str, float | None],
    startup: Startup,
    rss: RssResult | None,
    deep: bool,
) -> list[str]:
    """The figures derived from the rows: speedups, gzip cost, deep mode's cost, peak RSS,
    start-up."""
    figures = [
        *speed_figures(medians),
        *deep_figures(medians if deep else None),
        *rss_figures(rss),
        *startup_figures(startup),
    ]
    return [*markdown_table(["figure", "value", "target", "status"], figures, "lrll"), ""]


def speed_figures(medians: dict[str, float | None]) -> list[list[str]]:
    summary, report, jobs, jobs_report, gz = (
        always_run(medians, key) for key in ("b", "c", "d", "d2", "e")
    )
    speedup = summary / jobs
    return [
        [
            "`--jobs 2` speedup over one process (b / d)",
            f"{speedup:.2f}x",
            f"≥ {TARGET_JOBS_SPEEDUP:.2f}x",
            met(speedup >= TARGET_JOBS_SPEEDUP),
        ],
        [
            "`--jobs 2` speedup writing the full report (c / d2)",
            f"{report / jobs_report:.2f}x",
            "—",
            "—",
        ],
        [
            "gzip / plain (e / b)",
            f"{gz / summary:.2f}x",
            f"≤ {TARGET_GZIP_VS_PLAIN:.2f}x",
            met(gz / summary <= TARGET_GZIP_VS_PLAIN),
        ],
    ]


def deep_figures(medians: dict[str, float | None] | None) -> list[list[str]]:
    """Deep mode over plain mode: on the flat log (the targets), on the nested log."""
    target = f"≤ {TARGET_DEEP_VS_PLAIN:.2f}x"
    if medians is None:
        return [["deep / plain, flat log", "skipped (--skip-deep)", target, "—"]]
    figures = []
    for what, deep, plain in (("summary only", "g1", "b"), ("full report", "g2", "c")):
        ratio = always_run(medians, deep) / always_run(medians, plain)
        figures.append(
            [
                f"deep / plain, flat log, {what} ({deep} / {plain})",
                f"{ratio:.2f}x",
                target,
                met(ratio <= TARGET_DEEP_VS_PLAIN),
            ]
        )
    for what, deep, plain in (("summary only", "n3", "n1"), ("full report", "n4", "n2")):
        ratio = always_run(medians, deep) / always_run(medians, plain)
        figures.append(
            [f"deep / plain, nested log, {what} ({deep} / {plain})", f"{ratio:.2f}x", "—", "—"]
        )
    return figures


def always_run(medians: dict[str, float | None], key: str) -> float:
    """The median of a toolaudit row: those rows need nothing optional, so they always run."""
    median = medians[key]
    assert median is not None, f"row {key} did not run"
    return median


def rss_figures(rss: RssResult | None) -> list[list[str]]:
    target = f"≤ {TARGET_PEAK_RSS_MB:.0f} MB"
    if rss is None:
        return [["peak RSS", "skipped (--skip-rss)", target, "—"]]
    figures = []
    for calls, run in ((rss.calls, rss.base), (rss.rss_calls, rss.big)):
        peak = mb(run.peak_rss_kib)
        speed = f"{run.seconds:.1f} s, {calls / run.seconds:,.0f} calls/s"
        figures.append(
            [
                f"peak RSS, summary only, {calls:,} lines ({speed})",
                f"{peak:.1f} MB",
                target,
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
    return figures


def startup_figures(startup: Startup) -> list[list[str]]:
    (version, version_kib), (audit, audit_kib) = startup
    return [
        [
            "start-up: `toolaudit --version` (median of 10; its peak RSS)",
            f"{version * 1000:.0f} ms ({mb(version_kib):.1f} MB)",
            "—",
            "—",
        ],
        [
            "start-up: `toolaudit audit` of the log's first line, summary only (median of 10)",
            f"{audit * 1000:.0f} ms ({mb(audit_kib):.1f} MB)",
            "—",
            "—",
        ],
    ]


def write_readme(results: str) -> None:
    """Replace what lies between the results markers (adding them, or the README, if needed)."""
    text = README.read_text(encoding="utf-8") if README.exists() else "# Benchmarks\n"
    start, end = text.find(RESULTS_START), text.find(RESULTS_END)
    if start < 0 or end < start:
        text = text.rstrip("\n") + f"\n\n## Latest results\n\n{RESULTS_START}\n{RESULTS_END}\n"
        start, end = text.find(RESULTS_START), text.find(RESULTS_END)
    text = text[: start + len(RESULTS_START)] + "\n" + results + text[end:]
    with atomic_path(README) as partial:
        partial.write_text(text, encoding="utf-8")
