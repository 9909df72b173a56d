"""The streaming audit: sources -> lines -> records -> verdicts -> report rows + tally.

Nothing here prints, and nothing here knows of processes: a runner
(:mod:`toolaudit.runners`) decides where an :class:`Audit` runs. The loop in
:meth:`Audit._audit_source` is the hot path. Lines of a provider's format the
typed path reads (typed_reader.py) go to it a run of lines at a time; of the rest,
the common case (a line holding one flat, well-formed call to a declared tool) is
handled inline, and everything else goes to :meth:`Audit._audit_record`, which may
be slower because it is rarer: format detection, decoding, record-carried tools,
malformed input.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, BinaryIO

import orjson

from toolaudit._version import __version__
from toolaudit.contract import MALFORMED, format_problems, kind_phrase
from toolaudit.deep.paths import collapsed
from toolaudit.errors import InputError, OptionError
from toolaudit.formats import Extracted, UnknownShape, extract
from toolaudit.formats.base import is_cut_off, note_repeated_ids
from toolaudit.formats.bfcl import BFCL
from toolaudit.formats.flat import FLAT
from toolaudit.formats.flat import call_id as flat_call_id
from toolaudit.formats.streams import Finished, StreamAssembler, StreamError
from toolaudit.jsonutil import loads_exact, may_hold_long_integers
from toolaudit.pipeline.judge import (
    Problems,
    Verdict,
    judge,
    judge_apart,
    number_may_be_inexact,
    object_verdict,
    reasons,
)
from toolaudit.pipeline.options import AuditOptions
from toolaudit.pipeline.rows import Row, dump_row, make_row, valid_row, valid_row_writer
from toolaudit.pipeline.stop import StopRequest
from toolaudit.pipeline.toolsets import NO_TOOLS, RecordTools

if TYPE_CHECKING:
    from toolaudit.pipeline.typed_reader import TypedReader
from toolaudit.results.grouping import Groups
from toolaudit.results.summary import SourceStatus, Summary
from toolaudit.results.tally import Tally
from toolaudit.schemas import NO_SCHEMAS, SchemaSet
from toolaudit.sources import DamagedInput, OversizedLine, Source, expand_paths, read_line_batches

__all__ = ["Audit", "AuditOptions", "Row"]

_BOM = b"\xef\xbb\xbf"
#: The formats the typed path reads (formats/typed.py builds their shapes; a test
#: checks the two agree). Named here so that a log of none of them never loads msgspec.
TYPED_FORMATS = frozenset(
    {
        "flat",
        "openai-chat",
        "openai-responses",
        "openai-batch",
        "anthropic",
        "anthropic-batch",
        "gemini",
        "bedrock",
        "mcp",
        "envelope",
    }
)
#: Server-sent-events lines that carry no data (a ":" line is a comment).
_SSE_FRAMING = (b"event:", b"id:", b"retry:", b":")
_SSE_DONE = b"[DONE]"
_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError
ORJSON_MAX_DEPTH = 1024


class Audit:
    """One audit, in this process, over some inputs against one schema set.

    Iterate it for the report rows (dicts), or call :meth:`run` to write them as
    JSONL; either way :attr:`summary` is set once the inputs are exhausted. It
    runs once: a second pass raises RuntimeError.
    """

    #: The inline path for flat calls; tests turn it off to check it changes nothing.
    inline_fast_path = True
    #: The typed path for provider responses (see typed_reader.py); the same.
    typed_fast_path = True

    def __init__(
        self,
        inputs: Iterable[str | Source],
        schemas: SchemaSet = NO_SCHEMAS,
        options: AuditOptions | None = None,
        *,
        on_bytes: Callable[[int], object] | None = None,
        stdin: BinaryIO | None = None,
        stop: StopRequest | None = None,
    ) -> None:
        self.sources = [s if isinstance(s, Source) else Source(s) for s in inputs]
        self.schemas = schemas
        self.options = options = options if options is not None else AuditOptions()
        #: Told how many bytes each read consumed (progress).
        self.on_bytes = on_bytes
        #: Shared with whoever may ask the audit to stop (a signal handler).
        self.stop = stop if stop is not None else StopRequest()
        self._stdin = stdin
        #: Counts every line; with --group-by, the groups count the records and calls.
        self._global = Tally(options.max_tools, options.max_params)
        self._groups = (
            Groups(options.group_by, options.max_tools, options.max_params)
            if options.group_by
            else None
        )
        self._statuses: list[SourceStatus] = []
        self._deep = options.deep
        if options.deep != schemas.deep and not schemas.empty:
            raise OptionError(
                "deep validation needs schemas compiled for it: load them with deep=True"
                if options.deep
                else "these schemas were compiled for deep validation: audit with deep=True"
            )
        self._record_tools = RecordTools(schemas, deep=options.deep)
        #: The streamed responses being reassembled, of the source being read.
        self._streams = StreamAssembler(options.max_open_streams)
        self._holds_streams = False
        self._started = False
        self.summary: Summary | None = None
        #: Reads provider responses with msgspec: made once the general path has read
        #: a record of a format it reads, where it gives what the general path would.
        self._typed: TypedReader | None = None
        self._typed_allowed = self._typed_gives_the_same()

    @classmethod
    def of_paths(
        cls,
        paths: Iterable[str],
        schemas: SchemaSet = NO_SCHEMAS,
        options: AuditOptions | None = None,
        *,
        storage_options: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> Audit:
        """An audit of files, directories (walked), URLs (``storage_options`` for their
        filesystem) and ``-``; missing paths raise now."""
        sources = expand_paths(paths, storage_options=storage_options)
        return cls(sources, schemas, options, **kwargs)

    def request_stop(self, interruption: type[KeyboardInterrupt] = KeyboardInterrupt) -> None:
        """Stop the audit as Ctrl-C would, at the end of the batch being audited
        (see :class:`~toolaudit.pipeline.stop.StopRequest`)."""
        self.stop.request(interruption)

    @property
    def whole_reason(self) -> str | None:
        """Why these inputs cannot be cut into parts audited apart, if they cannot:
        a record defined tools for later records, or a stream may run on past a cut."""
        if self._record_tools.defines_tools:
            return (
                "defines tools for the records after them (an MCP tools/list result or a "
                "batch input line)"
            )
        if self._holds_streams:
            return "holds streamed responses, whose chunks may run on past any cut"
        return None

    def __iter__(self) -> Iterator[Row]:
        for rows in self._row_batches(want_rows=True):
            yield from rows

    def run(self, report: BinaryIO | None = None) -> Summary:
        """Audit everything; write the report rows to ``report`` (JSONL) if given.

        Interrupted (Ctrl-C, SIGTERM), the report keeps every complete row and
        :attr:`summary` says the audit is incomplete; the interruption goes on.
        """
        try:
            for rows in self._row_batches(want_rows=report is not None, encoded=True):
                if report is not None:
                    report.writelines(rows)
        except KeyboardInterrupt:
            self.finish(interrupted=True)  # interrupted while writing: the summary still says so
            raise
        assert self.summary is not None
        return self.summary

    def finish(self, *, interrupted: bool = False) -> Summary:
        """Set :attr:`summary` from what was counted (once; an interrupted run is incomplete)."""
        if self.summary is None:
            statuses = list(self._statuses)
            if interrupted and statuses and statuses[-1].complete:
                statuses[-1] = replace(
                    statuses[-1], complete=False, error="interrupted before the end"
                )
            complete = not interrupted and all(s.complete for s in statuses)
            summary = self._global.summary(
                version=__version__,
                schemas_digest=self.schemas.digest,
                sources=statuses,
                complete=complete,
                deep=self._deep,
            )
            if self._groups is not None:
                summary = replace(self._groups.summary(summary), samples=summary.samples)
            self.summary = summary
        return self.summary

    def _row_batches(self, *, want_rows: bool, encoded: bool = False) -> Iterator[list[Any]]:
        """The report rows, a batch at a time (dicts, or JSON lines when ``encoded``);
        sets :attr:`summary` at the end.

        Interrupted, it still yields every complete row and sets a summary that
        says it is incomplete, then lets the interruption go on.
        """
        if self._started:
            raise RuntimeError("an Audit runs once (its counts would add up twice): make a new one")
        self._started = True
        try:
            for source in self.sources:
                status = SourceStatus(source.name)
                self._statuses.append(status)
                self._record_tools.new_stream()
                self._streams = StreamAssembler(self.options.max_open_streams)
                rows = _Rows(source.name, want_rows, encoded=encoded)
                yield from self._audit_source(source, status, rows)
        except KeyboardInterrupt:
            self.finish(interrupted=True)
            raise
        self.finish()

    def _tally_for(
        self,
        record: Mapping[str, Any] | None,
        model: str | None,
        answered: Mapping[str, object] | None = None,
    ) -> Tally:
        """The tally that counts this record: its group's with --group-by (which
        counts one more record), else the audit's."""
        if self._groups is None:
            return self._global
        return self._groups.tally_for(record, model, answered)

    def _audit_source(
        self, source: Source, status: SourceStatus, out: _Rows
    ) -> Iterator[list[Row]]:
        """Audit one source, yielding its rows a batch at a time."""
        global_tools = self.schemas.validator
        inline = (
            self.inline_fast_path
            and global_tools is not None
            and self.options.input_format in (None, "flat")
        )
        grouped = self._groups is not None
        typed_flat = inline and self._typed_allowed and self.typed_fast_path
        tools_get = (global_tools or NO_TOOLS).tools.get
        ok_batch: list[str] = []
        ok_names = ok_batch.append
        global_tally = self._global
        count_ok = global_tally.count_ok
        # Where the typed path hands each call it did not call valid.
        judged = functools.partial(self._count_call, out)
        group_of = None if self._groups is None else functools.partial(self._tally_for, None)
        valid_rows = out.rows is not None and not self.options.errors_only
        valid_row = out.valid_row
        wants_model = grouped or valid_rows
        stop = self.stop
        loads = _loads
        decode_error = _JSONDecodeError
        lineno = source.first_line - 1
        blank = 0
        try:
            for lines in read_line_batches(
                source,
                max_line_bytes=self.options.max_line_bytes,
                on_bytes=self.on_bytes,
                stdin=self._stdin,
            ):
                stop.busy = True
                add_valid = out.add_valid  # this batch's list (take() starts a new one)
                first = lineno + 1  # the number of lines[0]
                end = len(lines)
                position = 0
                while position < end:
                    typed = self._typed
                    if typed is not None and typed.current is not None:
                        position = typed.read_lines(
                            lines, position, first, ok_names,
                            add_valid if valid_rows else None, valid_row, judged, group_of,
                        )  # fmt: skip
                        if position == end:
                            break
                    resume = position  # the general path reads this line, at least
                    for position in range(resume, end):
                        line = lines[position]
                        lineno = first + position
                        if (
                            position != resume
                            and (typed := self._typed) is not None
                            and typed.current is not None
                        ):
                            break  # the last record read makes the typed path read on
                        try:
                            record = loads(line)
                        except decode_error as error:
                            if self._audit_unparsed(line, error, lineno, out):
                                blank += 1
                            continue
                        # The common case, inline: a flat call to a declared tool, arguments
                        # an object. (The registry reads name + arguments as a flat call,
                        # whatever else is there.) Anything else takes _audit_record.
                        if not inline or type(record) is not dict:
                            self._audit_record(record, lineno, out, line)
                            continue
                        name = record.get("name")
                        arguments = record.get("arguments")
                        if (
                            type(name) is not str
                            or type(arguments) is not dict
                            or (tool := tools_get(name)) is None
                        ):
                            self._audit_record(record, lineno, out, line)
                            continue
                        if typed_flat:  # the typed path reads the next lines as flat calls
                            self._flat_call_seen(name)
                        # The model (and a group's tally) are read before judging only where
                        # a valid call needs them: one counted in the global tally with no row
                        # needs neither, and is most calls, often.
                        if wants_model:
                            model = m if type(m := record.get("model")) is str else None
                            tally = self._tally_for(record, model) if grouped else global_tally
                        problems = tool.check(arguments)
                        if not problems:
                            if grouped:  # each group counts its own
                                tally.count_one_ok(tool.name)
                            else:
                                ok_names(tool.name)
                            if valid_rows:
                                call_id = flat_call_id(record)
                                add_valid(valid_row(lineno, 0, call_id, tool.name, model))
                            continue
                        if not wants_model:  # a failing call's row, or its sample, names it
                            model = m if type(m := record.get("model")) is str else None
                            tally = global_tally
                        if number_may_be_inexact(problems, arguments) and may_hold_long_integers(
                            line
                        ):
                            self._audit_record(record, lineno, out, line, tally=tally)
                        else:
                            verdict = object_verdict(tool, arguments, problems)
                            self._count_call(
                                out, tally, lineno, 0, flat_call_id(record), model, verdict
                            )
                    else:
                        position = end
                lineno = first + end - 1
                # Valid calls are tallied per batch, in C: cheaper than a dict update per call.
                count_ok(ok_batch)
                ok_batch.clear()
                stop.busy = False
                stop.raise_pending()
                rows = out.take()
                if rows:
                    yield rows
        except DamagedInput as damage:
            status.complete = False
            status.error = f"{damage}; reading stopped after line {lineno}"
        except InputError as error:
            status.complete = False
            status.error = str(error)
        except KeyboardInterrupt:  # (the streams still open are not judged: the run stops)
            stop.busy = False
            status.complete = False
            if self._typed is not None:  # it may have been reading when interrupted
                lineno = max(lineno, self._typed.interrupted_at)
            status.error = f"interrupted after line {lineno}"
            count_ok(ok_batch)  # the valid calls of the batch in progress were audited too
            self._count_lines(source, status, lineno, blank)
            rows = out.take()
            if rows:
                yield rows  # every complete row of the batch in progress
            raise
        # Streams still open when the source ends were cut: their calls are judged as
        # they came, each row saying so.
        for stream in self._streams.close():
            self._judge_stream(stream, out)
        self._count_lines(source, status, lineno, blank)
        rows = out.take()
        if rows:
            yield rows

    def _audit_unparsed(self, line: bytes, error: ValueError, lineno: int, out: _Rows) -> bool:
        """A line orjson refused: blank (True), server-sent-event framing (True) or
        data, valid JSON orjson refuses (1e400...), or a located JSON error."""
        if type(line) is bytes and (not line.strip() or line == _BOM):
            return True
        if line.startswith(b"data:"):  # a server-sent event's data
            line = line[5:].strip()
            if line == _SSE_DONE:
                return True
            try:
                record = _loads(line)
            except _JSONDecodeError as data_error:
                error = data_error  # its column counts from after "data:"
            else:
                self._audit_record(record, lineno, out, line)
                return False
        elif line.startswith(_SSE_FRAMING):
            return True  # framing between events, no record
        parsed, detail = _parse_refused(line, error)
        if detail is not None:
            self._record_error(self._tally_for(None, None), out, lineno, "json", detail)
        else:
            self._audit_record(parsed, lineno, out)
        return False

    def _typed_gives_the_same(self) -> bool:
        """Whether the typed path would give what the general path gives (when
        :attr:`typed_fast_path` lets it run at all): the global
        schemas judge every record it reads (none keyed, none deep), no group needs more
        of the record than the model its shape reads, and a forced format is one it reads."""
        forced = self.options.input_format
        return (
            not self._deep
            and not self.schemas.keyed
            and (self._groups is None or self.options.group_by == ("model",))
            and (forced is None or forced in TYPED_FORMATS)
        )

    def _typed_seen(self, format_name: str) -> None:
        """The general path read a record of this format: the typed path tries it next,
        made now if it was not yet (loading msgspec)."""
        if self._typed is not None:
            self._typed.seen(format_name)
        elif (
            self._typed_allowed
            and self.typed_fast_path
            and format_name in TYPED_FORMATS
            # Without --schemas, only records that carry their tools can be read.
            and (self.schemas.validator is not None or format_name == "envelope")
        ):
            from toolaudit.pipeline.typed_reader import TypedReader

            self._typed = TypedReader(
                self.schemas.validator, self.options.input_format, self._record_tools.compile
            )
            self._typed.seen(format_name)

    def _flat_call_seen(self, name: str) -> None:
        """The inline path judged a flat call to the tool called ``name``: the typed path
        reads the next lines as flat calls, that tool's among them."""
        if self._typed is None:
            self._typed_seen(FLAT.name)
        if self._typed is not None:
            self._typed.flat_call_seen(name)

    def _count_lines(self, source: Source, status: SourceStatus, lineno: int, blank: int) -> None:
        tally = self._global
        lines_read = lineno - (source.first_line - 1)
        status.lines = lines_read
        tally.lines += lines_read
        tally.blank_lines += blank
        tally.records += lines_read - blank

    # -- the rare paths -------------------------------------------------------------

    def _audit_record(
        self,
        record: object,
        lineno: int,
        out: _Rows,
        line: bytes | None = None,
        *,
        tally: Tally | None = None,
    ) -> None:
        """Everything but the inline case.

        ``line`` is the record's text when orjson parsed it, which turns integers
        beyond 64 bits into floats: if a call then fails, the line is parsed again
        exactly and judged on that. ``tally`` is given when the record was already
        counted in one (its group's).
        """
        if not isinstance(record, dict):
            what = kind_phrase(record)
            detail = f"expected a JSON object holding tool calls, got {what}"
            self._record_error(self._tally_for(None, None), out, lineno, "record", detail)
            return
        try:
            extracted = extract(record, self.options.input_format)
        except UnknownShape as shape:
            if tally is None:
                tally = self._tally_for(record, None)
            self._record_error(tally, out, lineno, "record", str(shape))
            return
        if tally is None:
            continued = None
            if self._groups is not None and extracted.stream is not None:
                # A stream's records count in the group of its first, which names its
                # model where the chunks after it do not (Anthropic's message_start).
                continued = self._streams.context_of(extracted)
            if isinstance(continued, Tally):
                tally = continued
                tally.records += 1
            else:
                tally = self._tally_for(record, extracted.model, extracted.fields)
        self._typed_seen(extracted.container or extracted.format)
        if extracted.stream is not None:
            self._feed_stream(extracted, lineno, out, tally)
            return
        if extracted.defines is not None:
            self._record_tools.remember(extracted)
            self._typed_allowed = False  # the tools judging later records are not the global ones
            if self._typed is not None:
                self._typed.stop()
        if not extracted.calls:
            tally.records_without_calls += 1
            return
        self._judge_calls(extracted, lineno, out, tally, line)

    def _judge_calls(
        self,
        extracted: Extracted,
        lineno: int,
        out: _Rows,
        tally: Tally,
        line: bytes | None,
        *,
        assembled: bool = False,
    ) -> None:
        """Judge and count the calls of one record, or of one assembled stream (whose
        arguments were never parsed with a line: a failing one that may hold a long
        integer is judged again, exactly)."""
        validator, why_unjudged = self._record_tools.validator_for(extracted, out.source, lineno)
        if validator is None:
            detail = f"its tool definitions are malformed: {why_unjudged}"
            self._record_error(tally, out, lineno, "record", detail)
            return
        if extracted.format != BFCL.name:  # whose calls all carry their question's id
            note_repeated_ids(extracted.calls)
        if assembled:
            verdicts = [judge_apart(call, validator, why_unjudged)[0] for call in extracted.calls]
        else:
            exact = line is None
            verdicts = [
                judge(call, validator, why_unjudged, exact=exact) for call in extracted.calls
            ]
        if (
            line is not None
            and any(verdict[1] for verdict in verdicts)
            and may_hold_long_integers(line)
        ):
            try:
                exact_record = loads_exact(line)
            except (ValueError, RecursionError):
                exact_record = None
            if exact_record is not None:
                self._audit_record(exact_record, lineno, out, tally=tally)
                return
        for call, verdict in zip(extracted.calls, verdicts, strict=True):
            self._count_call(out, tally, lineno, call.index, call.id, extracted.model, verdict)
            if is_cut_off(call.note):
                tally.count_cut_off(verdict[0])

    def _feed_stream(self, extracted: Extracted, lineno: int, out: _Rows, tally: Tally) -> None:
        """One chunk of a streamed response: judge the streams it finishes (and any
        it pushed out past --max-open-streams)."""
        self._holds_streams = True
        try:
            began, finished = self._streams.feed(extracted, lineno, tally)
        except StreamError as error:
            self._record_error(tally, out, lineno, "record", str(error))
            return
        if not began:  # its calls, if any, count on the line the stream began on
            tally.records_without_calls += 1
        for stream in finished:
            self._judge_stream(stream, out)

    def _judge_stream(self, stream: Finished, out: _Rows) -> None:
        """Count one reassembled stream, and judge its calls on the line it began on."""
        tally = stream.context
        assert isinstance(tally, Tally)
        tally.streams += 1
        if stream.cut is not None:
            tally.streams_incomplete += 1
        if not stream.extracted.calls:
            tally.records_without_calls += 1
            return
        self._judge_calls(stream.extracted, stream.line, out, tally, None, assembled=True)

    def _count_call(
        self,
        out: _Rows,
        tally: Tally | None,
        lineno: int,
        index: int,
        call_id: object,
        model: str | None,
        verdict: Verdict,
    ) -> None:
        """Count one call in ``tally`` (None: the audit's own); report it where rows are
        wanted, and keep it as a sample when it failed."""
        if tally is None:
            tally = self._global
        tool, problems, detail, why = verdict
        if problems:
            tally.count_problems(tool, counted(problems) if self._deep else problems)
            wanted = out.rows is not None
            sample = tally.wants_sample() or self._global.wants_sample()
        else:
            tally.count_one_ok(tool)
            wanted = out.rows is not None and not self.options.errors_only
            sample = False
        if wanted or sample:
            errors = format_problems(problems)
            row = make_row(out.source, lineno, index, call_id, tool, model, errors, detail)
            if problems:
                row["why"] = dict(reasons(why))
            if wanted:
                out.add(row)
            if sample:
                self._keep_sample(tally, row)

    def _record_error(
        self, tally: Tally, out: _Rows, lineno: int, reason: str, detail: str
    ) -> None:
        """Count and report a record that held no readable call."""
        error = f"{MALFORMED}:{reason}"
        tally.record_errors[error] = tally.record_errors.get(error, 0) + 1
        row = make_row(out.source, lineno, None, None, None, None, [error], detail)
        row["why"] = {error: detail}
        if out.rows is not None:
            out.add(row)
        self._keep_sample(tally, row)

    def _keep_sample(self, tally: Tally, row: Row) -> None:
        """Keep a failing row as one of the first few (see summary.SAMPLE_ROWS), in
        its group's summary and in the audit's."""
        if tally.wants_sample():
            tally.samples.append(row)
        if tally is not self._global and self._global.wants_sample():
            self._global.samples.append(row)


class _Rows:
    """The rows of the batch being audited, for one source; ``rows`` is None when
    no rows are wanted (a summary-only run).

    ``encoded``: the rows are JSON lines (bytes) as soon as they are made, for a run
    that writes them; else dicts. A valid call's row is made by :attr:`valid_row`
    and added with :attr:`add_valid`; any other row, a dict, with :attr:`add`.
    """

    __slots__ = ("add", "add_valid", "encoded", "rows", "source", "valid_row")

    def __init__(self, source: str, want_rows: bool, *, encoded: bool = False) -> None:
        self.source = source
        self.encoded = encoded
        self.valid_row: Callable[[int, int, object, str, str | None], Row | bytes]
        if encoded:
            self.valid_row = valid_row_writer(source)
        else:
            self.valid_row = functools.partial(valid_row, source)
        self.rows: list[Any] | None = None
        self.add: Callable[[Row], None] = _drop
        self.add_valid: Callable[[Any], None] = _drop
        if want_rows:
            self._start()

    def _start(self) -> None:
        rows: list[Any] = []
        self.rows = rows
        self.add_valid = rows.append
        self.add = rows.append if not self.encoded else lambda row: rows.append(dump_row(row))

    def take(self) -> list[Any]:
        """The batch's rows; the next batch starts empty."""
        rows = self.rows
        if not rows:
            return []
        self._start()
        return rows


def _drop(row: Row) -> None:
    """Where rows go when none are wanted."""


def _parse_refused(line: bytes, error: ValueError) -> tuple[object, str | None]:
    """A line orjson refused that is not blank: (the record, None) when it is valid
    JSON after all, else (None, why it cannot be audited)."""
    if isinstance(line, OversizedLine):
        return None, f"line is {line.length} bytes, over the --max-line-bytes limit"
    message = getattr(error, "msg", str(error))
    if "depth limit" in message:
        return (
            None,
            f"nested deeper than the parser's limit of {ORJSON_MAX_DEPTH} levels; not audited",
        )
    try:
        # Valid JSON that orjson refuses: 1e400, a lone surrogate escape, a
        # UTF-8 byte order mark (an editor's, or from concatenated files).
        return loads_exact(line), None
    except UnicodeDecodeError as undecodable:
        byte = undecodable.object[undecodable.start]
        return None, f"not valid UTF-8: byte 0x{byte:02x} at byte {undecodable.start + 1}"
    except (ValueError, RecursionError):
        nul = line.find(0)
        if nul >= 0:
            return None, (
                f"not valid JSON: a NUL byte at byte {nul + 1} "
                "(UTF-16 or UTF-32 text? logs are read as UTF-8)"
            )
        return None, f"not valid JSON: {message} (column {getattr(error, 'colno', '?')})"


def counted(problems: Problems) -> Problems:
    """Deep errors as the tally counts them per parameter: with array indices written
    ``[]``, so that ``tags[0]`` and ``tags[7]`` are one parameter, ``tags[]``."""
    return [(kind, collapsed(subject)) for kind, subject in problems]
