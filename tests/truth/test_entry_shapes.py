"""Entries answered right by one call, counted per shape and settled at once
(:class:`toolaudit.results.entry_shapes.EntryShapes`), give the section that adding
each entry's Score gives: the same counts, and ``by_tool`` made in the same order (the
order that bounds it), whatever else comes between them (other outcomes, made-up tool
names filling a small table, bucket names, no category)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from toolaudit.results.entry_shapes import EntryShapes
from toolaudit.results.ground_truth import GroundTruth
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
