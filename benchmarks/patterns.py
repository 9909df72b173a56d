"""What a ``pattern`` of many capture groups costs deep mode, with groups capturing (as
they were compiled before) and not (now): RE2's compile time, its program size, and the time to
match one 2 KB string, median of rounds.

    .venv/bin/python benchmarks/patterns.py [--groups 200 2000 20000] [--rounds 3]

Past :data:`~toolaudit.deep.patterns.MAX_PATTERN_LENGTH` characters a pattern is a
schema defect, never compiled: the 20,000-group rows say what that limit spares (with
groups capturing, one such call ran ten minutes at 2 GB, so that row is left out).
"""

from __future__ import annotations

import argparse
import statistics
import time

import re2

from toolaudit.deep.patterns import MAX_PATTERN_LENGTH, RE2_MAX_MEMORY, _translate

TEXT = "a" * 2048 + "b"
SHAPES = {"(a?)…$": lambda n: "(a?)" * n + "$", "^((x|a)…)?": lambda n: "^(" + "(x|a)" * n + ")?"}


def measured(pattern: str, capture: bool, rounds: int) -> tuple[float, int, float]:
    """(compile seconds, program size, match seconds): medians of ``rounds``."""
    options = re2.Options()
    options.log_errors = False
    options.never_capture = not capture
    options.max_mem = RE2_MAX_MEMORY
    compiles, matches = [], []
    for _ in range(rounds):
        start = time.perf_counter()
        compiled = re2.compile(_translate(pattern), options)
        compiles.append(time.perf_counter() - start)
        start = time.perf_counter()
        compiled.search(TEXT)
        matches.append(time.perf_counter() - start)
    return statistics.median(compiles), compiled.programsize, statistics.median(matches)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--groups", type=int, nargs="+", default=[200, 2000, 20000])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print("| pattern | groups | characters | groups capture | compile ms | program | match ms |")
    print("|---|---:|---:|---|---:|---:|---:|")
    for name, shape in SHAPES.items():
        for groups in args.groups:
            pattern = shape(groups)
            for capture in (True, False):
                if capture and groups > 5000:
                    continue  # minutes and gigabytes: the case the limits are for
                compile_s, size, match_s = measured(pattern, capture, args.rounds)
                refused = " (refused: too long)" if len(pattern) > MAX_PATTERN_LENGTH else ""
                print(
                    f"| `{name}` | {groups:,} | {len(pattern):,}{refused} | "
                    f"{'yes (before)' if capture else 'no (now)'} | {compile_s * 1e3:.1f} | "
                    f"{size:,} | {match_s * 1e3:.1f} |"
                )


if __name__ == "__main__":
    main()
