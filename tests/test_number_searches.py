"""The searches that tell a JSON line may hold a number orjson reads otherwise than the
exact parse (so that the readers parse it again exactly), in C and in pure Python: never a
miss, each C search exactly its pattern, and no false alarm for words that look like an
exponent's start (``claude-sonnet``)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolaudit
from toolaudit import jsonutil
from toolaudit.jsonutil import (
    LONG_DIGITS,
    may_be_misread_by_orjson,
    may_hold_long_integers,
    may_hold_misread_numbers,
    may_hold_numbers_beyond_a_double,
    may_hold_tiny_numbers,
    opening_brackets,
    orjson_may_differ,
)

#: Numbers below a double's range (each a tiny one), and numbers that are not.
TINY = ["1e-400", "-1.5E-0400", "2e-99999", "0.1e-324", "7E-1000"]
NOT_TINY = ["1e-99", "-2.5E-7", "3e400", "1e+400", "12", "1.0", "-0.0", "9E-12"]
WORDS = ["claude-sonnet-4-5", "one-time", "E-mail", "pre-400", "e-400", "x E-123", "re-e-"]

#: Each search, and the pattern it is exactly (in C; the pure one may raise a false alarm).
PATTERNS = {
    may_hold_long_integers: re.compile(rb"[0-9]{19}"),
    may_hold_numbers_beyond_a_double: re.compile(rb"[eE][+-]?[0-9]{3}"),
    orjson_may_differ: re.compile(rb"[0-9]{19}|[eE][+-]?[0-9]{3}"),
    may_hold_tiny_numbers: re.compile(rb"[0-9][eE]-[0-9]{3}"),
    may_be_misread_by_orjson: re.compile(rb"[0-9]{19}|[0-9][eE]-[0-9]{3}"),
    may_hold_misread_numbers: re.compile(
        rb"[0-9][eE]-[0-9]{3}|[0-9][eE][+-]?[0-9]{4,}(?:[,\]} \t\r\n]|\Z)|[0-9]{%d}" % LONG_DIGITS
    ),
}
#: Bytes that make the patterns' pieces likely in random texts.
PIECES = st.lists(
    st.sampled_from(
        # (and "a" * 40: texts past 32 and 64 bytes, as the C search reads them)
        [
            b"1",
            b"9",
            b"0" * 10,
            b"e",
            b"E",
            b"-",
            b"+",
            b"[",
            b"{",
            b" ",
            b'"',
            b"x",
            b"1e",
            b"1234",
            b",",
            b"}",
            b"]",
            b"\n",
            b"\t",
            b"a" * 40,
        ]
    ),
    max_size=60,
).map(b"".join)


@pytest.fixture(params=["c", "pure"])
def searches(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param == "c" and jsonutil._TEXT_SPEEDUPS is None:
        pytest.skip("the C searches were not built (no C compiler)")
    with pytest.MonkeyPatch.context() as patch:
        if request.param == "pure":
            patch.setattr(jsonutil, "_TEXT_SPEEDUPS", None)
            patch.setattr(jsonutil, "_NUMBER_MARKS_IN_C", None)
        yield request.param


#: The fixture's searches hold for every example of a test.
ONE_FIXTURE = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])


@ONE_FIXTURE
@given(
    st.lists(st.sampled_from(NOT_TINY), max_size=6),
    st.lists(st.sampled_from(WORDS), max_size=12),
    st.lists(st.sampled_from(TINY), max_size=2),
)
def test_a_tiny_number_is_always_found_and_words_raise_no_alarm(
    searches: str, others: list[str], words: list[str], tiny: list[str]
) -> None:
    text = "[" + ",".join([*others, *tiny]) + "," + orjson.dumps(words).decode() + "]"
    found = may_hold_tiny_numbers(text.encode())
    assert may_hold_tiny_numbers(text) is found  # (a call's arguments are text)
    assert may_be_misread_by_orjson(text.encode()) is found  # (no run of 19 digits here)
    assert found or not tiny  # never a miss
    if searches == "c" or text.count("e-") + text.count("E-") <= 8:
        assert found is bool(tiny)  # (the pure search of many marks may raise an alarm)


def test_a_text_of_many_marks_is_searched_all_at_once(searches: str) -> None:
    words = orjson.dumps(["one-" * 50, "claude-" * 50])
    assert not may_hold_tiny_numbers(words)
    assert may_hold_tiny_numbers(words[:-1] + b",1e-400]")


@ONE_FIXTURE
@given(st.one_of(PIECES, st.binary(max_size=80), st.binary(min_size=60, max_size=300)))
def test_each_search_finds_its_pattern(searches: str, data: bytes) -> None:
    for search, pattern in PATTERNS.items():
        found = pattern.search(data) is not None
        if searches == "c" or search not in (may_hold_tiny_numbers, may_be_misread_by_orjson):
            assert search(data) is found, (search.__name__, data)
        else:  # the pure search of many marks may raise a false alarm, never miss
            assert search(data) or not found
    assert opening_brackets(data) == data.count(b"[") + data.count(b"{")


def test_texts_and_any_buffer_are_searched(searches: str) -> None:
    assert may_hold_long_integers("18446744073709551617")
    assert may_hold_numbers_beyond_a_double("1e400")
    if searches == "c":
        assert orjson_may_differ(memoryview(b"[1e400]"))  # type: ignore[arg-type]


def test_toolaudit_pure_python_turns_the_c_searches_off() -> None:
    probe = "from toolaudit import jsonutil; print(jsonutil._TEXT_SPEEDUPS is None)"
    env = {**os.environ, "TOOLAUDIT_PURE_PYTHON": "1"}
    ran = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True)
    assert ran.stdout.decode().strip() == "True", ran.stderr.decode()


@pytest.mark.parametrize("where", range(6))
def test_a_number_is_found_wherever_it_begins(searches: str, where: int) -> None:
    # (the C search looks at every third byte: a number found at any offset)
    for number, search in (
        (b"9" * 19, may_hold_long_integers),
        (b"e+123", orjson_may_differ),
        (b"1e-123", may_be_misread_by_orjson),
        (b"9" * 19, may_be_misread_by_orjson),
    ):
        assert search(b" " * where + number)
        assert search(b" " * where + number + b"]")
    assert not orjson_may_differ(b" " * where + b"e+12")


def test_the_bounds_of_each_pattern(searches: str) -> None:
    assert not may_hold_long_integers(b"[" + b"9" * 18 + b"]")
    assert may_hold_long_integers(b"[" + b"9" * 19 + b"]")
    assert not may_hold_numbers_beyond_a_double(b"[1e99, 1e+99, 1E-99]")
    assert may_hold_numbers_beyond_a_double(b"[1e+100]")
    assert not may_hold_tiny_numbers(b"[1e-99, 1e+400, 1e400]")
    assert may_hold_tiny_numbers(b"[1E-400]")
    assert not may_be_misread_by_orjson(b"[1e-99, 1e+400, 1e400, " + b"9" * 18 + b"]")
    assert may_be_misread_by_orjson(b"[1E-400]")
    assert may_be_misread_by_orjson(b"[" + b"9" * 19 + b"]")
    assert opening_brackets(b'{"a": [[{}]], "b": "[{"}') == 6


@pytest.mark.parametrize("case", ["flat", "openai-chat", "anthropic", "envelope", "bfcl"])
def test_an_audit_is_the_same_with_either_searches(case: str) -> None:
    folder = Path(__file__).parent / "cases" / "formats" / case
    [schemas] = sorted(folder.glob("schemas.json*"))

    def audited() -> tuple[list[dict[str, Any]], dict[str, Any]]:
        run = toolaudit.audit([str(folder / "input.jsonl")], str(schemas))
        rows = list(run)
        assert run.summary is not None
        return rows, run.summary.to_dict()

    either = audited()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jsonutil, "_TEXT_SPEEDUPS", None)
        patch.setattr(jsonutil, "_NUMBER_MARKS_IN_C", None)
        assert audited() == either


#: Numbers a typed decode may read otherwise than the exact parse (past 1e±10000 where
#: msgspec skips them, below a double's range), and what looks like them but is not.
MISREAD = ["1e999999", "100e9999", "1E+10001", "-2e-9999", "1e-400", "3e0400", "1e9999"]
NOT_MISREAD = ["1e400", "1e+999", "2E-99", "fp_3e1234a", "e12345", "x-e-1234", "1.5e123"]


@pytest.mark.parametrize("where", range(140))
def test_a_misread_number_is_found_wherever_it_is(searches: str, where: int) -> None:
    # (the C search looks at 64 bytes at a time, then 32, then the last ones in a copy)
    filler = b'{"k":"' + b"a" * where + b'","n":'
    for number in MISREAD:
        for after in (b"}", b",1]", b" ", b""):
            assert may_hold_misread_numbers(filler + number.encode() + after), number
    for number in NOT_MISREAD:
        assert not may_hold_misread_numbers(filler + number.encode() + b"}"), number
    assert not may_hold_misread_numbers(filler + b"1e12345a}")  # (an id's, not a number)
    assert may_hold_misread_numbers(b"1e1234") and may_hold_misread_numbers(b"1E-123")
    assert may_hold_misread_numbers(filler + b"1e12345\n")


@pytest.mark.parametrize("where", [0, 1, 1023, 1024, 3000])
def test_a_run_of_long_digits_is_found_wherever_it_is(searches: str, where: int) -> None:
    # (the C search looks at every 1,024th byte for a digit of such a run)
    for before in (b"a" * where, b"1e," + b"a" * where):
        assert may_hold_misread_numbers(before + b"9" * LONG_DIGITS + b"]")
        assert not may_hold_misread_numbers(before + b"9" * (LONG_DIGITS - 1) + b"]")
        assert not may_hold_misread_numbers(before + b"9" * (LONG_DIGITS - 1) + b"." + b"9" * 9)
        assert not may_hold_misread_numbers(b"9" * (LONG_DIGITS - 1) + b"x" + before)


def test_the_misread_search_is_the_tiny_search_and_more(searches: str) -> None:
    # The typed readers ask only the misread search of every line: it holds every tiny one.
    for number in TINY:
        assert may_hold_misread_numbers(f"[{number}]".encode())
    for word in WORDS:
        assert not may_hold_misread_numbers(orjson.dumps([word]))


@pytest.mark.parametrize("where", [0, 20, 40, 70, 100])
def test_only_a_digit_and_an_exponent_mark_make_an_exponent(searches: str, where: int) -> None:
    # Every byte before the mark, and as the mark, wherever the C search reads them (in 64
    # bytes, in 32, in the last ones).
    filler = b"a" * where
    for after in (b"", b" " * 70):  # (the mark among the last bytes, or well before them)
        for byte in range(256):
            before = mark = bytes([byte])
            found = may_hold_misread_numbers(filler + before + b"e12345}" + after)
            assert found is before.isdigit()
            found = may_hold_misread_numbers(filler + b"7" + mark + b"+1234]" + after)
            assert found is (mark in b"eE")


# -- each way the C search finds the exponents' marks ------------------------------------

#: The exponents' part of the misread pattern (misread_numbers less its runs of digits).
MISREAD_EXPONENT = re.compile(rb"[0-9][eE]-[0-9]{3}|[0-9][eE][+-]?[0-9]{4,}(?:[,\]} \t\r\n]|\Z)")
#: Each way the C search may find the marks (the build chooses one: AVX2 where the CPU has
#: it for texts of more than 64 bytes, else SSE2 on x86-64, else one by one), with the
#: shortest text it reads: every one held to the pattern here, whichever this build uses.
MARK_SEARCHES = {"plain": 0, "narrow": 0, "wide": 65}


@pytest.fixture(params=sorted(MARK_SEARCHES))
def mark_search(request: pytest.FixtureRequest) -> tuple[Any, int]:
    """One way of finding the marks, and the shortest text it reads; skipped where this
    build or CPU has it not."""
    speedups = jsonutil._TEXT_SPEEDUPS
    search = getattr(speedups, f"_{request.param}_misread_exponents", None)
    if search is None:
        pytest.skip(f"this build has no {request.param} search (or no C searches)")
    try:
        search(b" " * 100)
    except RuntimeError as error:  # the wide search on a CPU without AVX2
        pytest.skip(str(error))
    return search, MARK_SEARCHES[request.param]


def test_every_way_of_finding_the_marks_finds_the_pattern_at_every_width_and_offset(
    mark_search: tuple[Any, int],
) -> None:
    # Each number, misread or not, at every offset of texts of every width to past two of
    # AVX2's blocks: in the first block, across two, in the last bytes (a block over bytes
    # looked at), in a short text's padded copy; the text ending with it or not.
    search, shortest = mark_search
    for number in [*MISREAD, *NOT_MISREAD, "1e-40", "9E+1234", "1e12345a"]:
        for before in range(140):
            for after in (b"", b"}", b" ", b"a", b"]" + b"x" * 40):
                text = b"x" * before + number.encode() + after
                if len(text) >= shortest:
                    expected = MISREAD_EXPONENT.search(text) is not None
                    assert search(text) is expected, (number, before, after)


@ONE_FIXTURE
@given(st.one_of(PIECES, st.binary(max_size=80), st.binary(min_size=60, max_size=300)))
def test_every_way_of_finding_the_marks_finds_the_pattern(
    mark_search: tuple[Any, int], data: bytes
) -> None:
    search, shortest = mark_search
    data = b"x" * (shortest - len(data)) + data  # (the wide search's texts: past 64 bytes)
    assert search(data) is (MISREAD_EXPONENT.search(data) is not None), data


def test_every_way_of_finding_the_marks_tells_a_mark_by_its_byte_and_the_one_before(
    mark_search: tuple[Any, int],
) -> None:
    # Every byte before the mark and as the mark, in the first block, the last bytes and
    # the middle of a long text, and alone in a short one.
    search, shortest = mark_search
    for where, after in ((0, b""), (20, b""), (40, b" " * 70), (100, b""), (100, b" " * 70)):
        filler = b"a" * max(where, shortest)
        for byte in range(256):
            before = mark = bytes([byte])
            assert search(filler + before + b"e12345}" + after) is before.isdigit()
            assert search(filler + b"7" + mark + b"+1234]" + after) is (mark in b"eE")


def test_the_wide_search_reads_no_text_of_64_bytes_or_fewer() -> None:
    # (holds_misread_number gives it none: a short text's last block would begin before it)
    wide = getattr(jsonutil._TEXT_SPEEDUPS, "_wide_misread_exponents", None)
    if wide is None:
        pytest.skip("this build has no AVX2 search")
    with pytest.raises((ValueError, RuntimeError)):
        wide(b"[1e-400]" + b" " * 56)
