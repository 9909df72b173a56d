"""``--expected``: each record scored against its expected entry, counted in the ground
truth of the tally that counts the record, and written as a ``--scores`` line.

Every expected entry ends in exactly one count: scored on the first record of its id,
or ``no_record`` when the audit ends without one (:func:`with_missing_entries`, called
once for the whole run, after any parts are merged). Every record ends in exactly one
count too: scored, or ``unscored`` (no id, an id no entry has, an id already scored,
a chunk of a streamed response). See docs/evaluation.md.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import replace
from typing import Any, BinaryIO

import orjson

from toolaudit.formats import Extracted, UnknownShape, extract
from toolaudit.jsonutil import dumps_any, may_hold_long_integers, may_hold_numbers_beyond_a_double
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
        id = expectations.id_of(record, extracted)
        if id is None:
            _section(tally).without_id.count(f"{where[0]}:{where[1]}")
            return
        entry = expectations.entry_for(id)
        if entry is None:
            return
        if id in self.scored:
            _section(tally).repeated_id.count(f"{where[0]}:{where[1]} (id {id!r})")
            return
        self.scored[id] = None
        score, made_tools = expectations.score(entry, record, extracted)
        ground_truth = _section(tally)
        row = None
        # (Most entries need no line: a summary-only run keeps only a few samples.)
        if self.out is not None or ground_truth.wants_sample(score):
            model = extracted.model if extracted is not None else None
            row = score_row(score, model, where)
            if self.out is not None:
                self.out.write(dump_score(row))
        ground_truth.add(score, made_tools, expected_tools(entry), row=row)

    def typed_record(
        self, line: bytes, record: object, format_name: str
    ) -> tuple[dict[str, Any], Extracted] | None:
        """A line the typed path read (as ``format_name``), as the general path would give
        it to :meth:`record`: its record (``record``, or the line parsed again when
        None) and what its format's extractor reads in it. None: the general path must
        read the line (it may parse it exactly, which can change what is compared).
        Counts nothing: the typed path calls :meth:`record` once it has counted the line."""
        # The general path reads such lines again exactly (long integers, numbers below a
        # double's range), and scores that reading.
        if may_hold_long_integers(line) or (
            (b"e-" in line or b"E-" in line) and may_hold_numbers_beyond_a_double(line)
        ):
            return None
        if record is None:
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                return None
        if type(record) is not dict:
            return None
        try:
            return record, extract(record, format_name)
        except UnknownShape:
            return None

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
