"""Where every reader writes what it found: one object per audit owns the tally, the
groups, the samples and the report rows of the batch being read.

A reader tells the recorder of each call (valid, or failed with its verdict), of each
record that held no readable call, and of each batch's and source's end; the recorder
alone decides which tally counts it (a group's with ``--group-by``, else the audit's),
whether a report row is wanted and whether the row is kept as a sample. So the three
readers (inline, typed, general) count alike by construction.

The valid call is most calls of most logs, and its cost is most of what an audit costs:
the readers count those through the few plain attributes below (:attr:`Recorder.ok`,
:attr:`Recorder.valid_rows`, :attr:`Recorder.valid_row`), read once per batch, rather
than through a method call per call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from toolaudit._version import __version__
from toolaudit.contract import MALFORMED, ToolValidator, format_problems
from toolaudit.deep.paths import collapsed
from toolaudit.history import Checked
from toolaudit.history.fast import counted_answered
from toolaudit.history.model import UNANSWERED
from toolaudit.pipeline.judge import Problems, Verdict, object_verdict, reasons
from toolaudit.pipeline.options import AuditOptions
from toolaudit.pipeline.rows import (
    Row,
    dump_row,
    failing_row_writer,
    history_call_row,
    make_row,
    problem_row,
    valid_row,
    valid_row_writer,
    writable,
)
from toolaudit.results.conversations import Conversations, CountedProblem
from toolaudit.results.grouping import Groups
from toolaudit.results.source_status import SourceStatus
from toolaudit.results.summary import SAMPLE_ROWS, Summary
from toolaudit.results.tally import Tally

#: Makes a valid call's report row (a dict, or its JSON line when the report is being
#: written) of (its line, its index, its id, its tool, the model).
ValidRow = Callable[[int, int, object, str, "str | None"], Any]
#: Makes a failing call's JSON line of (its line, its index, its id, its tool, the model,
#: its errors, their reasons).
FailingRow = Callable[[int, int, object, str, "str | None", list[str], dict[str, str]], bytes]


class Where:
    """Where a call or a record was found: the source, its line, and for a call its
    place in the record, its id and the model that made it."""

    __slots__ = ("call_id", "index", "line", "model", "source")

    def __init__(
        self,
        source: str,
        line: int,
        index: int | None = None,
        call_id: object = None,
        model: str | None = None,
    ) -> None:
        self.source = source
        self.line = line
        self.index = index
        self.call_id = call_id
        self.model = model

    def __repr__(self) -> str:
        return f"Where({self.source!r}, {self.line}, {self.index}, {self.call_id!r})"


class Recorder:
    """What an audit found, as the readers tell it.

    ``want_rows``: report rows are kept (for the batch being read, until
    :meth:`take_rows`); ``encoded``: as JSON lines (bytes), for a run that writes them,
    else as dicts.
    """

    __slots__ = (
        "_deep",
        "_encoded",
        "_errors_only",
        "_groups",
        "_max_keys",
        "_statuses",
        "_want_rows",
        "blank",
        "failing_row",
        "grouped",
        "ok",
        "rows",
        "source",
        "tally",
        "valid_row",
        "valid_rows",
    )

    def __init__(self, options: AuditOptions, *, want_rows: bool, encoded: bool = False) -> None:
        self._deep = options.deep
        self._encoded = encoded
        self._want_rows = want_rows
        #: The audit's own tally: counts every line; with --group-by the groups count
        #: the records and calls.
        self.tally = Tally(options.max_tools, options.max_params)
        self._max_keys = options.max_tools
        self._groups = (
            Groups(options.group_by, options.max_tools, options.max_params)
            if options.group_by
            else None
        )
        #: Whether each record's calls count in its group's tally (ask :meth:`tally_for`).
        self.grouped = self._groups is not None
        self._statuses: list[SourceStatus] = []
        #: The tools of the valid calls counted in the audit's tally in this batch: a
        #: list, so that they are counted at the batch's end in C (:meth:`end_batch`).
        self.ok: list[str] = []
        #: The source being read.
        self.source = ""
        #: This batch's report rows; None when no rows are wanted (a summary-only run).
        self.rows: list[Any] | None = None
        #: The same list when valid calls' rows are wanted (not --errors-only), else None.
        self.valid_rows: list[Any] | None = None
        self._errors_only = options.errors_only
        self.valid_row: ValidRow = _no_row
        #: Makes a failing call's JSON line where the report is being written (see
        #: :meth:`failing_call`).
        self.failing_row: FailingRow = _no_row
        #: Lines of the source being read that held no record (blank, framing).
        self.blank = 0

    # -- sources and batches ---------------------------------------------------------

    def start_source(self, name: str) -> SourceStatus:
        """A new source is read: its status, which its end (or an error) completes."""
        self.source = name
        self.blank = 0
        self.valid_row = valid_row_writer(name) if self._encoded else _valid_row_of(name)
        if self._encoded:
            self.failing_row = failing_row_writer(name)
        self._new_rows()
        status = SourceStatus(name)
        self._statuses.append(status)
        return status

    def end_batch(self) -> None:
        """A batch was read: count its valid calls in the audit's tally."""
        self.tally.count_ok(self.ok)
        self.ok.clear()

    def take_rows(self) -> list[Any]:
        """The rows of the batch read; the next batch's start empty."""
        rows = self.rows
        if not rows:
            return []
        self._new_rows()
        return rows

    def end_source(self, status: SourceStatus, lines_read: int) -> None:
        """The source of ``status`` ended (or stopped) after ``lines_read`` lines."""
        self.end_batch()
        status.lines = lines_read
        tally = self.tally
        tally.lines += lines_read
        tally.blank_lines += self.blank
        tally.records += lines_read - self.blank

    def _new_rows(self) -> None:
        if not self._want_rows:
            return
        rows: list[Any] = []
        self.rows = rows
        self.valid_rows = None if self._errors_only else rows

    # -- what the readers found ------------------------------------------------------

    def tally_for(
        self,
        record: Mapping[str, Any] | None,
        model: str | None,
        fields: Mapping[str, object] | None = None,
    ) -> Tally:
        """The tally that counts this record: its group's with --group-by (which then
        counts one more record), else the audit's."""
        if self._groups is None:
            return self.tally
        return self._groups.tally_for(record, model, fields)

    def call(self, tally: Tally | None, where: Where, verdict: Verdict) -> None:
        """One call and its verdict (see :meth:`calls`)."""
        self.calls(tally, ((where, verdict),))

    def calls(
        self,
        tally: Tally | None,
        judged: Iterable[tuple[Where, str | Verdict]],
        count_valid: Callable[[str], object] | None = None,
    ) -> None:
        """The calls of one record, each with its verdict (or, valid by a typed decode, its
        tool's name), in ``tally`` (None: the audit's). Their rows are made before any is
        counted: a call whose row cannot be made (its reasons fail to word) leaves the
        whole record uncounted, for the reader to report as one record. ``count_valid``
        counts a valid call's tool where the reader batches them (:attr:`ok`'s append)."""
        if tally is None:
            tally = self.tally
        # Rows the samples may still take, before this record's: a failing call's row is
        # made for its sample only within them (a record may hold 100,000 calls).
        room = SAMPLE_ROWS - min(len(tally.samples), len(self.tally.samples))
        made = []
        for where, verdict in judged:
            row = self._row_of(where, verdict, room > 0)
            if room > 0 and type(row) is dict and row["errors"]:
                room -= 1
            made.append((verdict, row))
        for verdict, row in made:
            if isinstance(verdict, str):
                (count_valid or tally.count_one_ok)(verdict)
                if row is not None:
                    self._add(row)
                continue
            tool, problems, _, _ = verdict
            if not problems:
                tally.count_one_ok(tool)
                if row is not None:
                    self._add(row)
                continue
            self._count_problems(tally, tool, problems)
            if row is not None:
                if self.rows is not None:
                    self._add(row)
                if type(row) is dict:
                    self._keep_sample(tally, row)

    def count_failing(self, tally: Tally | None, tool: str, problems: Problems) -> bool:
        """A failing call of ``tool`` counted in ``tally`` (None: the audit's) with no row
        made, where none is wanted: no report, and the samples full. False, counting
        nothing, where its row is wanted: the reader then records it by :meth:`call`.

        Most of a log's failing calls come after the samples are full; a summary-only
        run then needs only their counts, not their verdicts, places and rows."""
        if self.rows is not None:
            return False
        if tally is None:
            tally = self.tally
        if not self._samples_full(tally):
            return False  # a sample may take its row (see calls)
        self._count_problems(tally, tool, problems)
        return True

    def failing_call(
        self,
        tally: Tally | None,
        tool: ToolValidator,
        arguments: Mapping[str, Any],
        problems: Problems,
        line: int,
        call_id: object,
        model: str | None,
    ) -> None:
        """A record's one call (index 0) of ``tool``, whose arguments, an object, hold
        ``problems`` by its check: :meth:`call` with :func:`object_verdict`'s verdict.

        Where its row is written and no sample may take it (the samples full), the row's
        JSON line is made at once from the reasons (:func:`failing_row_writer`), with no
        verdict, place or dict made: a report of a log whose calls often fail writes many.
        """
        if tally is None:
            tally = self.tally
        rows = self.rows
        if rows is None or not self._encoded or not self._samples_full(tally):
            where = Where(self.source, line, 0, call_id, model)
            self.call(tally, where, object_verdict(tool, arguments, problems))
            return
        # Worded before anything is counted, as calls() makes the rows first: a call
        # whose reasons fail to word leaves the record uncounted.
        errors, why = tool.errors_explained(arguments, problems)
        name = tool.name
        row = self.failing_row(line, 0, call_id, name, model, errors, why)
        self._count_problems(tally, name, problems)
        rows.append(row)

    def _samples_full(self, tally: Tally) -> bool:
        """Whether no sample, of ``tally`` or of the audit's, may take another failing
        call's row (see :meth:`calls`)."""
        return len(tally.samples) >= SAMPLE_ROWS and len(self.tally.samples) >= SAMPLE_ROWS

    def _count_problems(self, tally: Tally, tool: str | None, problems: Problems) -> None:
        """A failing call of ``tool`` counted in ``tally``: in deep mode, its errors by
        their paths with indices collapsed (:func:`counted`)."""
        tally.count_problems(tool, counted(problems) if self._deep else problems)

    def _row_of(self, where: Where, verdict: str | Verdict, sample: bool) -> Any:
        """The row of a call, if the report or (``sample``) the samples may want it (a
        valid call's as :attr:`valid_row` makes it)."""
        if isinstance(verdict, str):
            if self.valid_rows is None:
                return None
            assert where.index is not None
            return self.valid_row(where.line, where.index, where.call_id, verdict, where.model)
        tool, problems, detail, why = verdict
        if not problems:
            # (Made whole, not by valid_row: a valid call may have a detail, a note.)
            return None if self.valid_rows is None else self._row(where, tool, [], detail)
        if self.rows is None and not sample:
            return None
        row = self._row(where, tool, format_problems(problems), detail)
        row["why"] = dict(reasons(why))
        # Written at once where no sample keeps it: a record of many failing calls then
        # holds their JSON lines, not their dicts, until the batch is written.
        return dump_row(row) if self._encoded and not sample else row

    @staticmethod
    def _row(where: Where, tool: str | None, errors: list[str], detail: str | None) -> Row:
        return make_row(
            where.source, where.line, where.index, where.call_id, tool, where.model, errors, detail
        )

    def record_error(
        self, where: Where, reason: str, detail: str, tally: Tally | None = None
    ) -> None:
        """A record that held no readable call: ``malformed:<reason>``, in ``tally``
        (None: the one the recorder chooses for a record it knows nothing of)."""
        if tally is None:
            tally = self.tally_for(None, None)
        error = f"{MALFORMED}:{reason}"
        tally.record_errors[error] = tally.record_errors.get(error, 0) + 1
        row = make_row(where.source, where.line, None, None, None, None, [error], detail)
        row["why"] = {error: detail}
        if self.rows is not None:
            self._add(row)
        self._keep_sample(tally, row)

    def history(self, tally: Tally, where: Where, checked: Checked) -> None:
        """The conversation a record carries, checked: its problems and its tools'
        outcomes counted in ``tally``, a report row per problem (``where``: the record)."""
        conversations = self.conversations_of(tally)
        problems = checked.problems
        conversations.count(where.model, problems, checked.outcomes)
        for problem in problems:
            row = problem_row(
                where.source,
                where.line,
                problem.path,
                problem.code,
                problem.call_id,
                problem.tool,
                where.model,
                problem.detail,
            )
            if self.rows is not None:
                self._add(row)

    def all_answered_history(
        self, tally: Tally, model: str | None, results: Mapping[str, int]
    ) -> None:
        """:meth:`history` of a conversation with no problem (so no row) and no failure:
        its results per tool (see ``toolaudit.history.fast.AllAnswered``)."""
        conversations = self.conversations_of(tally)
        if not counted_answered(conversations, model, results):
            conversations.count_all_answered(model, results)

    def conversations_of(self, tally: Tally) -> Conversations:
        """The conversations counted in ``tally``, new if none was yet."""
        conversations = tally.conversations
        if conversations is None:
            conversations = tally.conversations = Conversations(self._max_keys)
        return conversations

    def unanswered_history(
        self,
        tally: Tally,
        model: str | None,
        left: list[tuple[Any, ...]],
        results: Mapping[str, int],
    ) -> None:
        """:meth:`history` of a conversation whose only problems are calls left without a
        result (``left``: each call's id, name, and where it is) and none of whose results
        failed, where no rows are kept: its problems counted by their tools alone, unworded
        (see ``toolaudit.history.fast.LeftUnanswered``); by the C speedups where they
        can."""
        conversations = self.conversations_of(tally)
        if counted_answered(conversations, model, results, left):
            return
        problems = [
            CountedProblem(UNANSWERED, name if isinstance(name, str) else None)
            for _, name, *_ in left
        ]
        conversations.count_results(model, problems, results)

    def history_call(self, tally: Tally, where: Where, path: str, verdict: Verdict) -> None:
        """A call a record's conversation holds (--history), judged: counted in
        ``tally``'s history calls, apart from the model's own; a row when it fails."""
        tool, problems, detail, why = verdict
        calls = tally.history_tally()
        if not problems:
            calls.count_one_ok(tool)
            return
        self._count_problems(calls, tool, problems)
        if self.rows is not None:
            row = history_call_row(
                where.source,
                where.line,
                path,
                where.call_id,
                tool,
                where.model,
                format_problems(problems),
                detail,
            )
            row["why"] = dict(reasons(why))
            self._add(row)

    def _add(self, row: Row | bytes) -> None:
        assert self.rows is not None
        self.rows.append(dump_row(row) if self._encoded and type(row) is dict else row)

    def _keep_sample(self, tally: Tally, row: Row) -> None:
        """Keep a failing row as one of the first few (see summary.SAMPLE_ROWS), in
        its group's summary and in the audit's."""
        row = writable(row)  # the summary writes its samples
        if tally.wants_sample():
            tally.samples.append(row)
        if tally is not self.tally and self.tally.wants_sample():
            self.tally.samples.append(row)

    # -- the end ---------------------------------------------------------------------

    def record_tallies(self) -> list[Tally]:
        """The tallies that count records: the groups' with --group-by, else the audit's."""
        return [self.tally] if self._groups is None else self._groups.tallies()

    def summary(self, *, schemas_digest: str | None, interrupted: bool) -> Summary:
        """The summary of everything recorded (an interrupted run's is incomplete)."""
        statuses = list(self._statuses)
        if interrupted and statuses and statuses[-1].complete:
            statuses[-1] = replace(statuses[-1], complete=False, error="interrupted before the end")
        summary = self.tally.summary(
            version=__version__,
            schemas_digest=schemas_digest,
            sources=statuses,
            complete=not interrupted and all(s.complete for s in statuses),
            deep=self._deep,
        )
        if self._groups is not None:
            summary = replace(self._groups.summary(summary), samples=summary.samples)
        return summary


def _valid_row_of(source: str) -> ValidRow:
    def row(line: int, index: int, call_id: object, tool: str, model: str | None) -> Row:
        return valid_row(source, line, index, call_id, tool, model)

    return row


def _no_row(*row: object) -> Any:
    """The row maker before any source is read (never called)."""


def counted(problems: Problems) -> Problems:
    """Deep errors as the tally counts them per parameter: with array indices written
    ``[]``, so that ``tags[0]`` and ``tags[7]`` are one parameter, ``tags[]``."""
    return [(kind, collapsed(subject)) for kind, subject in problems]
