"""What scoring against ground truth costs: ``toolaudit audit --expected`` beside the
plain audit of the same log, side by side in one run.

The issue's bound is that scoring costs the audit at most 10% more. Each log's rows run
round-robin, each round starting one row later (a row run after one that wrote a file
pays for its writeback), and the figures are ratios of medians, with the range of the
rounds' own ratios beside them; absolute seconds mean little on a shared machine.

- **flat**: the synthetic log of ``--calls`` flat calls (dataset.py), and an expected
  file made from it: each record's call as its expected call, about 20% of entries made
  to differ (another value, another tool, no call expected) and about 1% more ids that
  no record has. Rows: the plain audit (summary only); the same with the fast paths off
  (``Audit.typed_fast_path`` / ``inline_fast_path``), the path a scored run reads every
  line on, like for like; ``--expected``; ``--expected --scores FILE``. Then peak RSS.
- **bfcl**: the BFCL result fixtures of the categories with possible answers
  (tests/fixtures/bfcl/reproduce/), their question files as ``--schemas`` and possible
  answers as ``--expected``, all ``--copies`` times over with ids suffixed ``-N``: a log
  the general path reads anyway. Rows: plain, ``--expected``, ``--match bfcl``,
  ``--expected --scores FILE``.
- **openai**: the OpenAI Chat log of providers_bench.py, its expected file made as the
  flat log's, the records' ``id`` as ``--expected-key``; rows as the flat log's.

With ``--before SRC`` (another checkout's ``src/``, such as ``git archive``'s of an
earlier commit), the scored rows of those sources run too, in the same rounds: before
and after side by side on one noisy machine.

Checks: the scored runs' summaries equal the plain run's but for ``ground_truth``, whose
outcomes are those the generator meant; ``--match bfcl`` counts as many correct entries
as BFCL's score files, times the copies.

    .venv/bin/python benchmarks/scoring.py [--calls N] [--copies K] [--repeat R] [--before SRC]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import orjson

from common import DATA_DIR, BenchmarkError, progress, source_state
from dataset import prepare_dataset
from measure import ChildRun, Variant, audit_argv, compile_bytecode, run_child
from providers import provider_log
from scoring_data import flat_records, openai_records, write_bfcl, write_expected

SEED = 20261128
#: The issue's bound: a scored audit takes at most this times the plain one.
TARGET = 1.10

#: Runs the CLI of the sources at sys.argv[1] (those this script imported), after the
#: setup in ``{setup}``.
LAUNCHER = (
    "import sys; sys.path.insert(0, sys.argv.pop(1)); {setup}"
    "from toolaudit.cli import app; sys.argv[0] = 'toolaudit'; app()"
)
#: The setup of the like-for-like plain audit: every line on the general path, as a
#: scored run reads them.
FAST_PATHS_OFF = (
    "from toolaudit.pipeline.audit import Audit; "
    "Audit.typed_fast_path = Audit.inline_fast_path = False; "
)


class Rows:
    """The rows of one log, timed in rounds; each keeps its runs and its last stdout
    (the summary, for the checks)."""

    def __init__(self, name: str, src: Path, log: Path, schemas: Path) -> None:
        self.name, self.src, self.log, self.schemas = name, src, log, schemas
        self.variants: dict[str, Variant] = {}
        self.runs: dict[str, list[ChildRun]] = {}

    def out(self, key: str) -> Path:
        return DATA_DIR / f"scoring-{self.name}-{key}.json"

    def add(
        self, key: str, label: str, *extra: str, setup: str = "", src: Path | None = None
    ) -> None:
        """A row: the audit with ``extra`` options, of the sources at ``src`` (None:
        those this script imported)."""
        argv = audit_argv(Path(sys.executable), self.log, self.schemas, *extra)
        argv[:1] = [sys.executable, "-c", LAUNCHER.format(setup=setup), str(src or self.src)]

        def run() -> float:
            done = run_child(argv, self.out(key))
            self.runs.setdefault(key, []).append(done)
            return done.seconds

        self.variants[key] = Variant(key, label, run)

    def measure(self, repeat: int) -> None:
        """Round-robin, each round starting one row later: the row after one that wrote
        a file pays for its writeback, so no row always follows the same one."""
        progress(f"{self.name}: {len(self.variants)} rows, {repeat} rounds ...")
        variants = list(self.variants.values())
        for round_number in range(repeat):
            shift = round_number % len(variants)
            for variant in variants[shift:] + variants[:shift]:
                assert variant.run is not None
                variant.seconds.append(variant.run())
                progress(
                    f"  round {round_number + 1}/{repeat}  {variant.key:>8}  "
                    f"{variant.seconds[-1]:7.3f}s"
                )

    def median(self, key: str) -> float:
        return statistics.median(self.variants[key].seconds)

    def ratio(self, key: str, base: str) -> str:
        """The ratio of the medians, and the range of the rounds' own ratios."""
        pairs = zip(self.variants[key].seconds, self.variants[base].seconds, strict=True)
        rounds = [mine / theirs for mine, theirs in pairs]
        return (
            f"{self.median(key) / self.median(base):.3f}x "
            f"(rounds {min(rounds):.3f}x to {max(rounds):.3f}x)"
        )

    def table(self, bases: tuple[str, ...]) -> None:
        print(f"\n| row | variant | median s | {' | '.join(f'x {b}' for b in bases)} |")
        print(f"|---|---|---:|{'---:|' * len(bases)}")
        for key, variant in self.variants.items():
            ratios = " | ".join(f"{self.median(key) / self.median(b):.3f}x" for b in bases)
            print(f"| {key} | {variant.label} | {self.median(key):.3f} | {ratios} |")

    def ratios(self, scored: tuple[str, ...], bases: tuple[str, ...]) -> None:
        print()
        for key in scored:
            for base in bases:
                verdict = ""
                if base == "plain":
                    met = self.median(key) / self.median(base) <= TARGET
                    verdict = f"; <= {TARGET:.2f}x: {'met' if met else 'not met'}"
                print(f"- {key} / {base}: {self.ratio(key, base)}{verdict}")

    def summary(self, key: str) -> dict[str, Any]:
        summary: dict[str, Any] = orjson.loads(self.out(key).read_bytes())
        return summary


def check(rows: Rows, scored: str, outcomes: Counter[str] | None = None) -> str:
    """Whether a scored run's summary is the plain run's plus its ground truth, and
    (given them) the ground truth's outcomes the ones meant."""
    plain, mine = rows.summary("plain"), rows.summary(scored)
    plain.pop("ground_truth", None)
    truth = mine.pop("ground_truth", None)
    problems = []
    differ = sorted(key for key in plain.keys() | mine.keys() if plain.get(key) != mine.get(key))
    if differ:
        problems.append(f"its summary differs from the plain audit's in {', '.join(differ)}")
    if truth is None:
        problems.append("it has no ground truth")
    elif outcomes is not None:
        found = {outcome: n for outcome, n in truth["outcomes"].items() if n}
        if found != dict(outcomes):
            problems.append(f"outcomes {found}, meant {dict(outcomes)}")
    return f"- {rows.name}, {scored}: " + ("; ".join(problems) if problems else "as meant")


def scored_rows(
    name: str, src: Path, log: Path, schemas: Path, *key: str, before: Path | None = None
) -> Rows:
    """The rows of a log scored against the expected file of its own calls, which the
    caller writes to ``expected_path(name)``; with ``before``, the scored rows of the
    sources there too, in the same rounds."""
    expected = str(expected_path(name))
    scores = str(scores_path(name))
    rows = Rows(name, src, log, schemas)
    rows.add("plain", "summary only")
    rows.add("general", "summary only, the fast paths off", setup=FAST_PATHS_OFF)
    rows.add("expected", "--expected FILE", "--expected", expected, *key)
    rows.add(
        "scores", "--expected FILE --scores FILE", "--expected", expected, *key, "--scores", scores
    )
    if before is not None:
        add_before(rows, before, ("--expected", expected, *key), ("--scores", scores))
    return rows


def add_before(
    rows: Rows, before: Path, expected: tuple[str, ...], scores: tuple[str, ...]
) -> None:
    """The scored rows of the sources at ``before`` (``--before``)."""
    rows.add("expected-before", "--expected FILE, before", *expected, src=before)
    rows.add("scores-before", "--scores FILE too, before", *expected, *scores, src=before)


def expected_path(name: str) -> Path:
    return DATA_DIR / f"scoring-{name}-expected.jsonl"


def scores_path(name: str) -> Path:
    return DATA_DIR / f"scoring-{name}-scores.jsonl"


def scores_written(path: Path, entries: int) -> str:
    """Whether --scores wrote a line per expected entry."""
    with open(path, "rb") as lines:
        written = sum(1 for _ in lines)
    verdict = "one line per entry" if written == entries else f"MISMATCH: {written:,} lines"
    return f"- {path.name}: {verdict} ({entries:,} entries)"


def report_scored(rows: Rows, what: str, outcomes: Counter[str]) -> list[str]:
    before = "expected-before" in rows.variants
    """Print a scored log's table and ratios; its checks."""
    entries = sum(outcomes.values())
    changed = entries - outcomes["correct"] - outcomes["no_record"]
    print(
        f"\n{rows.name}: {what}; expected: {entries:,} entries, {changed:,} of them changed, "
        f"{outcomes['no_record']:,} ids that no record has"
    )
    rows.table(("plain", "general"))
    rows.ratios(("expected", "scores"), ("plain", "general"))
    checks = [
        check(rows, "expected", outcomes),
        check(rows, "scores", outcomes),
        scores_written(scores_path(rows.name), entries),
    ]
    if before:
        rows.ratios(("expected-before", "scores-before"), ("plain",))
        checks.append(check(rows, "expected-before", outcomes))
    return checks


def flat(args: argparse.Namespace, src: Path) -> list[str]:
    dataset = prepare_dataset(args.calls, SEED)
    outcomes = write_expected(expected_path("flat"), flat_records(dataset.log), SEED)
    rows = scored_rows("flat", src, dataset.log, dataset.schemas, before=args.before)
    rows.measure(args.repeat)
    size = dataset.log.stat().st_size / 1e6
    checks = report_scored(rows, f"{args.calls:,} flat calls, {size:.1f} MB", outcomes)
    print("\n| peak RSS (the most of the rounds) | MB | x plain |")
    print("|---|---:|---:|")
    plain = max(run.peak_rss_kib for run in rows.runs["plain"])
    for key, variant in rows.variants.items():
        peak = max(run.peak_rss_kib for run in rows.runs[key])
        print(f"| {key}: {variant.label} | {peak / 1024:.1f} | {peak / plain:.2f}x |")
    return checks


def openai(args: argparse.Namespace, src: Path) -> list[str]:
    schemas = prepare_dataset(args.calls, SEED).schemas
    log = provider_log("openai", args.calls, SEED)
    outcomes = write_expected(expected_path("openai"), openai_records(log), SEED)
    rows = scored_rows("openai", src, log, schemas, "--expected-key", "id", before=args.before)
    rows.measure(args.repeat)
    size = log.stat().st_size / 1e6
    return report_scored(rows, f"{args.calls:,} OpenAI Chat responses, {size:.1f} MB", outcomes)


def bfcl(args: argparse.Namespace, src: Path) -> list[str]:
    log, questions, answers = (
        DATA_DIR / f"scoring-bfcl-{part}.jsonl" for part in ("log", "questions", "answers")
    )
    entries, correct = write_bfcl(log, questions, answers, args.copies)
    rows = Rows("bfcl", src, log, questions)
    scores = str(scores_path("bfcl"))
    rows.add("plain", "summary only")
    rows.add("expected", "--expected FILE", "--expected", str(answers))
    rows.add("bfcl", "--expected FILE --match bfcl", "--expected", str(answers), "--match", "bfcl")
    rows.add(
        "scores", "--expected FILE --scores FILE", "--expected", str(answers), "--scores", scores
    )
    if args.before is not None:
        add_before(rows, args.before, ("--expected", str(answers)), ("--scores", scores))
    rows.measure(args.repeat)
    size = log.stat().st_size / 1e6
    print(f"\nbfcl: {entries:,} results (the fixtures {args.copies} times over), {size:.1f} MB")
    rows.table(("plain",))
    before = ("expected-before", "scores-before") if args.before is not None else ()
    rows.ratios(("expected", "bfcl", "scores", *before), ("plain",))
    found = rows.summary("bfcl")["ground_truth"]["correct"]
    agree = "as" if found == correct else f"MISMATCH: {found:,} where"
    return [
        check(rows, "expected"),
        check(rows, "bfcl"),
        check(rows, "scores"),
        scores_written(scores_path("bfcl"), entries),
        f"- bfcl, --match bfcl: {agree} BFCL's score files call {correct:,} entries correct",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--calls", type=int, default=300_000, help="lines of the flat and OpenAI logs"
    )
    parser.add_argument("--copies", type=int, default=20, help="copies of the BFCL fixtures")
    parser.add_argument("--repeat", type=int, default=5, help="rounds (medians are reported)")
    parser.add_argument("--skip-openai", action="store_true", help="leave the OpenAI log out")
    parser.add_argument(
        "--before",
        type=Path,
        help="a checkout's src/ whose scored runs are timed too, in the same rounds",
    )
    args = parser.parse_args(argv)
    try:
        import toolaudit

        package = Path(toolaudit.__file__).parent
        compile_bytecode(package)
        state = source_state()
        print(f"toolaudit from {package.parent}, {state}; medians of {args.repeat} rounds")
        checks = flat(args, package.parent) + bfcl(args, package.parent)
        if not args.skip_openai:
            checks += openai(args, package.parent)
    except BenchmarkError as error:
        print(f"benchmarks/scoring.py: error: {error}", file=sys.stderr)
        return 2
    print("\nChecks:\n")
    print("\n".join(checks))
    if source_state() != state:
        print("\nwarning: src/ changed while this ran: the rows may time different code")
    return 0


if __name__ == "__main__":
    sys.exit(main())
