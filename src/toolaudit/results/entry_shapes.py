"""Entries of one expected call (or none) answered by one call, counted per entry shape
rather than per record.

Most scored entries expect one call and get one. Each such entry adds counts to its
ground-truth section that depend only on its shape: a ``correct`` entry (one outcome;
one entry, call made, expected and matched in its category and its tool; each of the
call's parameters expected and matched), an ``incorrect`` one answered by that tool
(the same, less the correct count, its parameters that differ counted as failures) or
by another (the other tool's call made, every parameter a failure), an
``unwanted_call`` (one call made where none was expected). So :class:`EntryShapes`
counts, per section and shape, how many such entries came, and adds them at once in
:meth:`EntryShapes.settle`: one dict look-up a record instead of a dozen counters.

A shape's key: (id(section), category, tool expected or None, parameters (its literal's
names, in order), tool made, mask of the parameters that failed). The first entry of
each shape in a section is added by :meth:`GroundTruth.add` itself, which makes the
section's tallies in the order it always makes them (the order that bounds ``by_tool``
and that merging walks: :meth:`first`); later ones only raise its shape's count, here
(:meth:`count`) or in C (:mod:`toolaudit.truth.line_scores`, which finds the shape by
its key). Where the C speedups are built the table is their ``ShapeTable``: a dict, read
and added to as this one is, which also finds a shape the kernel has met by its key's
parts, without making the tuple, and counts its entries in C until :meth:`settle`
flushes them into ``waiting`` (``_shape_table.h``; a shape is never removed, so the two
agree); it also takes :meth:`first`'s short path itself (every counter there already: the
``_Shape`` made in C, of the class given to ``ShapeTable.makes``). A made tool that
``by_tool`` folded into its bucket makes no shape: whether a name is folded depends on
the table's room. Settle before reading the section (the audit does, once every record
is counted): until then its counts leave those entries out.
tests/truth/test_entry_shapes.py compares the sections with those counted entry by
entry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from toolaudit.compiled import speedups
from toolaudit.results.folding import table_key
from toolaudit.results.ground_truth import NO_CATEGORY, GroundTruth
from toolaudit.results.score_counts import EntryTally, Parameter

#: (the section's id, category, tool expected, parameters, tool made, failed mask).
_Key = tuple[int, "str | None", "str | None", tuple[str, ...], str, int]

#: What one entry of one call answered by that tool adds to its category's and its
#: tool's tally: entries, correct, made, expected, matched (EntryTally.count's arguments).
_ONE_RIGHT = (1, 1, 1, 1, 1)
_ONE_WRONG = (1, 0, 1, 1, 1)

#: The C kernel's module, whose ShapeTable keeps the shapes where it was built.
_SPEEDUPS = speedups("toolaudit.truth._line_scores")


@dataclass(frozen=True, slots=True)
class _Scored:
    """What :meth:`GroundTruth.add` reads of an entry's score."""

    category: str | None
    outcome: str
    correct: bool
    parameters: tuple[tuple[str, str, bool], ...]


@dataclass(slots=True)
class _Shape:
    """A shape's counters in one section, and the entries not yet added to them."""

    section: GroundTruth
    outcome: str
    #: Each tally the shape's entries count in, with what one entry adds to it.
    tallies: tuple[tuple[EntryTally, tuple[int, int, int, int, int]], ...]
    #: Each parameter, and whether it matched (else: a failure, when incorrect).
    parameters: tuple[tuple[Parameter, bool], ...]
    waiting: int = 0


class EntryShapes:
    """Entries of one call or none, answered by one call, by section and shape, until
    :meth:`settle`."""

    __slots__ = ("_flush", "_shapes")

    def __init__(self) -> None:
        self._shapes: dict[_Key, _Shape] = {}
        #: The C table's flush (see the module docstring), where it keeps the shapes.
        self._flush: Callable[[], object] | None = None
        if _SPEEDUPS is not None:
            table = _SPEEDUPS.ShapeTable()
            table.makes(_Shape)  # (first's short path, taken in C: see first)
            self._shapes, self._flush = table, table.flush

    @property
    def shapes(self) -> dict[_Key, _Shape]:
        """The shapes counted so far, by key (see the module docstring): a kernel that
        tells an entry's shape itself raises its ``waiting`` here."""
        return self._shapes

    def count(
        self, section: GroundTruth, category: str | None, tool: str, parameters: tuple[str, ...]
    ) -> None:
        """Count an entry of one expected call to ``tool`` (its ``parameters``, in
        order), answered right by one call to that tool, in ``section``."""
        shape = self._shapes.get((id(section), category, tool, parameters, tool, 0))
        if shape is not None:
            shape.waiting += 1
            return
        self.first(section, category, tool, parameters, tool, 0)

    def first(
        self,
        section: GroundTruth,
        category: str | None,
        tool: str | None,
        parameters: tuple[str, ...],
        made: str,
        mask: int,
    ) -> None:
        """Add an entry whose shape has no key here yet (see the module docstring) to
        ``section`` as :meth:`GroundTruth.add` adds its Score, and keep the shape for the
        entries of its like. Of an entry not correct, the section must hold its samples
        already (the Score's ``--scores`` line is not made here)."""
        key = (id(section), category, tool, parameters, made, mask)
        if tool is None:
            outcome = "unwanted_call"
        else:
            outcome = "correct" if made == tool and not mask else "incorrect"
        matches = _matches(len(parameters), made == tool, mask)
        if outcome in section.outcomes:  # (else add() makes its counter: no shape yet)
            shape = _shape(section, category, tool, parameters, made, matches, outcome)
            if shape is not None:
                # Every counter it counts in is there already: add() would make none,
                # only count (the first of a shape is often another's like but for one
                # name).
                shape.waiting = 1
                self._shapes[key] = shape
                return
        matched = tuple(
            (tool, name, match)
            for name, match in zip(parameters, matches, strict=True)
            if tool is not None
        )
        section.add(
            _Scored(category, outcome, outcome == "correct", matched),
            [made],
            [tool] if tool is not None else [],
        )
        shape = _shape(section, category, tool, parameters, made, matches, outcome)
        if shape is not None:  # (None: the name made was folded, as later ones may be)
            self._shapes[key] = shape

    def settle(self) -> None:
        """Add the entries counted since the last call to their sections."""
        if self._flush is not None:  # (the C table's counts, into each shape's waiting)
            self._flush()
        for shape in self._shapes.values():
            times = shape.waiting
            if not times:
                continue
            shape.waiting = 0
            outcomes = shape.section.outcomes
            outcomes[shape.outcome] = outcomes.get(shape.outcome, 0) + times
            for tally, (total, correct, made, expected, matched) in shape.tallies:
                # (Each count multiplied by name: a generator a tally cost more than
                # the counting.)
                tally.count(
                    times * total, times * correct, times * made, times * expected, times * matched
                )
            failed = shape.outcome == "incorrect"
            for parameter, matched in shape.parameters:
                parameter.expected += times
                if matched:
                    parameter.matched += times
                elif failed:
                    parameter.failures += times


def _matches(count: int, same_tool: bool, mask: int) -> tuple[bool, ...]:
    """Whether each of ``count`` parameters matched (else: a failure, when incorrect):
    none where another tool was made; else those not in ``mask`` (all, most often)."""
    if not same_tool:
        return (False,) * count
    if not mask:
        return (True,) * count
    return tuple(not mask >> index & 1 for index in range(count))


def _shape(
    section: GroundTruth,
    category: str | None,
    tool: str | None,
    parameters: tuple[str, ...],
    made: str,
    matches: tuple[bool, ...],
    outcome: str,
) -> _Shape | None:
    """The counters an entry of this shape counts in, as GroundTruth.add counts it; None
    when one is not there yet, or the name made is not its own key in ``by_tool``
    (``<other>``, or a name folded into it)."""
    by_category = section.by_category.get(category if category is not None else NO_CATEGORY)
    by_tool = section.by_tool
    made_tally = by_tool.get(made) if made != tool and table_key(made) == made else None
    expected_tally = by_tool.get(table_key(tool)) if tool is not None else None
    tallies: tuple[tuple[EntryTally, tuple[int, int, int, int, int]], ...]
    if by_category is None:
        return None
    if tool is None:  # no call expected, one made
        if made_tally is None:
            return None
        tallies = ((by_category, (1, 0, 1, 0, 0)), (made_tally, (0, 0, 1, 0, 0)))
    elif expected_tally is None:
        return None
    elif made != tool:  # another tool: nothing matched
        if made_tally is None:
            return None
        tallies = (
            (by_category, (1, 0, 1, 1, 0)),
            (expected_tally, (1, 0, 0, 1, 0)),
            (made_tally, (0, 0, 1, 0, 0)),
        )
    else:
        one = _ONE_RIGHT if outcome == "correct" else _ONE_WRONG
        tallies = ((by_category, one), (expected_tally, one))
    by_parameter = section.by_parameter.get(tool, {}) if tool is not None else {}
    counters = []
    for name, match in zip(parameters, matches, strict=True):
        parameter = by_parameter.get(name)
        if parameter is None:
            return None
        counters.append((parameter, match))
    return _Shape(section, outcome, tallies, tuple(counters))
