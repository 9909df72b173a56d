"""Entries answered right by one call, counted per entry shape rather than per record.

Most scored entries expect one call and get it, right: each adds the same counts to its
ground-truth section (one ``correct`` outcome; one entry, call made, expected and matched
in its category and its tool; each of the call's parameters expected and matched). So
:class:`CorrectCalls` counts, per section and shape (category, tool, parameters), how
many such entries came, and adds them at once in :meth:`CorrectCalls.settle`: one dict
look-up a record instead of a dozen counters.

The first entry of each shape in a section is added by :meth:`GroundTruth.add` itself,
which makes the section's tallies in the order it always makes them (the order that
bounds ``by_tool`` and that merging walks); later ones only raise its shape's count.
Settle before reading the section (the audit does, once every record is counted):
until then its counts leave those entries out. tests/truth/test_correct_calls.py
compares the sections with those counted entry by entry.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolaudit.results.folding import table_key
from toolaudit.results.ground_truth import NO_CATEGORY, GroundTruth
from toolaudit.results.score_counts import EntryTally, Parameter

#: (the section's id, category, tool, parameters): the section is kept in the value.
_Key = tuple[int, "str | None", str, tuple[str, ...]]


@dataclass(frozen=True, slots=True)
class _Correct:
    """What :meth:`GroundTruth.add` reads of a correct entry of one call."""

    category: str | None
    parameters: tuple[tuple[str, str, bool], ...]
    outcome: str = "correct"
    correct: bool = True


@dataclass(slots=True)
class _Shape:
    """A shape's counters in one section, and the entries not yet added to them."""

    section: GroundTruth
    category: EntryTally
    tool: EntryTally
    parameters: tuple[Parameter, ...]
    waiting: int = 0


class CorrectCalls:
    """Correct entries of one call, by section and shape, until :meth:`settle`."""

    __slots__ = ("_shapes",)

    def __init__(self) -> None:
        self._shapes: dict[_Key, _Shape] = {}

    @property
    def shapes(self) -> dict[_Key, _Shape]:
        """The shapes counted so far, by (id(section), category, tool, parameters): a
        kernel that tells a correct entry itself raises its shape's ``waiting`` here
        (:mod:`toolaudit.truth.line_scores`), once :meth:`count` has added the first."""
        return self._shapes

    def count(
        self, section: GroundTruth, category: str | None, tool: str, parameters: tuple[str, ...]
    ) -> None:
        """Count an entry of one expected call to ``tool`` (its ``parameters``, in
        order), answered right by one call to that tool, in ``section``."""
        key = (id(section), category, tool, parameters)
        shape = self._shapes.get(key)
        if shape is not None:
            shape.waiting += 1
            return
        matched = tuple((tool, name, True) for name in parameters)
        section.add(_Correct(category, matched), [tool], [tool])
        by_parameter = section.by_parameter.get(tool, {})
        self._shapes[key] = _Shape(
            section,
            section.by_category[category if category is not None else NO_CATEGORY],
            section.by_tool[table_key(tool)],
            tuple(by_parameter[name] for name in parameters),
        )

    def settle(self) -> None:
        """Add the entries counted since the last call to their sections."""
        for shape in self._shapes.values():
            times = shape.waiting
            if not times:
                continue
            shape.waiting = 0
            outcomes = shape.section.outcomes
            outcomes["correct"] = outcomes.get("correct", 0) + times
            shape.category.count(times, times, times, times, times)
            shape.tool.count(times, times, times, times, times)
            for parameter in shape.parameters:
                parameter.expected += times
                parameter.matched += times
