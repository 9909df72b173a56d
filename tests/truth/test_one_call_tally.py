"""The ground truth section counts an entry of one expected call answered by one call
to that tool (most entries) without its multisets: the same counts as the general
counting, whatever the outcome, the names (bucket names among them) and a full
``by_tool`` table."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from toolaudit.results.ground_truth import GroundTruth
from toolaudit.truth.match import OUTCOMES, Score

TOOLS = st.sampled_from(["get", "set", "<other>", "\\<other>", "", "x.y"])
SCORES = st.builds(
    lambda outcome, category, parameters: Score(
        "e", category, outcome, outcome in ("correct", "correct_abstention"), (), (), None,
        tuple(parameters),
    ),
    st.sampled_from(OUTCOMES),
    st.sampled_from([None, "a", "b"]),
    st.lists(st.tuples(TOOLS, st.sampled_from(["p", "q"]), st.booleans()), max_size=3),
)  # fmt: skip
ENTRIES = st.tuples(
    SCORES, st.lists(TOOLS, max_size=2), st.lists(TOOLS, max_size=2), st.booleans()
).map(lambda e: (e[0], e[1], e[1][:1] if e[3] else e[2]))  # often one call, the same tool


@settings(max_examples=300, deadline=None)
@given(st.lists(ENTRIES, max_size=12), st.integers(1, 4))
def test_one_call_entries_count_as_the_general_counting_counts(entries, max_tools) -> None:
    quick, general = GroundTruth(max_tools=max_tools), GroundTruth(max_tools=max_tools)
    for score, made, expected in entries:
        quick.add(score, list(made), list(expected), row={"id": "e"})
        # Tuples: the general counting, for every entry.
        general.add(score, tuple(made), tuple(expected), row={"id": "e"})
    assert quick.to_dict() == general.to_dict()
    assert list(quick.by_tool) == list(general.by_tool)
