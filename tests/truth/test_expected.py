"""The expected-calls file: both shapes, every accept form, and bad input located."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolaudit.errors import ExpectedError, InputError
from toolaudit.jsonutil import ExactNumber
from toolaudit.truth.expected import (
    BFCL_COMPARE,
    Accept,
    Expected,
    ExpectedCall,
    bfcl_category,
    id_text,
    read_entry,
    read_expected,
)

POSSIBLE_ANSWERS = Path("/work/shared/corpora/bfcl/possible_answer")


def lines_file(tmp_path: Path, *entries: object) -> str:
    path = tmp_path / "expected.jsonl"
    text = "".join(
        (entry if isinstance(entry, str) else json.dumps(entry)) + "\n" for entry in entries
    )
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_a_bfcl_line_keeps_its_possible_answers_and_reads_blank_as_optional(tmp_path):
    line = {
        "id": "simple_python_2",
        "ground_truth": [{"math.hypot": {"x": [4], "y": [5], "z": ["", 0]}}],
    }
    expected = read_expected(lines_file(tmp_path, line))
    entry = expected["simple_python_2"]
    assert entry.shape == "bfcl"
    assert entry.category == "simple_python"
    assert entry.line == 1
    (call,) = entry.calls or ()
    assert call.name == "math.hypot"
    assert call.arguments["x"] == Accept((4,), BFCL_COMPARE, raw=(4,))
    assert call.arguments["z"] == Accept((0,), BFCL_COMPARE, optional=True, raw=("", 0))


def test_an_empty_ground_truth_expects_no_call(tmp_path):
    expected = read_expected(lines_file(tmp_path, {"id": "irrelevance_3", "ground_truth": []}))
    assert expected["irrelevance_3"].calls == ()


def test_a_native_line_with_every_accept_form(tmp_path):
    line = {
        "id": "q1",
        "category": "weather",
        "order": "strict",
        "calls": [
            {
                "name": "get_weather",
                "arguments": {
                    "city": {"accept": ["Paris", "paris, fr"], "compare": "text"},
                    "days": {"accept": [3], "compare": "number", "tolerance": 0.5},
                    "units": "metric",
                    "tags": {"accept": [["a", "b"]], "compare": "unordered"},
                    "filters": {"accept": [{"kind": "rain"}], "compare": "subset"},
                    "date": {"accept": ["^2026-"], "compare": "pattern"},
                    "note": {"compare": "any"},
                    "lang": {"accept": ["en"], "optional": True},
                },
            }
        ],
    }
    entry = read_expected(lines_file(tmp_path, line))["q1"]
    assert (entry.shape, entry.order, entry.category) == ("native", "strict", "weather")
    arguments = (entry.calls or ())[0].arguments
    assert arguments["city"] == Accept(("Paris", "paris, fr"), "text")
    assert arguments["days"] == Accept((3,), "number", 0.5)
    assert arguments["units"] == Accept(("metric",))
    assert arguments["tags"] == Accept((["a", "b"],), "unordered")
    assert arguments["note"] == Accept((), "any")
    assert arguments["lang"] == Accept(("en",), optional=True)


def test_accept_objects_nest_inside_an_expected_object():
    entry = read_entry(
        {
            "id": 7,
            "calls": [
                {
                    "name": "f",
                    "arguments": {"where": {"city": {"accept": ["x"], "compare": "text"}}},
                }
            ],
        }
    )
    assert entry.id == "7"
    where = (entry.calls or ())[0].arguments["where"]
    assert where == Accept(({"city": Accept(("x",), "text")},))


def test_calls_any_and_calls_none():
    assert read_entry({"id": "r", "calls": "any"}).calls is None
    assert read_entry({"id": "r", "calls": []}).calls == ()


@pytest.mark.parametrize(
    ("line", "detail"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"id": "a"}', "of neither shape"),
        ('{"id": "a", "calls": [], "ground_truth": []}', "of neither shape"),
        ('{"calls": []}', 'no "id"'),
        ('{"id": true, "calls": []}', 'no "id"'),
        ('{"id": "a", "calls": [], "order": "random"}', '"order" must be'),
        ('{"id": "a", "calls": [], "category": 3}', '"category" must be a string'),
        ('{"id": "a", "calls": {"name": "f"}}', '"calls" must be a list'),
        ('{"id": "a", "calls": [{"arguments": {}}]}', 'with a "name"'),
        ('{"id": "a", "calls": [{"name": "f", "arguments": []}]}', '"arguments" must be'),
        (
            '{"id": "a", "calls": [{"name": "f", "arguments": {"x": {"compare": "fuzzy"}}}]}',
            'unknown compare "fuzzy"',
        ),
        (
            '{"id": "a", "calls": [{"name": "f", "arguments": {"x": {"accept": 3}}}]}',
            '"accept" must be a non-empty list',
        ),
        (
            '{"id": "a", "calls": [{"name": "f", "arguments": {"x": {"accept": [1, 2], '
            '"compare": "unordered"}}}]}',
            "compare 'unordered' cannot accept 1",
        ),
        (
            '{"id": "a", "calls": [{"name": "f", "arguments": {"x": {"accept": ["a"], '
            '"compare": "number"}}}]}',
            "compare 'number' cannot accept",
        ),
        (
            '{"id": "a", "calls": [{"name": "f", "arguments": {"x": {"accept": [1], '
            '"compare": "text"}}}]}',
            "compare 'text' accepts strings",
        ),
        (
            '{"id": "a", "calls": [{"name": "f", "arguments": {"x": {"accept": ["(?=a)"], '
            '"compare": "pattern"}}}]}',
            "cannot be used",
        ),
        (  # longer than a pattern deep mode compiles: it stopped the run
            '{"id": "a", "calls": [{"name": "f", "arguments": {"x": {"accept": ["'
            + "x" * 10_001
            + '"], "compare": "pattern"}}}]}',
            "10,001 characters long",
        ),
        (
            '{"id": "a", "calls": [{"name": "f", "arguments": {"x": {"accept": [1], '
            '"tolerance": 1}}}]}',
            '"tolerance" is a number',
        ),
        (
            '{"id": "a", "calls": [{"name": "f", "arguments": {"x": {"accept": [1], '
            '"optional": "yes"}}}]}',
            '"optional" must be',
        ),
        ('{"id": "a", "ground_truth": {"f": {}}}', '"ground_truth" must be a list'),
        ('{"id": "a", "ground_truth": [{"f": {}, "g": {}}]}', "an object of one tool name"),
        ('{"id": "a", "ground_truth": [{"f": [1]}]}', "parameters must be an object"),
        ('{"id": "a", "ground_truth": [{"f": {"x": 1}}]}', "must list its possible answers"),
        ('{"id": "a", "ground_truth": [["cd(folder=\'x\')"]]}', "multi-turn"),
        (
            '{"id": "a", "calls": [{"name": "f", "arguments": {"x": '
            + "[" * 70
            + "]" * 70
            + "}}]}",
            "nested more than 64 levels deep",
        ),
    ],
)
def test_a_bad_line_is_a_located_problem_and_the_rest_is_read(tmp_path, line, detail):
    path = lines_file(tmp_path, {"id": "good", "calls": []}, line, {"id": "after", "calls": []})
    expected = read_expected(path)
    assert sorted(expected) == ["after", "good"]
    (problem,) = expected.problems
    assert (problem.source, problem.line) == (path, 2)
    assert detail in problem.detail
    assert str(problem).startswith(f"{path}, line 2: ")


def test_an_id_expected_twice_stops_naming_both_lines(tmp_path):
    path = lines_file(
        tmp_path,
        {"id": "a", "calls": []},
        {"id": "b", "calls": []},
        {"id": "a", "ground_truth": []},
    )
    with pytest.raises(ExpectedError, match=r"id 'a' is expected twice, on lines 1 and 3"):
        read_expected(path)


def test_an_id_twice_stops_even_when_one_line_is_bad(tmp_path):
    # "3" and 3 are one id; a bad shape does not hide the duplicate.
    path = lines_file(tmp_path, {"id": 3, "calls": []}, {"id": "3", "calls": 5})
    with pytest.raises(ExpectedError, match="lines 1 and 2"):
        read_expected(path)


def test_blank_lines_a_byte_order_mark_and_exact_numbers(tmp_path):
    path = tmp_path / "expected.jsonl"
    path.write_bytes(
        b'\xef\xbb\xbf{"id": "a", "calls": [{"name": "f", '
        b'"arguments": {"n": 123456789012345678901234567890}}]}\n'
        b"\n   \n"
        b'{"id": "b", "calls": []}\n'
    )
    expected = read_expected(str(path))
    assert expected.problems == []
    assert (expected["a"].calls or ())[0].arguments["n"].values == (123456789012345678901234567890,)
    assert expected["b"].line == 4


def test_a_url_is_read_through_fsspec():
    fsspec = pytest.importorskip("fsspec")
    with fsspec.open("memory://truth/expected.jsonl", "wb") as file:
        file.write(b'{"id": "a", "calls": "any"}\n')
    assert read_expected("memory://truth/expected.jsonl")["a"].calls is None


def test_an_unreadable_file_stops_with_an_input_error(tmp_path):
    with pytest.raises(InputError, match="expected file"):
        read_expected(str(tmp_path / "missing.jsonl"))


@pytest.mark.parametrize(
    ("id", "category"),
    [
        ("simple_python_3", "simple_python"),
        ("live_multiple_12-3", "live_multiple"),
        ("live_parallel_multiple_0-0-0", "live_parallel_multiple"),
        ("irrelevance_0", "irrelevance"),
        ("custom", None),
        ("_3", None),
    ],
)
def test_bfcl_category(id, category):
    assert bfcl_category(id) == category


def test_category_of_prefers_the_native_category(tmp_path):
    expected = read_expected(
        lines_file(
            tmp_path,
            {"id": "weather_1", "calls": [], "category": "abstain"},
            {"id": "weather_2", "calls": []},
        )
    )
    assert expected.category_of("weather_1") == "abstain"
    assert expected.category_of("weather_2") == "weather"
    assert expected.category_of("live_simple_9-1-0") == "live_simple"  # not expected at all


def test_id_text():
    assert [id_text(value) for value in ("a", 3, True, 1.5, None)] == ["a", "3", None, None, None]


@pytest.mark.skipif(not POSSIBLE_ANSWERS.is_dir(), reason="the BFCL corpus is not here")
@pytest.mark.parametrize(
    "name",
    sorted(path.name for path in POSSIBLE_ANSWERS.glob("*.json"))
    if POSSIBLE_ANSWERS.is_dir()
    else [],
)
def test_every_bfcl_possible_answer_file_reads(name):
    expected = read_expected(str(POSSIBLE_ANSWERS / name))
    if "multi_turn" in name:  # call strings per turn: not scored by this, each line said so
        assert len(expected) == 0 and all("multi-turn" in p.detail for p in expected.problems)
        return
    assert expected.problems == []
    lines = (POSSIBLE_ANSWERS / name).read_text().splitlines()
    assert len(expected) == len(lines)
    category = name.removeprefix("BFCL_v4_").removesuffix(".json")
    assert {entry.category for entry in expected.values()} == {category}
    assert all(isinstance(entry, Expected) for entry in expected.values())
    assert all(isinstance(call, ExpectedCall) for e in expected.values() for call in e.calls or ())


def test_numbers_are_read_exactly_as_the_log_reads_them(tmp_path):
    # orjson reads 1e-400 as 0.0 and a 20-digit integer as a float: a call of the very
    # same value was scored wrong.
    path = tmp_path / "expected.jsonl"
    path.write_bytes(
        b'{"id": "a", "calls": [{"name": "f", "arguments": {"n": 1e-400, '
        b'"m": 18446744073709551617}}]}\n'
        b'{"id": "b", "ground_truth": [{"f": {"n": [1e-400], "m": [18446744073709551617]}}]}\n'
        b'{"id": "c", "calls": [{"name": "f", "arguments": {"n": 1e-20000}}]}\n'
    )
    expected = read_expected(str(path))
    for id in ("a", "b"):
        arguments = (expected[id].calls or ())[0].arguments
        assert arguments["n"].values == (ExactNumber("1e-400"),)
        assert arguments["m"].values == (18446744073709551617,)
        assert type(arguments["m"].values[0]) is int
    [problem] = expected.problems
    assert problem.line == 3 and "beyond 1e±10000" in problem.detail


@pytest.mark.parametrize(
    "first, second",
    [
        ({"id": "a", "calls": 5}, {"id": "a", "calls": []}),  # unreadable, then read
        ({"id": "a", "calls": []}, {"id": "a", "calls": 5}),  # read, then unreadable
        ({"id": "a", "calls": 5}, {"id": "a", "order": 1, "calls": []}),  # both unreadable
        (
            {"id": "a", "calls": [{"name": "f", "arguments": {"x": {"accept": [1]}}}]},
            {"id": "a", "calls": [{"name": "f", "arguments": {"x": 1}}]},
        ),  # read in Python, then by msgspec
    ],
)
def test_an_id_twice_names_its_first_line_whichever_lines_were_read(tmp_path, first, second):
    path = lines_file(tmp_path, {"id": "b", "calls": 5}, first, {"id": "c", "calls": []}, second)
    with pytest.raises(ExpectedError, match=r"id 'a' is expected twice, on lines 2 and 4"):
        read_expected(path)
