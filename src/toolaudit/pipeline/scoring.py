"""``--expected``: each record scored against its expected entry, counted in the ground
truth of the tally that counts the record, and written as a ``--scores`` line.

Every expected entry ends in exactly one count: scored on the first record of its id,
or ``no_record`` when the audit ends without one (:func:`with_missing_entries`, called
once for the whole run, after any parts are merged). Every record ends in exactly one
count too: scored, or ``unscored`` (no id, an id no entry has, an id already scored,
a chunk of a streamed response). See docs/evaluation.md.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, BinaryIO

import orjson

from toolaudit.formats import Extracted, UnknownShape, extract
from toolaudit.jsonutil import dumps_any
from toolaudit.pipeline.scored_lines import LineIds, TypedLine, read_exactly, typed_made_calls
from toolaudit.results.ground_truth import GroundTruth
from toolaudit.results.summary import Summary
from toolaudit.results.tally import Tally
from toolaudit.truth.entries import Expected
from toolaudit.truth.expectations import Expectations
from toolaudit.truth.match import Score, no_record


class Scorer:
    """Scores the records of one audit; writes their ``--scores`` lines to ``out``."""

    def __init__(self, expectations: Expectations, out: BinaryIO | None = None) -> None:
        self.expectations = expectations
        self.out = out
        #: The ids scored so far, in the order their records came.
        self.scored: dict[str, None] = {}
        #: Reads a line's id alone, where that is the id the general path finds: at
        #: --expected-key, under the default match (BFCL's reads the logged output).
        self._ids = (
            LineIds(expectations.key)
            if expectations.key is not None and expectations.match == "default"
            else None
        )

    def record(
        self,
        record: Mapping[str, Any],
        extracted: Extracted | None,
        tally: Tally,
        where: tuple[str, int],
    ) -> None:
        """Score one record, if its id has an entry (``extracted`` is None for a record
        of no known shape: ``unparseable``). ``where``: its source and line."""
        expectations = self.expectations
        entry = self._entry(expectations.id_of(record, extracted), tally, where)
        if entry is None:
            return
        score, made_tools = expectations.score(entry, record, extracted)
        model = extracted.model if extracted is not None else None
        self._count(entry, score, made_tools, model, tally, where)

    def _entry(self, id: str | None, tally: Tally, where: tuple[str, int]) -> Expected | None:
        """The entry a record of this id is scored against, now scored; None when it is
        not scored (no id, no entry, an id already scored: counted as such)."""
        if id is None:
            _section(tally).without_id.count(f"{where[0]}:{where[1]}")
            return None
        entry = self.expectations.entry_for(id)
        if entry is None:
            return None
        if id in self.scored:
            _section(tally).repeated_id.count(f"{where[0]}:{where[1]} (id {id!r})")
            return None
        self.scored[id] = None
        return entry

    def _count(
        self,
        entry: Expected,
        score: Score,
        made_tools: list[str],
        model: Any,
        tally: Tally,
        where: tuple[str, int],
    ) -> None:
        """Count a scored entry in ``tally`` and write its line."""
        ground_truth = _section(tally)
        row = None
        # (Most entries need no line: a summary-only run keeps only a few samples.)
        if self.out is not None or ground_truth.wants_sample(score):
            row = score_row(score, model, where)
            if self.out is not None:
                self.out.write(dump_score(row))
        ground_truth.add(score, made_tools, expected_tools(entry), row=row)

    # -- the typed path's lines ------------------------------------------------------
    #
    # The typed path hands over a line it read (before counting it) and gets what is
    # needed to score it as the general path would, or None: the general path must read
    # the line. Once the line is counted, it calls :meth:`typed`. Both readings are
    # compared in tests/truth/test_typed_scoring.py.

    def typed_record(self, line: bytes, record: object, format_name: str) -> TypedLine | None:
        """A line the typed path read (as ``format_name``) as the general path reads it:
        its record (``record``, or the line parsed again when None) and what its
        format's extractor reads in it."""
        if read_exactly(line):
            return None
        if record is None:
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                return None
        if type(record) is not dict:
            return None
        try:
            return TypedLine(record=record, extracted=extract(record, format_name))
        except UnknownShape:
            return None

    def typed_calls(
        self,
        line: bytes,
        format_name: str,
        model: str | None,
        calls: Sequence[tuple[object, str, str | bytes | Any]],
    ) -> TypedLine | None:
        """A line of a provider's format the typed path read: its id read alone at
        --expected-key and its calls as the typed decode named them (arguments decoded
        only when the id has an entry), without parsing the whole line; else as
        :meth:`typed_record` reads it (the id may be the format's own, or BFCL's
        checker wants the logged output)."""
        ids = self._ids
        if ids is None:
            return self.typed_record(line, None, format_name)
        if read_exactly(line):
            return None
        id = ids.id_of(line)
        made = None
        if id is not None and self.expectations.entry_for(id) is not None:
            made = typed_made_calls(calls)
            if made is None:
                return self.typed_record(line, None, format_name)
        return TypedLine(id=id, made=made, model=model)

    def typed(self, read: TypedLine, tally: Tally, where: tuple[str, int]) -> None:
        """Score a line the typed path read and counted, as :meth:`record` scores it."""
        if read.record is not None:
            self.record(read.record, read.extracted, tally, where)
            return
        entry = self._entry(read.id, tally, where)
        if entry is None:
            return
        assert read.made is not None
        score, made_tools = self.expectations.score_made(entry, read.made)
        self._count(entry, score, made_tools, read.model, tally, where)

    def with_missing_entries(self, summary: Summary) -> Summary:
        """The summary of the whole run, its entries no record had counted (see
        :func:`with_missing_entries`)."""
        return with_missing_entries(summary, self.expectations, self.scored, self.out)

    def count_unscored(self, tallies: Iterable[Tally]) -> None:
        """Once every record is counted: each tally's records that were not scored."""
        for tally in tallies:
            ground_truth = tally.ground_truth or GroundTruth()
            ground_truth.unscored = tally.records - ground_truth.total
            tally.ground_truth = ground_truth


def _section(tally: Tally) -> GroundTruth:
    """The tally's ground truth, new if it has none yet."""
    if tally.ground_truth is None:
        tally.ground_truth = GroundTruth()
    return tally.ground_truth


def expected_tools(entry: Expected) -> list[str]:
    """The tools an entry expects, as often as it expects them."""
    return [call.name for call in entry.calls or ()]


def score_row(
    score: Score, model: str | None, where: tuple[str | None, int | None]
) -> dict[str, Any]:
    """A ``--scores`` line: the score, the model that made the calls, and the record's
    source and line (null for ``no_record``)."""
    row = score.to_dict()
    scored = {"id": row.pop("id"), "category": row.pop("category"), "model": model}
    return {**scored, **row, "source": where[0], "line": where[1]}


def dump_score(row: Mapping[str, Any]) -> bytes:
    """A score row as its JSON line (a value from a log that orjson cannot write, such as
    an integer past 64 bits, written exactly)."""
    try:
        return orjson.dumps(row, option=orjson.OPT_APPEND_NEWLINE)
    except TypeError:
        return dumps_any(row) + b"\n"


def with_missing_entries(
    summary: Summary,
    expectations: Expectations,
    scored: Collection[str],
    out: BinaryIO | None = None,
) -> Summary:
    """The summary of a whole run with its expected entries that no record had counted
    as ``no_record`` (in the expected file's order), their lines written to ``out``."""
    ground_truth = (summary.ground_truth or GroundTruth()).merged(GroundTruth())
    for id, entry in expectations.entries.items():
        if id in scored:
            continue
        score = no_record(entry)
        row = score_row(score, None, (None, None))
        ground_truth.add(score, [], expected_tools(entry), row=row)
        if out is not None:
            out.write(dump_score(row))
    return replace(summary, ground_truth=ground_truth)
