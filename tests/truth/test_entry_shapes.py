"""Entries answered right by one call, counted per shape and settled at once
(:class:`toolaudit.results.entry_shapes.EntryShapes`), give the section that adding
each entry's Score gives: the same counts, and ``by_tool`` made in the same order (the
order that bounds it), whatever else comes between them (other outcomes, made-up tool
names filling a small table, bucket names, no category)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolaudit.results import entry_shapes
from toolaudit.results.entry_shapes import EntryShapes
from toolaudit.results.ground_truth import GroundTruth
from toolaudit.truth import line_scores
from toolaudit.truth.entries import Expected, ExpectedCall
from toolaudit.truth.match import OUTCOMES, Score

TOOLS = st.sampled_from(["get", "set", "<other>", "\\<other>", "", "x.y"])
CATEGORIES = st.sampled_from([None, "a", "b", "null"])
PARAMETERS = st.lists(st.sampled_from(["p", "q", "r"]), unique=True, max_size=3).map(tuple)
#: A correct entry of one call: (category, tool, its parameters).
CORRECT = st.tuples(CATEGORIES, TOOLS, PARAMETERS)
#: Any other entry: its score, the tools made, the tools expected.
OTHER = st.tuples(
    st.builds(
        lambda outcome, category, parameters: Score(
            "e", category, outcome, outcome == "correct", (), (), None, tuple(parameters)
        ),
        st.sampled_from(OUTCOMES),
        CATEGORIES,
        st.lists(st.tuples(TOOLS, st.sampled_from(["p", "q"]), st.booleans()), max_size=3),
    ),
    st.lists(TOOLS, max_size=2),
    st.lists(TOOLS, max_size=2),
)
#: Each section an entry may go to (two sections: the groups of --group-by).
ENTRIES = st.lists(st.tuples(st.booleans(), CORRECT | OTHER), max_size=20)


@settings(max_examples=400, deadline=None)
@given(ENTRIES, st.integers(1, 4), st.integers(0, 20))
def test_shapes_settled_count_as_each_score_added(entries, max_tools, settle_at) -> None:
    shaped = [GroundTruth(max_tools=max_tools), GroundTruth(max_tools=max_tools)]
    added = [GroundTruth(max_tools=max_tools), GroundTruth(max_tools=max_tools)]
    correct = EntryShapes()
    for number, (second, entry) in enumerate(entries):
        if number == settle_at:
            correct.settle()  # settling twice adds nothing twice
        if len(entry) == 3 and isinstance(entry[0], Score):
            score, made, expected = entry
            shaped[second].add(score, list(made), list(expected))
            added[second].add(score, list(made), list(expected))
            continue
        category, tool, parameters = entry
        correct.count(shaped[second], category, tool, parameters)
        matched = tuple((tool, name, True) for name in parameters)
        score = Score("e", category, "correct", True, (), ((0, 0),), None, matched)
        added[second].add(score, [tool], [tool])
    correct.settle()
    for mine, theirs in zip(shaped, added, strict=True):
        assert mine.to_dict() == theirs.to_dict()
        assert list(mine.by_tool) == list(theirs.by_tool)
        assert list(mine.by_category) == list(theirs.by_category)


def test_a_count_waits_for_settle() -> None:
    section = GroundTruth()
    correct = EntryShapes()
    for _ in range(3):
        correct.count(section, "a", "get", ("p",))
    assert section.total == 1  # the first of its shape, added at once
    correct.settle()
    assert section.total == 3
    assert section.by_parameter["get"]["p"].matched == 3
    correct.settle()
    assert section.total == 3


#: An entry's shape as the C kernel tells it: (category, tool expected or None, its
#: parameters, tool made, mask of the parameters that failed).
SHAPED = st.tuples(
    CATEGORIES,
    st.sampled_from([None, "get", "set"]),
    PARAMETERS,
    TOOLS,
    st.integers(0, 7),
)


def score_of(shape: tuple) -> tuple[Score, list[str], list[str]]:
    """The Score of an entry of ``shape``, the tools made and expected, as the scorer
    would add them."""
    category, tool, parameters, made, mask = shape
    if tool is None:
        return (
            Score("e", category, "unwanted_call", False, (f"extra_call:{made}",), ()),
            [made],
            [],
        )
    right = made == tool
    matched = tuple(
        (tool, name, right and not mask >> index & 1) for index, name in enumerate(parameters)
    )
    correct = right and not any(mask >> index & 1 for index in range(len(parameters)))
    outcome = "correct" if correct else "incorrect"
    return Score("e", category, outcome, correct, (), (), None, matched), [made], [tool]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.booleans(), SHAPED | OTHER), max_size=20), st.integers(1, 4))
def test_shapes_first_added_then_counted_count_as_each_score_added(entries, max_tools) -> None:
    shaped = [GroundTruth(max_tools=max_tools), GroundTruth(max_tools=max_tools)]
    added = [GroundTruth(max_tools=max_tools), GroundTruth(max_tools=max_tools)]
    for section in shaped + added:
        section.samples = [{}] * 5  # (an entry not correct comes once they are kept)
    shapes = EntryShapes()
    for second, entry in entries:
        if isinstance(entry[0], Score):
            score, made, expected = entry
            shaped[second].add(score, list(made), list(expected))
            added[second].add(score, list(made), list(expected))
            continue
        category, tool, parameters, made, mask = entry
        if tool is None:  # (no call expected: no parameters, nothing failed)
            parameters, mask = (), 0
        mask &= (1 << len(parameters)) - 1
        entry = (category, tool, parameters, made, mask)
        score, made_tools, expected_tools = score_of(entry)
        added[second].add(score, made_tools, expected_tools)
        shape = shapes.shapes.get((id(shaped[second]), *entry))
        if shape is not None:
            shape.waiting += 1
        else:
            shapes.first(shaped[second], *entry)
    shapes.settle()
    for mine, theirs in zip(shaped, added, strict=True):
        assert mine.to_dict() == theirs.to_dict()
        assert list(mine.by_tool) == list(theirs.by_tool)
        assert list(mine.by_category) == list(theirs.by_category)
        assert list(mine.outcomes) == list(theirs.outcomes)


#: The kernels that count an entry by its shape: C's where it was built, and the twin.
KERNELS = [kernel for kernel in (line_scores.SPEEDUPS, line_scores) if kernel is not None]
#: A line's mask of the parameters given another value.
MASKS = st.integers(0, 7)
#: The tables EntryShapes may keep: C's (its hashes kept, or all alike) where it was
#: built, a dict.
TABLES = ("c", "c colliding", "dict") if entry_shapes._SPEEDUPS is not None else ("dict",)
#: A line the kernel scores: (category, tool expected or None, parameters, tool made,
#: mask of the parameters given another value).
SCORED_PARTS = (
    CATEGORIES,
    st.sampled_from([None, "get", "set"]),
    PARAMETERS,
    # (Most often the tool expected: "=".)
    st.sampled_from(["=", "=", "=", "get", "set", "<other>", "\\<other>", "x.y", "made", "up"]),
    MASKS,
)
SCORED = st.tuples(*SCORED_PARTS)


@st.composite
def shape_pool(draw: st.DrawFn) -> list[tuple]:
    """A few shapes, each but the first another's like but for one part (its category,
    its tool, its parameters, the tool made, its mask)."""
    pool = [draw(SCORED)]
    for _ in range(draw(st.integers(0, 4))):
        shape = list(draw(st.sampled_from(pool)))
        part = draw(st.integers(0, 4))
        parameters = shape[2]
        shape[part] = draw(SCORED_PARTS[part])
        if part == 2 and draw(st.booleans()):  # (a parameter less, or one more)
            shape[2] = parameters[:-1] if "s" in parameters else (*parameters, "s")
        pool.append(tuple(shape))
    return pool


#: What comes between the kernel's lines: an entry counted by EntryShapes.count (a
#: Python caller: section, category, tool, parameters), another entry added whole
#: (section, OTHER), a settle.
BETWEEN = (
    st.tuples(st.integers(0, 2), CORRECT) | st.tuples(st.integers(0, 2), OTHER) | st.just("settle")
)


class Tally:
    """What the kernel reads of a tally: the section it counts in."""

    def __init__(self, ground_truth: GroundTruth) -> None:
        self.ground_truth = ground_truth


def kernel_shapes(table: str) -> EntryShapes:
    """An EntryShapes whose table is the C one (``"c"``, where it was built; ``"c
    colliding"``: every key's hash the same), or a dict."""
    if table.startswith("c"):
        return EntryShapes()
    compiled = entry_shapes._SPEEDUPS
    entry_shapes._SPEEDUPS = None
    try:
        return EntryShapes()
    finally:
        entry_shapes._SPEEDUPS = compiled


def counted_by_kernel(kernel: Any, table: str, steps: list, max_tools: int) -> tuple:
    """The sections the steps count in, each line the kernel scores counted by it (or,
    where it answers False, added whole); the kernel's answers."""
    shaped = [GroundTruth(max_tools=max_tools) for _ in range(3)]
    for section in shaped:
        section.samples = [{}] * 5  # (an entry not correct comes once they are kept)
    shapes = kernel_shapes(table)
    entries: dict[str, Expected] = {}
    scored: dict[str, None] = {}
    answers = []
    for number, step in enumerate(steps):
        if step == "settle":
            shapes.settle()
            continue
        where, entry = step
        section = shaped[where]
        if isinstance(entry[0], Score):
            score, made, expected = entry
            section.add(score, list(made), list(expected))
            continue
        if len(entry) == 3:
            shapes.count(section, *entry)
            continue
        category, tool, parameters, made, mask = entry
        calls = (ExpectedCall(tool, literal={name: 1 for name in parameters}),) if tool else ()
        id = f"e{number}"
        entries[id] = Expected(id, calls, category=category)
        arguments = {name: 1 + (mask >> index & 1) for index, name in enumerate(parameters)}
        answer = kernel.score_call(
            entries, scored, shapes.shapes, 5, shapes.first, None, None, id, made,
            json.dumps(arguments), None, Tally(section), number,
        )  # fmt: skip
        answers.append(answer)
        if not answer:
            section.add(*score_of(entry))
    shapes.settle()
    return shaped, answers


def added_whole(steps: list, max_tools: int) -> list[GroundTruth]:
    """The sections the steps count in, every entry's Score added whole."""
    added = [GroundTruth(max_tools=max_tools) for _ in range(3)]
    for section in added:
        section.samples = [{}] * 5
    for step in steps:
        if step == "settle":
            continue
        where, entry = step
        if isinstance(entry[0], Score):
            score, made, expected = entry
            added[where].add(score, list(made), list(expected))
        elif len(entry) == 3:
            category, tool, parameters = entry
            matched = tuple((tool, name, True) for name in parameters)
            score = Score("e", category, "correct", True, (), ((0, 0),), None, matched)
            added[where].add(score, [tool], [tool])
        else:
            added[where].add(*score_of(entry))
    return added


def shaped_line(where: int, shape: tuple, mask: int, own_mask: bool) -> tuple:
    """A line's step, its shape as the kernel tells it (no parameters where no call is
    expected; another tool's every parameter failed; a mask of its parameters: the
    shape's own, or ``mask``)."""
    category, tool, parameters, made, shape_mask = shape
    if own_mask:
        mask = shape_mask
    if made == "=":
        made = tool if tool is not None else "get"
    if tool is None:
        parameters, mask = (), 0
    mask &= (1 << len(parameters)) - 1
    if tool is not None and made != tool:
        mask = (1 << len(parameters)) - 1
    return where, (category, tool, parameters, made, mask)


def lines_between(pool: list[tuple]) -> st.SearchStrategy[list]:
    """Lines of the pool's shapes (each met often, with its own mask or any: shapes
    alike but for one part), and what comes between them."""
    line = st.builds(shaped_line, st.integers(0, 2), st.sampled_from(pool), MASKS, st.booleans())
    return st.lists(line | line | line | BETWEEN, min_size=10, max_size=40)


@pytest.mark.slow  # a long property run
@settings(max_examples=300, deadline=None)
@given(
    shape_pool().flatmap(lines_between),
    st.integers(1, 4),
)
def test_lines_counted_by_the_kernel_in_a_table_count_as_each_score_added(steps, max_tools) -> None:
    """Many sections, a shape first met in one then in another, names by_tool folds,
    settles anywhere, counts of Python callers between: the C table, the twin on it and
    on a dict count as the entries added whole, and the kernels answer alike."""
    added = added_whole(steps, max_tools)
    answers = []
    for kernel in KERNELS:
        for table in TABLES:
            if table == "c colliding":
                line_scores.SPEEDUPS._collide_shapes(True)
            try:
                shaped, told = counted_by_kernel(kernel, table, steps, max_tools)
            finally:
                if table == "c colliding":
                    line_scores.SPEEDUPS._collide_shapes(False)
            answers.append(told)
            for mine, theirs in zip(shaped, added, strict=True):
                assert mine.to_dict() == theirs.to_dict()
                assert list(mine.by_tool) == list(theirs.by_tool)
                assert list(mine.by_category) == list(theirs.by_category)
                assert list(mine.outcomes) == list(theirs.outcomes)
    assert all(told == answers[0] for told in answers)


@pytest.mark.skipif(entry_shapes._SPEEDUPS is None, reason="the C kernel was not built")
def test_the_c_table_counts_its_shapes_until_settle() -> None:
    """300 shapes (the table grown several times), each met three times by the kernel
    and once by EntryShapes.count: the first of each added at once, the rest counted in
    C (its ``waiting`` unchanged) and by count (raised), all added by settle, once."""
    kernel = line_scores.SPEEDUPS
    assert kernel is not None
    section = GroundTruth()
    shapes = EntryShapes()
    entries: dict[str, Expected] = {}
    scored: dict[str, None] = {}
    for time in range(3):
        for number in range(300):
            id = f"e{number}-{time}"
            call = ExpectedCall("get", literal={"p": 1})
            entries[id] = Expected(id, (call,), category=f"c{number}")
            told = kernel.score_call(
                entries, scored, shapes.shapes, 5, shapes.first, None, None, id, "get",
                '{"p": 1}', None, Tally(section), 1,
            )  # fmt: skip
            assert told
    for number in range(300):
        shapes.count(section, f"c{number}", "get", ("p",))
    assert section.total == 300
    assert {shape.waiting for shape in shapes.shapes.values()} == {1}  # count's alone
    shapes.settle()
    assert section.total == 1200
    assert {tally.total for tally in section.by_category.values()} == {4}
    assert section.by_parameter["get"]["p"].matched == 1200
    shapes.settle()
    assert section.total == 1200


def test_an_outcome_new_to_the_section_is_added_in_its_order() -> None:
    """A shape whose counters all exist but whose outcome the section has not counted
    yet is added by GroundTruth.add (first's long path), so that ``outcomes`` keeps the
    order the entries came in: correct, incorrect, then an unwanted call (of a tool new
    to ``by_tool``: added, not made in C)."""
    steps = [
        (0, ("a", "get", ("p",), "get", 0)),
        (0, ("a", "get", ("p",), "get", 1)),
        (0, ("a", None, (), "set", 0)),
    ]
    for kernel in KERNELS:
        for table in TABLES:
            shaped, told = counted_by_kernel(kernel, table, steps, 4)
            assert told == [True, True, True]
            assert list(shaped[0].outcomes) == ["correct", "incorrect", "unwanted_call"]
            assert list(shaped[0].outcomes) == list(added_whole(steps, 4)[0].outcomes)
