"""``--expected``: each record scored against its expected entry, counted in the ground
truth of the tally that counts the record, and written as a ``--scores`` line.

Every expected entry ends in exactly one count: scored on the first record of its id,
or ``no_record`` when the audit ends without one (:func:`with_missing_entries`, called
once for the whole run, after any parts are merged). Every record ends in exactly one
count too: scored, or ``unscored`` (no id, an id no entry has, an id already scored,
a chunk of a streamed response). See docs/evaluation.md.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, BinaryIO

import orjson

from toolaudit.formats import Extracted, UnknownShape, extract
from toolaudit.formats.flat import FLAT
from toolaudit.jsonutil import dumps_any, may_hold_long_integers
from toolaudit.pipeline.scored_lines import LineIds, TypedLine, read_exactly, typed_made_calls
from toolaudit.results.entry_shapes import EntryShapes
from toolaudit.results.ground_truth import SAMPLE_ENTRIES, GroundTruth
from toolaudit.results.summary import Summary
from toolaudit.results.tally import Tally
from toolaudit.truth import line_scores, match
from toolaudit.truth.entries import Expected
from toolaudit.truth.expectations import Expectations
from toolaudit.truth.line_scores import CallKernel, correct_row
from toolaudit.truth.match import MadeCall, Score, no_record, surely_correct


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
        #: The entries of one call (or none) counted per shape (see
        #: :mod:`toolaudit.results.entry_shapes`); settled by :meth:`count_unscored`.
        self._shapes = EntryShapes()
        #: The expected file's entries, by id (looked up once a record).
        self._entries = expectations.entries.entries
        #: Each source's JSON for the kernels' --scores lines (None: Python writes them),
        #: and its kernel of a provider record's one call (see :meth:`call_kernel`).
        self._sources: dict[str, bytes | None] = {}
        self._call_kernels: dict[str, CallKernel | None] = {}

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
        model = extracted.model if extracted is not None else None
        if expectations.match == "default":
            made = expectations.made_of(extracted)
            if self._counted_correct(entry, made, model, tally, where):
                return
            defaults = expectations.defaults_for(extracted)
            score, made_tools = expectations.score_made(entry, made, defaults)
        else:
            score, made_tools = expectations.score(entry, record, extracted)
        self._count(entry, score, made_tools, model, tally, where)

    def _entry(self, id: str | None, tally: Tally, where: tuple[str, int]) -> Expected | None:
        """The entry a record of this id is scored against, now scored; None when it is
        not scored (no id, no entry, an id already scored: counted as such)."""
        if id is None:
            _section(tally).without_id.count(f"{where[0]}:{where[1]}")
            return None
        entry = self._entries.get(id)
        if entry is None:
            entry = self.expectations.entry_for(id)  # (a BFCL relevance prompt's)
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

    def _counted_correct(
        self,
        entry: Expected,
        made: list[MadeCall] | None,
        model: Any,
        tally: Tally,
        where: tuple[str, int],
    ) -> bool:
        """Whether the entry is one expected call answered by one call that is surely
        right (:func:`~toolaudit.truth.match.surely_correct`): then scored and counted
        here as :meth:`_count` would count its Score, without making it."""
        calls = entry.calls
        if not calls or len(calls) != 1 or made is None or len(made) != 1:
            return False
        call, one = calls[0], made[0]
        if not (match.QUICK_CORRECT and surely_correct(call, one)):
            return False
        literal = call.literal  # (most entries: their parameters without making Accepts)
        parameters = tuple(literal if literal is not None else call.parameters)
        self._shapes.count(_section(tally), entry.category, call.name, parameters)
        if self.out is not None:
            self.out.write(dump_score(correct_row(entry, one.index, model, where)))
        return True

    def flat_kernel(self, source: str) -> Callable[[bytes, Tally, int], bool] | None:
        """``kernel(line, tally, line_number)``, True when it has scored and counted a
        flat call's line of ``source`` by its entry's shape, and written its ``--scores``
        line if any (:mod:`toolaudit.truth.line_scores`); None where the kernel is not
        used (another match, an id at a dotted path or at one of the fields it reads).
        False leaves the line to :meth:`typed_flat` and :meth:`typed`, nothing changed."""
        expectations = self.expectations
        key = expectations.key if expectations.key is not None else "id"
        if expectations.match != "default" or "." in key or key in ("name", "arguments", "model"):
            return None
        arguments = self._kernel_arguments(key, source)
        if arguments is None:
            return None
        return functools.partial(line_scores.kernel(), *arguments)

    def call_kernel(self, source: str) -> CallKernel | None:
        """The typed reader's scoring of a provider record's one call, for the lines of
        ``source`` (:class:`~toolaudit.truth.line_scores.CallKernel`): its ``id_of`` asked
        before a line is counted (False: the general path's line; None: ask
        :meth:`typed_calls`, which reads an id at a dotted path), its ``score`` once it is
        (False: :meth:`typed_call`). None where it is not used (another match, an id of a
        format's own, a source's name orjson does not write)."""
        if source in self._call_kernels:
            return self._call_kernels[source]
        key = self.expectations.key
        kernel = None
        if self._ids is not None and key is not None:
            arguments = self._kernel_arguments(key, source)
            if arguments is not None:
                kernel = line_scores.call_kernel_type()(*arguments)
        self._call_kernels[source] = kernel
        return kernel

    def _kernel_arguments(self, key: str, source: str) -> tuple[Any, ...] | None:
        """What both kernels are given for the lines of ``source``, the id at ``key``:
        (key, entries, scored, shapes, most_samples, first, write, source's JSON); None
        where no kernel is used (turned off, entries not in a dict: the kernel looks ids
        up in one; --scores with a source's name orjson does not write, a lone surrogate:
        dump_score writes it another way)."""
        entries = self._entries
        if not (line_scores.KERNEL_ON and match.QUICK_CORRECT) or type(entries) is not dict:
            return None
        write, source_json = None, None
        if self.out is not None:
            source_json = self._source_json(source)
            if source_json is None:
                return None
            write = self.out.write
        shapes = self._shapes
        return (
            key,
            entries,
            self.scored,
            shapes.shapes,
            SAMPLE_ENTRIES,
            shapes.first,
            write,
            source_json,
        )

    def _source_json(self, source: str) -> bytes | None:
        """The source's name as JSON, for the kernel's --scores lines (None: a lone
        surrogate, which dump_score writes another way)."""
        known = self._sources.get(source, b"")
        if known != b"":
            return known
        try:
            written: bytes | None = orjson.dumps(source)
        except TypeError:
            written = None
        self._sources[source] = written
        return written

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
        parsed = _parsed(line, record)
        if parsed is None:
            return None
        try:
            return TypedLine(record=parsed, extracted=extract(parsed, format_name))
        except UnknownShape:
            return None

    def typed_flat(self, line: bytes, record: dict[str, Any] | None) -> TypedLine | None:
        """A flat call the typed path read (``record``: the line as orjson parsed it, or
        None) as :meth:`typed_record` reads it, under the default match: its id, its one
        call and its model, as the flat format's extractor reads them. The reader has
        left to the general path any line that may hold a number below a double's range,
        and, where it parsed the line, one that may hold an integer past 64 bits."""
        expectations = self.expectations
        if expectations.match != "default":
            return self.typed_record(line, record, FLAT.name)
        if record is None:
            # (Of what read_exactly tests, the reader has left the long integers alone.)
            record = _parsed(line, None, may_hold_long_integers)
            if record is None:
                return None
        name = record.get("name")
        arguments = record.get("arguments")
        if type(name) is not str or type(arguments) is not dict:
            return self.typed_record(line, record, FLAT.name)
        model = record.get("model")
        # (A flat record names no key of its own: its id is the record's; its model is
        # a string or none, as Extracted reads it.)
        return TypedLine(
            id=expectations.id_of(record, None),
            made=[MadeCall(0, name, arguments)],
            model=model if type(model) is str else None,
        )

    def typed_calls(
        self,
        line: bytes,
        format_name: str,
        model: str | None,
        calls: Sequence[tuple[object, str, str | bytes | Any]],
        kernel: bool = False,
    ) -> TypedLine | str | None:
        """A line of a provider's format the typed path read (none that may hold a number
        below a double's range): its id read alone at
        --expected-key and its calls as the typed decode named them (arguments decoded
        only when the id has an entry), without parsing the whole line; else as
        :meth:`typed_record` reads it (the id may be the format's own, or BFCL's
        checker wants the logged output). With ``kernel`` (the reader has one, from
        :meth:`call_kernel`), the id alone where the kernel may score the record's one
        call once the line is counted (as where ``CallKernel.id_of`` reads the id)."""
        ids = self._ids
        if ids is None:
            return self.typed_record(line, None, format_name)
        # (What read_exactly tests that the reader has not: it has left to the general
        # path any line that may hold a number below a double's range.)
        if may_hold_long_integers(line):
            return None
        id = ids.id_of(line)
        made = None
        if id is not None and self.expectations.entry_for(id) is not None:
            if kernel and len(calls) == 1:
                arguments = calls[0][2]
                # (A Raw is the JSON value's slice: the kernel takes an object's.)
                if isinstance(arguments, str) or bytes(arguments).startswith(b"{"):
                    return id
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
        if entry is not None:
            assert read.made is not None
            self._score_made(entry, read.made, read.model, tally, where)

    def typed_call(
        self,
        id: str,
        calls: Sequence[tuple[object, str, str | bytes | Any]],
        model: str | None,
        tally: Tally,
        where: tuple[str, int],
    ) -> None:
        """Score a record the typed path read and counted whose one call the kernel left
        (:meth:`call_kernel`: its arguments' text a str or an object's bytes; its id
        with an entry or not), as :meth:`typed` scores it."""
        entry = self._entry(id, tally, where)
        if entry is not None:
            made = typed_made_calls(calls)
            assert made is not None
            self._score_made(entry, made, model, tally, where)

    def _score_made(
        self,
        entry: Expected,
        made: list[MadeCall],
        model: str | None,
        tally: Tally,
        where: tuple[str, int],
    ) -> None:
        """Score a record's entry against the calls it made, and count it."""
        if self._counted_correct(entry, made, model, tally, where):
            return
        score, made_tools = self.expectations.score_made(entry, made)
        self._count(entry, score, made_tools, model, tally, where)

    def with_missing_entries(self, summary: Summary) -> Summary:
        """The summary of the whole run, its entries no record had counted (see
        :func:`with_missing_entries`)."""
        return with_missing_entries(summary, self.expectations, self.scored, self.out)

    def count_unscored(self, tallies: Iterable[Tally]) -> None:
        """Once every record is counted: each tally's records that were not scored
        (and the entries counted per shape, added to their tallies)."""
        self._shapes.settle()
        for tally in tallies:
            ground_truth = tally.ground_truth or GroundTruth()
            ground_truth.unscored = tally.records - ground_truth.total
            tally.ground_truth = ground_truth


def _parsed(
    line: bytes, record: object, reads_exactly: Callable[[bytes], bool] = read_exactly
) -> dict[str, Any] | None:
    """A line the typed path read as the general path parses it (``record``: parsed
    already, or None); None where that is no object, or the general path reads the line
    exactly (:func:`read_exactly`, or ``reads_exactly`` where the reader has already
    tested the line for part of it)."""
    if reads_exactly(line):
        return None
    if record is None:
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            return None
    return record if type(record) is dict else None


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
    for id, entry in expectations.entries.entries.items():  # (the dict: no Mapping mixin)
        if id in scored:
            continue
        score = no_record(entry)
        row = score_row(score, None, (None, None))
        ground_truth.add(score, [], expected_tools(entry), row=row)
        if out is not None:
            out.write(dump_score(row))
    return replace(summary, ground_truth=ground_truth)
