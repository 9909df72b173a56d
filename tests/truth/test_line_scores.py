"""The kernel that scores a flat call's line when its entry is surely answered right
(:mod:`toolaudit.truth.line_scores`, ``_line_scores.c``): C and its pure twin answer
alike and change the same things, a line either tells correct is correct as the full
comparison scores it, and audits give the same summary and report with the kernel in C,
in Python, and off, on generated eval sets with every kind of difference (values of
every JSON type, escapes, numbers written differently, keys reordered or given twice,
whitespace, unicode, ids as integers, repeated, absent or without an entry)."""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolaudit.jsonutil import may_hold_long_integers
from toolaudit.pipeline import scored_lines
from toolaudit.pipeline.audit import Audit, AuditOptions
from toolaudit.pipeline.scored_lines import LineIds, typed_made_calls
from toolaudit.pipeline.scoring import dump_score
from toolaudit.schemas import schema_set
from toolaudit.sources import Source
from toolaudit.truth import line_scores, match
from toolaudit.truth.entries import Expected, ExpectedCall, id_text
from toolaudit.truth.expectations import load_expectations
from toolaudit.truth.line_scores import correct_row
from toolaudit.truth.match import MadeCall, score

from ..pipeline.test_typed_path import OBJECT_FORMATS, WRITERS, call, line_of
from .test_typed_scoring import TOOLS as TYPED_TOOLS

C = line_scores.SPEEDUPS
needs_c = pytest.mark.skipif(C is None, reason="the C kernel was not built")

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.sampled_from([0, 1, -1, 7, 10**15, 10**16])
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([0.0, -0.0, 1.0, 0.1, 1.5, 1e20, 1e-7, 123.456e5])
    | st.text(max_size=6)
    | st.sampled_from(["", "a", 'q"uote', "back\\slash", "tab\t", "é", "😀", "\u2028"])
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b", "c", "é"]), inner, max_size=3)
    ),
    max_leaves=8,
)
ARGUMENTS = st.dictionaries(st.sampled_from(["city", "days", "near", "q", "ü"]), VALUES, max_size=4)


@st.composite
def written(draw: st.DrawFn, value: object) -> str:
    """``value`` as JSON text, written one of the ways a log may write it."""
    space = draw(st.sampled_from(["", " ", "\n\t "]))
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int):
        return draw(st.sampled_from([str(value), f"{value}.0", f"{value}e0", f"{value}E+00"]))
    if isinstance(value, float):
        forms = [json.dumps(value), orjson.dumps(value).decode(), f"{value:.17g}"]
        if value.is_integer() and abs(value) < 1e15:
            forms.append(str(int(value)))
        return draw(st.sampled_from(forms))
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=draw(st.booleans()))
    if isinstance(value, list):
        items = [draw(written(item)) for item in value]
        return "[" + space + ("," + space).join(items) + "]"
    assert isinstance(value, dict)
    pairs = [(key, draw(written(item))) for key, item in value.items()]
    pairs = draw(st.permutations(pairs)) if pairs else pairs
    if pairs and draw(st.integers(0, 9)) == 0:
        pairs.append(draw(st.sampled_from(pairs)))  # a key given twice
    text = ("," + space).join(
        json.dumps(key, ensure_ascii=draw(st.booleans())) + ":" + space + item
        for key, item in pairs
    )
    return "{" + space + text + space + "}"


#: How a line's arguments may differ from the entry's.
CHANGES = ("same", "same", "same", "value", "drop", "extra", "tool", "string")


@st.composite
def changed_calls(draw: st.DrawFn, name: str) -> tuple[dict[str, Any], str, str, str]:
    """An entry's literal arguments, and a call of ``name`` changed from them in one of
    the ways of CHANGES: the tool's name, the arguments' JSON text, the change."""
    literal = draw(ARGUMENTS)
    made = dict(literal)
    change = draw(st.sampled_from(CHANGES))
    if change == "value" and made:
        made[draw(st.sampled_from(sorted(made)))] = draw(VALUES)
    elif change == "drop" and made:
        made.pop(draw(st.sampled_from(sorted(made))))
    elif change == "extra":
        made["extra"] = draw(VALUES)
    elif change == "tool":
        name = "set"
    arguments = draw(written(made))
    if change == "string":
        arguments = json.dumps(arguments)  # arguments given as a string
    return literal, name, arguments, change


@st.composite
def cases(draw: st.DrawFn) -> tuple[bytes, dict[str, Any], str]:
    """A flat line and the literal arguments of its entry (id ``e1``, or 1 as digits),
    with what was changed between them."""
    literal, name, arguments, change = draw(changed_calls("get"))
    id_text = draw(
        st.sampled_from(['"e1"', "1", "-0", "1.0", "true", '"e\\u0031"', '"e2"', '"none"'])
    )
    fields = [f'"id": {id_text}', f'"name": "{name}"', f'"arguments": {arguments}']
    fields += draw(
        st.lists(
            st.sampled_from(
                [
                    '"model": "m"',
                    '"model": [[[1]]]',
                    f'"id": {id_text}',
                    '"name": "get"',
                    '"n": 12345678901234567',
                    '"x": 1e400',
                    '"x": 1E-99',
                    '"y": "\\n"',
                ]
            ),
            max_size=2,
        )
    )
    if draw(st.integers(0, 5)) == 0:
        fields = [field for field in fields if not field.startswith('"id"')]
    line = "{" + ", ".join(draw(st.permutations(fields))) + "}"
    return line.encode(), literal, change


class Tally:
    def __init__(self, ground_truth: object) -> None:
        self.ground_truth = ground_truth


class Section:
    def __init__(self, samples: int) -> None:
        self.samples = [{}] * samples


class Shape:
    def __init__(self) -> None:
        self.waiting = 0


class Shapes:
    """A shapes table (``table``) whose ``first`` keeps the shape it is called for, and
    the keys it was called for (``firsts``)."""

    def __init__(self) -> None:
        self.table: dict[tuple, Shape] = {}
        self.firsts: list[tuple] = []

    def first(self, section: object, *key: object) -> None:
        self.firsts.append(key)
        self.table[(id(section), *key)] = Shape()

    def told(self) -> list[tuple]:
        """The keys (past the section) counted or first added."""
        return [key[1:] for key, shape in self.table.items() if shape.waiting] + self.firsts

    def score_flat(
        self, kernel: Any, entries: dict, scored: dict, line: bytes, tally: Any, rows: Any = None
    ) -> bool:
        """The kernel's answer; with ``rows`` (a list), the --scores lines it writes."""
        write, source = (
            (rows.append, b'"logs/a \xc3\xa9.jsonl"') if rows is not None else (None, None)
        )
        return kernel(
            "id", entries, scored, self.table, 5, self.first, write, source, line, tally, 7
        )


def state(literal: dict[str, Any], already: bool, known: bool, section: object) -> tuple:
    """Entries e1 and 1 of one call to ``get``, ``none`` of none; e1 scored already or
    not; every shape their entries may have counted already, or none."""
    call = ExpectedCall("get", literal=literal)
    entries = {
        "e1": Expected("e1", (call,), category="c"),
        "1": Expected("1", (call,)),
        "none": Expected("none", (), category="c"),
    }
    scored: dict[str, None] = {"e1": None} if already else {}
    shapes = Shapes()
    if known:
        parameters = tuple(literal)
        for category in ("c", None):
            for made in ("get", "set"):
                shapes.table[(id(section), category, None, (), made, 0)] = Shape()
                for mask in range(1 << len(parameters)):
                    key = (id(section), category, "get", parameters, made, mask)
                    shapes.table[key] = Shape()
    return entries, scored, shapes


def score_key(line: bytes, entries: dict[str, Expected], section: object) -> tuple:
    """The shape key of the line's entry, as the full comparison scores it."""
    record = orjson.loads(line)
    entry = entries[str(record["id"])]
    return compared_key(entry, [MadeCall(0, record["name"], record["arguments"])])


def compared_key(entry: Expected, made: list[MadeCall]) -> tuple:
    """The shape key (past the section) of an entry answered by its one call made, as
    the full comparison scores it."""
    match.QUICK_CORRECT = False
    try:
        found = score(entry, made)
    finally:
        match.QUICK_CORRECT = True
    name = made[0].name
    if not entry.calls:
        assert found.outcome == "unwanted_call"
        return (entry.category, None, (), name, 0)
    call = entry.calls[0]
    assert call.literal is not None
    mask = sum(1 << index for index, (_, _, ok) in enumerate(found.parameters) if not ok)
    assert found.outcome == ("correct" if not mask and name == call.name else "incorrect")
    return (entry.category, call.name, tuple(call.literal), name, mask)


@needs_c
@pytest.mark.slow  # (a long property run: make test runs it, make quick not)
@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cases(),
    st.booleans(),
    st.booleans(),
    st.booleans(),
    st.sampled_from([0, 4, 5]),
    st.booleans(),
)
def test_c_and_the_twin_answer_alike_and_count_the_shape_the_comparison_gives(
    case: tuple[bytes, dict[str, Any], str],
    already: bool,
    known: bool,
    no_section: bool,
    samples: int,
    scores: bool,
) -> None:
    line, literal, _ = case
    section = Section(samples)
    tally = Tally(None if no_section else section)
    answers, states = [], []
    for kernel in (C.score_flat, line_scores.score_flat):
        entries, scored, shapes = state(literal, already, known, section)
        rows: list[bytes] | None = [] if scores else None
        answers.append(shapes.score_flat(kernel, entries, scored, line, tally, rows))
        states.append((list(scored), shapes.told(), rows))
    assert answers[0] == answers[1]
    assert states[0] == states[1]
    assert states[0][1] == ([score_key(line, entries, section)] if answers[0] else [])
    if scores and answers[0]:
        record = orjson.loads(line)
        entry = entries[str(record["id"])]
        model = record.get("model")
        row = correct_row(entry, 0, model if type(model) is str else None, ("logs/a é.jsonl", 7))
        assert states[0][2] == [dump_score(row)]


#: The arguments the entry of ``test_what_the_kernel_tells`` expects, as a line gives them.
RIGHT = '{"a": 1, "b": [true, null, "x"]}'


def flat(arguments: str = RIGHT, head: str = '"id": "e1", "name": "get"', tail: str = "}") -> str:
    return "{" + head + ', "arguments": ' + arguments + tail


#: The shapes ``test_what_the_kernel_tells`` names: (tool, parameters, tool made, mask).
SHAPES = {
    "right": ("get", ("a", "b"), "get", 0),
    "a wrong": ("get", ("a", "b"), "get", 1),
    "b wrong": ("get", ("a", "b"), "get", 2),
    "another tool": ("get", ("a", "b"), "set", 3),
    "unwanted": (None, (), "get", 0),
}


@needs_c
@pytest.mark.parametrize(
    ("line", "told"),
    [
        (flat(), "right"),
        ('{"arguments":{"b":[true,null,"x"],"a":1},"name":"get","id":"e1"} ', "right"),
        (flat(head='"id": 1, "name": "get"'), "right"),
        (flat(head='"id": "none", "name": "get"'), "unwanted"),
        (flat(head='"id": "e1", "name": "set"'), "another tool"),
        (flat('{"a": 2, "b": [true, null, "x"]}'), "a wrong"),
        (flat('{"a": true, "b": [true, null, "x"]}'), "a wrong"),
        (flat('{"a": "1", "b": [true, null, "x"]}'), "a wrong"),
        (flat('{"a": 1, "b": [true, null]}'), "b wrong"),
        (flat('{"b": [true, null, "y"], "a": 1}'), "b wrong"),  # told by the literal's order
        (flat('{"b": [true, null, "x"], "a": 0}'), "a wrong"),
        (flat('{"a": 1, "b": [true, null, "y"]}'), "b wrong"),
        (flat('{"a": 1, "b": {"x": 1}}'), "b wrong"),
        (flat('{"a": 1.0, "b": [true, null, "x"]}'), None),  # 1 == 1.0: Python's
        (flat('{"a": 1, "b": [true, null, "x"], "c": 1}'), None),  # unexpected
        (flat('{"a": 1}'), None),  # missing (a default may stand in)
        (flat('{"a": 1, "c": [true, null, "x"]}'), None),  # missing and unexpected
        (flat('{"a": 1, "b": [true, null, "x\ty"]}'), None),  # a raw tab: no JSON
        (flat('{"a": 1, "a": 1, "b": [true, null, "x"]}'), None),
        (flat('{"a": 1, "b": [true, null, "\\u0078"]}'), None),
        (flat(head='"id": "e1", "id": "e1", "name": "get"'), None),
        (flat(tail=', "n": 1234567890123456}'), None),
        (flat(tail=', "f": 1e100}'), None),
        (flat(head='"id": "e1", "name": "p\\u0075t"'), None),
        (flat(head='"name": "get"'), None),
        (flat(tail=""), None),
        (flat('"' + RIGHT.replace('"', "'") + '"'), None),
    ],
)
def test_what_the_kernel_tells(line: str, told: str | None) -> None:
    literal = {"a": 1, "b": [True, None, "x"]}
    section = Section(5)
    for kernel in (C.score_flat, line_scores.score_flat):
        entries, scored, shapes = state(literal, False, True, section)
        answer = shapes.score_flat(kernel, entries, scored, line.encode(), Tally(section))
        assert answer is (told is not None)
        assert bool(scored) is answer
        assert [key[1:] for key in shapes.told()] == ([] if told is None else [SHAPES[told]])
        assert not shapes.firsts


@needs_c
def test_nothing_is_told_of_a_scored_id_or_a_tally_without_ground_truth_and_a_new_shape_is_added():
    right = b'{"id": "e1", "name": "get", "arguments": {"a": 1}}'
    wrong = b'{"id": "e1", "name": "get", "arguments": {"a": 2}}'
    section = Section(5)
    for kernel in (C.score_flat, line_scores.score_flat):
        for line, already, tally in (
            (right, True, Tally(section)),
            (right, False, Tally(None)),
            (wrong, False, Tally(Section(4))),  # a sample still wanted
        ):
            entries, scored, shapes = state({"a": 1}, already, True, section)
            assert not shapes.score_flat(kernel, entries, scored, line, tally)
            assert not shapes.told()
        for line, known, tally in (
            (right, True, Tally(section)),
            (wrong, True, Tally(section)),
            (right, False, Tally(section)),  # added by first()
            (wrong, True, Tally(Section(5))),  # another section's: first() too
        ):
            entries, scored, shapes = state({"a": 1}, False, known, section)
            assert shapes.score_flat(kernel, entries, scored, line, tally)
            assert len(shapes.told()) == 1
            assert bool(shapes.firsts) is (not known or tally.ground_truth is not section)
            assert not shapes.score_flat(kernel, entries, scored, line, tally)  # scored now


#: The typed scoring tests' tool (a parameter with a default), and another.
TOOLS = {**TYPED_TOOLS, "set": {"parameters": {"properties": {"city": {"type": "string"}}}}}


@st.composite
def eval_sets(draw: st.DrawFn) -> tuple[bytes, bytes]:
    """A flat log and its expected file: most records answered right, written any way."""
    log, expected = [], []
    shapes = draw(
        st.lists(
            st.fixed_dictionaries(
                {"city": st.sampled_from(["Oslo", "Zürich", 'a"b'])},
                optional={"days": st.sampled_from([3, 4, 1.0]), "near": VALUES},
            ),
            min_size=1,
            max_size=3,
        )
    )
    for number in range(draw(st.integers(1, 30))):
        literal = draw(st.sampled_from(shapes))
        id = draw(st.sampled_from([f"e{number}", number, "e0", None]))
        tool = draw(st.sampled_from(["get", "get", "get", "set"]))
        made = dict(literal)
        if draw(st.integers(0, 4)) == 0:
            made["city"] = "Bergen"
        if draw(st.integers(0, 6)) == 0:
            made.pop("days", None)
        fields = [f'"name": "{tool}"', f'"arguments": {draw(written(made))}']
        if id is not None:
            fields.append(f'"id": {json.dumps(id)}')
        if draw(st.booleans()):
            fields.append(f'"model": "{draw(st.sampled_from(["m1", "m2"]))}"')
        log.append("{" + ", ".join(draw(st.permutations(fields))) + "}")
        if type(id) in (str, int) and str(id) != "e0" and draw(st.integers(0, 5)):
            category = draw(st.sampled_from([None, "a", "b"]))
            entry: dict[str, Any] = {"id": id, "calls": [{"name": "get", "arguments": literal}]}
            if draw(st.integers(0, 8)) == 0:
                entry["calls"] = []
            if category is not None:
                entry["category"] = category
            expected.append(json.dumps(entry, ensure_ascii=draw(st.booleans())))
    expected.append('{"id": "e0", "calls": [{"name": "get", "arguments": {"city": "Oslo"}}]}')
    expected.append('{"id": "never", "calls": []}')
    return ("\n".join(log) + "\n").encode(), ("\n".join(expected) + "\n").encode()


def audited(
    log: bytes, expected: Path, *, key: str | None = None, typed: bool = True, **options: Any
) -> tuple[bytes, bytes, dict[str, Any]]:
    schemas = schema_set(TOOLS)
    expectations = load_expectations([str(expected)], key=key, schemas=schemas)
    writes_scores = options.pop("scores")
    run = Audit(
        [Source("-")],
        schemas,
        AuditOptions(**options),
        stdin=io.BytesIO(log),
        expectations=expectations,
    )
    run.typed_fast_path = typed
    report, scores = io.BytesIO(), io.BytesIO()
    summary = run.run(report, scores if writes_scores else None)
    return report.getvalue(), scores.getvalue(), summary.to_dict()


def audited_three_ways(log: bytes, expected_lines: bytes, **options: Any) -> list[tuple]:
    """The audit of ``log`` scored against ``expected_lines`` with the kernel in C, in
    Python, and off."""
    with tempfile.TemporaryDirectory() as directory:
        expected = Path(directory) / "expected.jsonl"
        expected.write_bytes(expected_lines)
        results = [audited(log, expected, **options)]
        compiled = line_scores.SPEEDUPS
        line_scores.SPEEDUPS = None
        try:
            results.append(audited(log, expected, **options))
        finally:
            line_scores.SPEEDUPS = compiled
        line_scores.KERNEL_ON = False
        try:
            results.append(audited(log, expected, **options))
        finally:
            line_scores.KERNEL_ON = True
    return results


@pytest.mark.slow  # a long property run
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(eval_sets(), st.booleans(), st.booleans())
def test_audits_are_alike_with_the_kernel_in_c_in_python_and_off(
    files: tuple[bytes, bytes], grouped: bool, scores: bool
) -> None:
    log, expected_lines = files
    options: dict[str, Any] = {"scores": scores}
    if grouped:
        options["group_by"] = ("model",)
    results = audited_three_ways(log, expected_lines, **options)
    assert results[0] == results[1] == results[2]


def forty_entries(path: Path) -> Path:
    """An expected file of entries e0 to e39 of a call of ``get`` (city Oslo, days n % 3),
    each fifth expecting days 9."""
    path.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"e{n}",
                    "calls": [
                        {
                            "name": "get",
                            "arguments": {"city": "Oslo", "days": n % 3 if n % 5 else 9},
                        }
                    ],
                }
            )
            + "\n"
            for n in range(40)
        )
    )
    return path


@contextlib.contextmanager
def answers_of(name: str) -> Iterator[list[bool]]:
    """The answers of the kernel ``line_scores.<name>()`` gives, while in the block."""
    told: list[bool] = []
    real = getattr(line_scores, name)

    def counting() -> Any:
        kernel = real()

        def counted(*args: Any) -> bool:
            told.append(kernel(*args))
            return told[-1]

        return counted

    setattr(line_scores, name, counting)
    try:
        yield told
    finally:
        setattr(line_scores, name, real)


@contextlib.contextmanager
def call_kernel_answers() -> Iterator[list[bool]]:
    """The answers of the ``score`` of each ``line_scores.call_kernel_type()`` made,
    while in the block."""
    told: list[bool] = []
    real = line_scores.call_kernel_type

    class Counted:
        def __init__(self, *args: Any) -> None:
            self.kernel = real()(*args)
            self.id_of = self.kernel.id_of

        def score(self, *args: Any) -> bool:
            told.append(self.kernel.score(*args))
            return told[-1]

    line_scores.call_kernel_type = lambda: Counted  # type: ignore[assignment,return-value]
    try:
        yield told
    finally:
        line_scores.call_kernel_type = real


def test_the_kernel_counts_a_flat_log_s_entries_but_the_samples(tmp_path: Path) -> None:
    lines = [
        f'{{"id": "e{n}", "name": "get", "arguments": {{"city": "Oslo", "days": {n % 3}}}}}'
        for n in range(40)
    ]
    expected = forty_entries(tmp_path / "expected.jsonl")
    with answers_of("kernel") as told:
        _, _, summary = audited(("\n".join(lines) + "\n").encode(), expected, scores=False)
    outcomes = summary["ground_truth"]["outcomes"]
    assert (outcomes["correct"], outcomes["incorrect"]) == (32, 8)
    # Every right answer, and every wrong one (days) past the five kept as samples.
    assert sum(told) == 32 + (8 - 5)


@needs_c
@pytest.mark.parametrize(
    ("literal", "arguments", "entry_id", "line_id"),
    [
        # Another parameter's mismatch path would name "a" too (value:a.b touches a).
        ({"a": 1, "a.b": 2}, '{"a": 1, "a.b": 3}', "e1", '"e1"'),
        ({"a": 1, "b[0]": 2}, '{"a": 1, "b[0]": 3}', "e1", '"e1"'),
        # -0 is the id 0, not the entry "-0".
        ({"a": 1}, '{"a": 1}', "-0", "-0"),
        # -0.0 and 0.0 are equal: which way it is counted is the comparison's to say.
        ({"a": 0.0}, '{"a": -0.0}', "e1", '"e1"'),
        ({"a": -0.0}, '{"a": 0.0}', "e1", '"e1"'),
        # Equal objects but for a key given twice: the last counts.
        ({"a": {"x": 1}}, '{"a": {"x": 1, "x": 1}}', "e1", '"e1"'),
        # An integer past a long long against its own digits.
        ({"a": 2**63}, '{"a": 922337203685477}', "e1", '"e1"'),
    ],
)
def test_what_the_kernel_leaves_to_python(
    literal: dict[str, Any], arguments: str, entry_id: str, line_id: str
) -> None:
    line = ('{"id": ' + line_id + ', "name": "get", "arguments": ' + arguments + "}").encode()
    section = Section(5)
    for kernel in (C.score_flat, line_scores.score_flat):
        entries = {entry_id: Expected(entry_id, (ExpectedCall("get", literal=literal),))}
        shapes = Shapes()
        assert not shapes.score_flat(kernel, entries, {}, line, Tally(section))
        assert not shapes.told()


@needs_c
@pytest.mark.parametrize(
    ("category", "told"), [(None, True), ("é", True), ('a"b', False), ("a\nb", False)]
)
def test_a_scores_line_is_written_for_a_category_orjson_writes_as_it_is(
    category: str | None, told: bool
) -> None:
    line = b'{"model": "m", "id": "e1", "name": "get", "arguments": {"a": 1}}'
    section = Section(5)
    for kernel in (C.score_flat, line_scores.score_flat):
        entries = {
            "e1": Expected("e1", (ExpectedCall("get", literal={"a": 1}),), category=category)
        }
        rows: list[bytes] = []
        assert Shapes().score_flat(kernel, entries, {}, line, Tally(section), rows) is told
        expected = correct_row(entries["e1"], 0, "m", ("logs/a é.jsonl", 7))
        assert rows == ([dump_score(expected)] if told else [])
        assert Shapes().score_flat(kernel, entries, {}, line, Tally(section)) is True


@needs_c
@pytest.mark.parametrize(("model", "written"), [('"m"', "m"), ("5", None), ("null", None)])
def test_a_scores_line_names_the_model_only_a_string_gives(model: str, written: str | None):
    line = ('{"id": "e1", "name": "get", "arguments": {}, "model": ' + model + "}").encode()
    for kernel in (C.score_flat, line_scores.score_flat):
        entries = {"e1": Expected("e1", (ExpectedCall("get", literal={}),))}
        rows: list[bytes] = []
        assert Shapes().score_flat(kernel, entries, {}, line, Tally(Section(0)), rows)
        expected = correct_row(entries["e1"], 0, written, ("logs/a é.jsonl", 7))
        assert rows == [dump_score(expected)]


class SlottedTally:
    __slots__ = ("ground_truth",)

    def __init__(self, ground_truth: object) -> None:
        self.ground_truth = ground_truth


class OtherTally:
    """A slotted tally whose ``ground_truth`` is at another offset, after a decoy."""

    __slots__ = ("decoy", "ground_truth")

    def __init__(self, ground_truth: object) -> None:
        self.decoy = Section(5)
        self.ground_truth = ground_truth


class SlottedShape:
    __slots__ = ("waiting",)

    def __init__(self) -> None:
        self.waiting = 0


class PaddedShape:
    """A slotted shape whose ``waiting`` is at another offset, after a decoy."""

    __slots__ = ("decoy", "waiting")

    def __init__(self) -> None:
        self.decoy = 100
        self.waiting = 0


class PropertyShape:
    """A shape whose ``waiting`` is no slot: the kernel must raise it by name."""

    def __init__(self) -> None:
        self.raised: list[int] = []
        self._waiting = 0

    @property
    def waiting(self) -> int:
        return self._waiting

    @waiting.setter
    def waiting(self, value: int) -> None:
        self.raised.append(value)
        self._waiting = value


class GuardedShape(SlottedShape):
    """A slotted shape that sets its attributes its own way (the kernel must call it)."""

    __slots__ = ("raised",)

    def __setattr__(self, name: str, value: object) -> None:
        if name == "waiting":
            object.__setattr__(self, "raised", value)
        object.__setattr__(self, name, value)


class RenamedEntry(Expected):
    """An entry whose ``category`` is a property over its slot: read by name."""

    __slots__ = ()

    @property  # type: ignore[override]
    def category(self) -> str | None:
        return "renamed"

    @category.setter
    def category(self, value: str | None) -> None:
        pass


class CallOfOtherName(ExpectedCall):
    """A call whose ``name`` is a property: read by name."""

    __slots__ = ()

    @property  # type: ignore[override]
    def name(self) -> str:
        return "set"

    @name.setter
    def name(self, value: str) -> None:
        pass


@needs_c
def test_the_attributes_read_and_raised_at_their_slots_are_those_read_by_name():
    """The C kernel reads an entry's, its call's and the tally's attributes, and raises a
    shape's ``waiting``, at their slots' offsets in the type last met, by name where an
    attribute is no plain slot: objects of every kind, met in turn, answer as the twin's
    getattr and setattr, a count too big for a C integer raised too."""
    right = b'{"id": "e1", "name": "get", "arguments": {"a": 1}}'
    other = b'{"id": "e1", "name": "set", "arguments": {"a": 1}}'
    section = Section(5)
    for _ in range(2):  # (each type met again after the others)
        for shape_type, waiting in (
            (SlottedShape, 0),
            (PaddedShape, 4),
            (Shape, 3),
            (SlottedShape, 2**70),
            (PropertyShape, 5),
            (GuardedShape, 1),
            (SlottedShape, -1),
        ):
            for tally_type, entry_type, call_type, line in (
                (Tally, Expected, ExpectedCall, right),
                (SlottedTally, RenamedEntry, ExpectedCall, right),
                (OtherTally, Expected, ExpectedCall, right),
                (SlottedTally, Expected, CallOfOtherName, other),
                (Tally, Expected, CallOfOtherName, right),
            ):
                told = []
                for kernel in (C.score_flat, line_scores.score_flat):
                    call = call_type("get", literal={"a": 1})
                    entry = entry_type("e1", (call,), category="c")
                    entries, scored = {"e1": entry}, {}
                    shapes = Shapes()
                    made = line.split(b'"name": "')[1].split(b'"')[0].decode()
                    mask = 0 if made == call.name else 1
                    key = (id(section), entry.category, call.name, ("a",), made, mask)
                    shape = shapes.table[key] = shape_type()
                    shape.waiting = waiting
                    answer = shapes.score_flat(kernel, entries, scored, line, tally_type(section))
                    raised = getattr(shape, "raised", None)
                    decoy = getattr(shape, "decoy", None)
                    told.append((answer, list(scored), shape.waiting, raised, decoy, shapes.firsts))
                assert told[0] == told[1]
                assert told[0][0] and told[0][2] == waiting + 1
                assert type(told[0][2]) is int


# -- a provider record's one call (score_call) ----------------------------------------


@st.composite
def calls(draw: st.DrawFn) -> tuple[dict[str, Any], str, str | bytes, str, object]:
    """A provider record's one call as a typed decode names it (the literal arguments of
    its entry, the tool's name, the arguments' JSON text as a str or as bytes, its id
    and its model), changed from the entry in one of the ways a log may be."""
    name = draw(st.sampled_from(["get", "get", "get", "g\ud800t", "gét"]))
    literal, name, text, _ = draw(changed_calls(name))
    text = draw(st.sampled_from(["", " ", "\n"])) + text + draw(st.sampled_from(["", " \r\n"]))
    if draw(st.integers(0, 9)) == 0:
        text += draw(st.sampled_from(["x", "}", ",", "{}"]))  # no JSON object alone
    if draw(st.integers(0, 19)) == 0:
        text = text.replace('"', "\ud800", 1)  # a lone surrogate, as a str may hold
    arguments: str | bytes = text
    if draw(st.booleans()):  # a Raw: the JSON value's UTF-8 as the line gives it
        arguments = text.encode("utf-8", "surrogatepass")
    id = draw(st.sampled_from(["e1", "1", "none", "e2", 'q"1', "é", "any", "mask"]))
    model = draw(st.sampled_from([None, "m", 'm"x', "é", "\n", 5]))
    return literal, name, arguments, id, model


def call_state(literal: dict[str, Any], already: bool, known: bool, section: object) -> tuple:
    """:func:`state`'s entries, and: ids orjson escapes or not (``q"1``, ``é``), an
    entry of accept objects (``any``), one of 65 parameters (``mask``)."""
    entries, scored, shapes = state(literal, already, known, section)
    call = ExpectedCall("get", literal=literal)
    entries['q"1'] = Expected('q"1', (call,))
    entries["é"] = Expected("é", (call,), category="c")
    entries["any"] = Expected("any", (ExpectedCall("get", arguments={}),))
    wide = {f"p{number}": number for number in range(65)}
    entries["mask"] = Expected("mask", (ExpectedCall("get", literal=wide),))
    return entries, scored, shapes


def scored_call(
    kernel: Any, shapes: Shapes, entries: dict, scored: dict, call: tuple, tally: Any, rows: Any
) -> bool:
    """The kernel's answer for a call (:func:`calls`' name, arguments, id, model)."""
    name, arguments, id, model = call
    write, source = (rows.append, b'"logs/a \xc3\xa9.jsonl"') if rows is not None else (None, None)
    return kernel(
        entries,
        scored,
        shapes.table,
        5,
        shapes.first,
        write,
        source,
        id,
        name,
        arguments,
        model,
        tally,
        7,
    )


def call_key(entry: Expected, name: str, arguments: str | bytes) -> tuple:
    """The shape key of an entry answered by the call, as the full comparison scores it
    (the call made as the typed path makes it)."""
    made = typed_made_calls([(None, name, arguments)])
    assert made is not None
    return compared_key(entry, made)


@needs_c
@pytest.mark.slow  # (a long property run: make test runs it, make quick not)
@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(calls(), st.booleans(), st.booleans(), st.booleans(), st.sampled_from([0, 5]), st.booleans())
def test_a_provider_call_is_told_alike_by_c_and_the_twin_as_the_comparison_scores_it(
    case: tuple[dict[str, Any], str, str | bytes, str, object],
    already: bool,
    known: bool,
    no_section: bool,
    samples: int,
    scores: bool,
) -> None:
    literal, *call = case
    section = Section(samples)
    tally = Tally(None if no_section else section)
    answers, states = [], []
    for kernel in (C.score_call, line_scores.score_call):
        entries, scored, shapes = call_state(literal, already, known, section)
        rows: list[bytes] | None = [] if scores else None
        answers.append(scored_call(kernel, shapes, entries, scored, tuple(call), tally, rows))
        states.append((list(scored), shapes.told(), rows))
    assert answers[0] == answers[1]
    assert states[0] == states[1]
    name, arguments, id, model = call
    assert states[0][1] == ([call_key(entries[id], name, arguments)] if answers[0] else [])
    if scores and answers[0]:
        row = correct_row(entries[id], 0, model, ("logs/a é.jsonl", 7))
        assert states[0][2] == [dump_score(row)]


@needs_c
@pytest.mark.parametrize(
    ("arguments", "told"),
    [
        (RIGHT, "right"),
        (RIGHT.encode(), "right"),
        (" \n" + RIGHT + "\r\n ", "right"),
        ('{"b":[true,null,"x"],"a":1}', "right"),
        ('{"a": 2, "b": [true, null, "x"]}', "a wrong"),
        (b'{"a": 1, "b": [true, null, "y"]}', "b wrong"),
        ('{"a": 1, "b": [true, null, "\\u0078"]}', None),  # an escape
        ('{"a": 1.0, "b": [true, null, "x"]}', None),  # 1 == 1.0: Python's
        ('{"a": 1, "a": 1, "b": [true, null, "x"]}', None),  # a key twice
        ('{"a": 1}', None),  # missing
        ('{"a": 1, "b": [true, null, "x"], "c": 1}', None),  # unexpected
        ('{"a": 1, "b": [true, null, "x"], "c": 1234567890123456}', None),  # a long run
        (RIGHT + "x", None),
        (RIGHT + "{}", None),
        (json.dumps(RIGHT), None),  # a JSON string holding the arguments
        ("[1]", None),
        ("", None),
    ],
)
def test_what_the_call_kernel_tells(arguments: str | bytes, told: str | None) -> None:
    literal = {"a": 1, "b": [True, None, "x"]}
    section = Section(5)
    for kernel in (C.score_call, line_scores.score_call):
        entries, scored, shapes = state(literal, False, True, section)
        call = ("get", arguments, "e1", "m")
        answer = scored_call(kernel, shapes, entries, scored, call, Tally(section), None)
        assert answer is (told is not None)
        assert bool(scored) is answer
        assert [key[1:] for key in shapes.told()] == ([] if told is None else [SHAPES[told]])


@needs_c
@pytest.mark.parametrize(
    ("name", "arguments", "id", "told"),
    [
        ("set", RIGHT, "e1", "another tool"),
        ("set", RIGHT + "x", "e1", None),  # another tool, the arguments no JSON object
        ("get", RIGHT, "none", "unwanted"),
        ("get", "{", "none", None),  # unwanted, the arguments no JSON object
        ("get", RIGHT, 1, None),  # an id that is no str
        ("get", RIGHT, "e2", None),  # no entry
    ],
)
def test_what_the_call_kernel_tells_of_another_tool_and_an_unwanted_call(
    name: str, arguments: str, id: object, told: str | None
) -> None:
    section = Section(5)
    for kernel in (C.score_call, line_scores.score_call):
        entries, scored, shapes = state({"a": 1, "b": [True, None, "x"]}, False, True, section)
        call = (name, arguments, id, None)
        answer = scored_call(kernel, shapes, entries, scored, call, Tally(section), None)
        assert answer is (told is not None)
        assert [key[1:] for key in shapes.told()] == ([] if told is None else [SHAPES[told]])


@needs_c
@pytest.mark.parametrize(
    ("id", "model", "told"),
    [
        ("e1", "m", True),
        ("e1", None, True),
        ("é", "é", True),
        ('q"1', "m", False),
        ("e1", 'm"x', False),
        ("e1", "m\n", False),
        ("e1", 5, False),
    ],
)
def test_a_call_s_scores_line_is_written_for_an_id_and_a_model_orjson_writes_as_they_are(
    id: str, model: object, told: bool
) -> None:
    section = Section(5)
    for kernel in (C.score_call, line_scores.score_call):
        entries, scored, shapes = call_state({"a": 1}, False, True, section)
        rows: list[bytes] = []
        call = ("get", '{"a": 1}', id, model)
        assert scored_call(kernel, shapes, entries, scored, call, Tally(section), rows) is told
        expected = correct_row(entries[id], 0, model, ("logs/a é.jsonl", 7))
        assert rows == ([dump_score(expected)] if told else [])


#: The provider formats whose one call the kernel scores (named by the typed decode:
#: arguments as a JSON string's value, or as the object's slice of the line).
PROVIDERS = (
    "openai-chat",
    "openai-responses",
    "openai-batch",
    "anthropic",
    "anthropic-batch",
    "gemini",
    "bedrock",
    "envelope",
)


@st.composite
def provider_logs(draw: st.DrawFn) -> tuple[bytes, bytes, str]:
    """A provider's log (one format, now and then a line of another), its expected file
    and the --expected-key its ids are at: most records of one call answered right, their
    arguments written any way (escaped or not, keys reordered or twice, 1.0 for 1, ...);
    some of two calls or another tool, some ids repeated, absent, integers (past 64 bits
    too), escaped or not, at a key spelled with an escape, some entries of no call or of
    accept objects; now and then a run of 19 digits or 18 in the line (a long integer
    may be there: the general path's line)."""
    format_name = draw(st.sampled_from(PROVIDERS))
    key = draw(st.sampled_from(["eval.id", "xid"]))
    log, expected = [], []
    shapes = draw(
        st.lists(
            st.fixed_dictionaries(
                {"city": st.sampled_from(["Oslo", "Zürich", 'a"b', "\\u00e9"])},
                optional={"days": st.sampled_from([3, 4, 1.0, -0.0, 2**70]), "near": VALUES},
            ),
            min_size=1,
            max_size=3,
        )
    )
    for number in range(draw(st.integers(1, 20))):
        if draw(st.integers(0, 6)) == 0:
            format_name = draw(st.sampled_from(PROVIDERS))
        literal = draw(st.sampled_from(shapes))
        ids = [f"e{number}", f"e{number}", number, "e0", None, f"ø{number}", f'q"{number}']
        id = draw(st.sampled_from([*ids, 2**70 + number, 1.5, True]))
        tool = draw(st.sampled_from(["get", "get", "get", "set"]))
        made = dict(literal)
        if draw(st.integers(0, 4)) == 0:
            made["city"] = "Bergen"
        if draw(st.integers(0, 6)) == 0:
            made.pop("days", None)
        if draw(st.integers(0, 8)) == 0:
            made["extra"] = 1
        text = draw(written(made))
        made_calls = [call(tool, made, f"c{n}", text=text) for n in range(draw(CALLS_MADE))]
        extra: dict[str, Any] = {}
        if id is not None:
            extra = {"eval": {"id": id}} if key == "eval.id" else {"xid": id}
        digits = draw(st.sampled_from([None, None, None, "1" * 18, "2" * 19, 10**18, 10**19]))
        if digits is not None:
            extra["note"] = digits
        line = line_of(WRITERS[format_name](made_calls, **extra))
        if format_name in OBJECT_FORMATS:
            line = line.replace(line_of(made), text.encode(), len(made_calls))
        if draw(st.booleans()):
            line = line.replace(b"\\u00f8", "ø".encode())  # (the id's, unescaped)
        if draw(st.integers(0, 9)) == 0:
            line = line.replace(b'"xid"', b'"\\u0078id"')
        log.append(line)
        if type(id) in (str, int) and str(id) != "e0" and draw(st.integers(0, 5)):
            entry: dict[str, Any] = {"id": id, "calls": [{"name": "get", "arguments": literal}]}
            kind = draw(st.integers(0, 9))
            if kind == 0:
                entry["calls"] = []
            elif kind == 1:
                entry["calls"][0]["arguments"] = {"city": {"accept": ["Oslo", "Bergen"]}}
            category = draw(st.sampled_from([None, "a", "b", 'q"']))
            if category is not None:
                entry["category"] = category
            expected.append(json.dumps(entry, ensure_ascii=draw(st.booleans())))
    expected.append('{"id": "e0", "calls": [{"name": "get", "arguments": {"city": "Oslo"}}]}')
    expected.append('{"id": "never", "calls": []}')
    return b"\n".join(log) + b"\n", ("\n".join(expected) + "\n").encode(), key


#: How many calls a generated record makes (one mostly; two are Python's to score).
CALLS_MADE = st.sampled_from([1, 1, 1, 1, 2])


@pytest.mark.slow  # a long property run
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(provider_logs(), st.booleans(), st.booleans())
def test_provider_audits_are_alike_with_the_kernel_in_c_in_python_and_off(
    files: tuple[bytes, bytes, str], grouped: bool, scores: bool
) -> None:
    log, expected_lines, key = files
    options: dict[str, Any] = {"scores": scores, "key": key}
    if grouped:
        options["group_by"] = ("model",)
    results = audited_three_ways(log, expected_lines, **options)
    assert results[0] == results[1] == results[2]
    with tempfile.TemporaryDirectory() as directory:
        expected = Path(directory) / "expected.jsonl"
        expected.write_bytes(expected_lines)
        assert audited(log, expected, typed=False, **options) == results[0]


@pytest.mark.parametrize("format_name", ["openai-chat", "anthropic", "gemini", "envelope"])
@pytest.mark.parametrize("key", ["eval.id", "xid"])
@pytest.mark.parametrize(("grouped", "scores"), [(False, False), (True, False), (False, True)])
def test_the_kernel_counts_a_provider_log_s_entries_but_the_samples(
    format_name: str, key: str, grouped: bool, scores: bool, tmp_path: Path
) -> None:
    lines = [
        line_of(
            WRITERS[format_name](
                [call("get", {"city": "Oslo", "days": n % 3})],
                **({"eval": {"id": f"e{n}"}} if key == "eval.id" else {"xid": f"e{n}"}),
            )
        )
        for n in range(40)
    ]
    expected = forty_entries(tmp_path / "expected.jsonl")
    options: dict[str, Any] = {"group_by": ("model",)} if grouped else {}
    with call_kernel_answers() as told:
        _, written, summary = audited(
            b"\n".join(lines) + b"\n", expected, key=key, scores=scores, **options
        )
    outcomes = summary["ground_truth"]["outcomes"]
    assert (outcomes["correct"], outcomes["incorrect"]) == (32, 8)
    # Every right answer, and every wrong one (days) past the five kept as samples;
    # with --scores, the right ones (a wrong one's line lists its mismatches: Python's).
    assert told.count(True) == (32 if scores else 32 + (8 - 5))
    assert len(written.splitlines()) == (40 if scores else 0)


# -- an id read at its key in C (id_at) -------------------------------------------------


#: Values an id may be given as in a generated line (strings with escapes written by
#: ``written`` when it escapes them, integers, -0, and ids of no kind).
IDS = st.sampled_from(
    ["e1", "é", 'q"1', "a\\b", "\u2028", "", "1", 7, -3, 0, 2**70, 1.5, True, None]
)


@st.composite
def keyed_lines(draw: st.DrawFn) -> bytes:
    """A line of JSON whose top-level ``id`` (or not) holds an id, among other members
    written any way: escapes, keys given twice, nesting, whitespace, ``-0``, a key
    spelled with an escape."""
    record = draw(st.dictionaries(st.sampled_from(["model", "xid", "é", "i"]), VALUES, max_size=3))
    if draw(st.integers(0, 5)):
        record["id"] = draw(IDS)
    text = draw(written(record))
    if draw(st.integers(0, 9)) == 0:
        text = text.replace('"id"', '"\\u0069d"', 1)
    if draw(st.integers(0, 9)) == 0:
        text = text.replace(": 0", ": -0", 1).replace(":0", ":-0", 1)
    return text.encode()


@needs_c
@pytest.mark.slow  # (a long property run: make test runs it, make quick not)
@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(keyed_lines())
def test_an_id_read_at_its_key_in_c_is_the_id_line_ids_reads(line: bytes) -> None:
    try:
        orjson.loads(line)
    except orjson.JSONDecodeError:
        return  # (not a line the typed path reads: no JSON, or a number orjson refuses)
    read = scored_lines.ID_AT
    scored_lines.ID_AT = None
    try:
        ids = LineIds("id")
    finally:
        scored_lines.ID_AT = read
    assert C is not None
    found = C.id_at(line, "id")
    if found is not None:
        assert found == ids.id_of(line)


@needs_c
@pytest.mark.parametrize(
    ("line", "found"),
    [
        ('{"id": "e1", "model": "m"}', "e1"),
        (r' {"x": {"id": "no"}, "id" : "é", "y": ["a\"b", {"c": "\\"}]} ', "é"),
        (r'{"id": 12, "y": "\u0069d"}', "12"),
        (r'{"y": ["a\"b", {"\u0063": 1}], "id": "e1"}', "e1"),  # escapes before the id
        ('{"id": -3}', "-3"),
        ('{"id": -0}', None),
        (r'{"id": "e\u0031"}', None),
        (r'{"\u0069d": "e1", "id": "e2"}', None),
        ('{"id": "e1", "id": "e1"}', None),
        ('{"id": 1.0}', None),
        ('{"id": true}', None),
        ('{"x": 1}', None),
        ('{"id": "e1", "x": 1e400}', "e1"),  # (numbers are not read: msgspec's reading)
        ('{"x": ' + "[" * 70 + '"id"' + "]" * 70 + ', "id": 5}', "5"),  # (nor is nesting limited)
        ('{"x": {"id": "no", "y": ["id", {"id": 1}]}, "z": [{}, []], "id": "e1"}', "e1"),
        ('{"x": {"id": "no"}}', None),
        ('{"x": "id", "y": "e1"}', None),  # (a value spelling the key)
        ('{"x": ["\\", "\\"", "]}"], "id": "e1"}', "e1"),  # (brackets in strings)
        ('{"id": "e1", "x": {"\\u0069d": 1}}', "e1"),  # (an escape in a nested key)
        ('{"id": "tab\there"}', None),  # (an escape in the id)
        ('{"id": "a\tb"}'.replace("\\t", "\t"), None),  # (a control character in it)
        ('{"id": {"a": 1}}', None),
        ('{"id": [1]}', None),
        ('{"id": null}', None),
        ('{"id":7,"x":1}', "7"),
        ('{"id":-7}', "-7"),
        ('{"id": 1e5}', None),
        ('{"id": 12 }', "12"),
        ('{"id": "e1"', None),
        ('{"id": "e1"} x', None),
        ('{"id": "e1"}}', None),
        ('{"id": "e1", "x": "open}', None),
        ("{}", None),
        ('["id", "e1"]', None),
    ],
)
def test_what_id_at_reads(line: str, found: str | None) -> None:
    assert C is not None
    assert C.id_at(line.encode(), "id") == found


# -- a provider record's id read before its line is counted (CallKernel.id_of) ----------


def call_kernels(key: str, entries: dict[str, Any]) -> list[Any]:
    """``CallKernel`` in C (where built) and its twin, of ``key`` and ``entries``."""
    made = [line_scores.CallKernel]
    if C is not None:
        made.insert(0, C.CallKernel)
    return [kind(key, entries, {}, {}, 5, print, None, None) for kind in made]


#: One call's arguments as the typed decode names them: a str, or a Raw (a slice of the
#: line, the JSON value itself).
ONE_CALL = [(None, "get", '{"city": "Oslo"}')]


@pytest.mark.parametrize(
    ("line", "key", "calls", "found"),
    [
        ('{"xid": "e1", "model": "m"}', "xid", ONE_CALL, "e1"),
        ('{"xid": 12}', "xid", ONE_CALL, "12"),
        ('{"xid": "e2"}', "xid", ONE_CALL, "e2"),  # (no entry: score looks it up)
        ('{"x": 1}', "xid", ONE_CALL, None),
        ('{"xid": "e1"}', "xid", [], None),
        ('{"xid": "e1"}', "xid", ONE_CALL * 2, None),
        ('{"xid": "e1"}', "xid", [(None, "get", msgspec.Raw(b'{"a": 1}'))], "e1"),
        ('{"xid": "e1"}', "xid", [(None, "get", msgspec.Raw(b'"{}"'))], None),
        ('{"xid": "e1"}', "xid", [(None, "get", msgspec.Raw(b""))], None),
        ('{"eval": {"id": "e1"}}', "eval.id", ONE_CALL, None),  # (a path: Python's)
        ('{"eval.id": "e1"}', "eval.id", ONE_CALL, None),  # (not the path's id)
        # A run of 19 digits anywhere: the general path's line, with an entry or not.
        ('{"xid": "e1", "n": 1234567890123456789}', "xid", ONE_CALL, False),
        ('{"xid": "e1", "n": "x1234567890123456789"}', "xid", ONE_CALL, False),
        ('{"xid": 1234567890123456789}', "xid", ONE_CALL, False),
        ('{"x": 1, "n": 12345678901234567890123}', "xid", ONE_CALL, False),
        ('{"xid": "e1", "n": 1234567890123456789}', "xid", [], False),
        ('{"eval": {"id": "e1"}, "n": 1234567890123456789}', "eval.id", ONE_CALL, False),
        ("1234567890123456789", "xid", ONE_CALL, False),
        ('{"xid": "e1", "n": 123456789012345678}', "xid", ONE_CALL, "e1"),
        ('{"xid": "e1", "n": "123456789.1234567890"}', "xid", ONE_CALL, "e1"),
    ],
)
def test_what_a_call_kernel_reads_before_a_line_is_counted(
    line: str, key: str, calls: list[Any], found: str | bool | None
) -> None:
    for kernel in call_kernels(key, {"e1": None, "12": None, "1234567890123456789": None}):
        assert kernel.id_of(line.encode(), calls) == found, kernel


@needs_c
@pytest.mark.parametrize(
    "line",
    [
        r'{"xid": "e\u0031"}',  # (an escape in the id)
        r'{"\u0078id": "e1"}',  # (one in a key: it may spell the key)
        '{"xid": "e1", "xid": "e1"}',
        '{"xid": -0}',
    ],
)
def test_the_c_leaves_to_python_an_id_id_at_leaves(line: str) -> None:
    assert C is not None
    [compiled, twin] = call_kernels("xid", {"e1": None, "0": None})
    assert compiled.id_of(line.encode(), ONE_CALL) is None
    assert twin.id_of(line.encode(), ONE_CALL) in ("e1", "0")  # (the same id, read so)


@st.composite
def lines_with_digits(draw: st.DrawFn) -> bytes:
    """A line of keyed_lines, some of its values runs of digits around 19 long (in a
    number, in a string, in the id)."""
    line = draw(keyed_lines()).replace(b'"id"', b'"xid"').replace(b'"\\u0069d"', b'"\\u0078id"')
    for _ in range(draw(st.integers(0, 2))):
        digits = "7" * draw(st.integers(17, 21))
        member = draw(st.sampled_from([digits, f'"a{digits}b"']))
        name = draw(st.sampled_from(["xid", "n"]))
        line = line.replace(b"{", f'{{"{name}": {member}, '.encode(), 1)
    return line.replace(b", }", b"}")


@pytest.mark.slow  # a long property run
@needs_c
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines_with_digits(), st.sampled_from([ONE_CALL, [], ONE_CALL * 2]))
def test_an_id_read_before_a_line_is_counted_is_the_twin_s(line: bytes, calls: list[Any]) -> None:
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        return  # (not a line the typed path reads)
    id = id_text(record.get("xid")) if type(record) is dict else None
    [compiled, twin] = call_kernels("xid", {})
    found = twin.id_of(line, calls)
    assert (found is False) == may_hold_long_integers(line)
    if found is not False:
        assert found == (id if calls == ONE_CALL else None)
    read = compiled.id_of(line, calls)
    assert read == found or (read is None and C is not None and C.id_at(line, "xid") is None)
