"""The general reader: any record of any format, and every line the fast paths leave.

Format detection, decoding, the tools a record carries or defines for later records,
streamed responses reassembled from their chunks, malformed input. Slower than the fast
paths because it does everything, and the reference they are tested against.

A line is the unit of failure here: whatever one line holds, it comes out as its calls'
verdicts or as one located ``malformed:*`` row, and the next line is read.
"""

from __future__ import annotations

import traceback
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from toolaudit.contract import kind_phrase
from toolaudit.errors import ToolAuditError
from toolaudit.formats import Extracted, UnknownShape, extract, get_format
from toolaudit.formats.base import Call, is_cut_off, note_repeated_ids
from toolaudit.formats.stream_lanes import StreamLanes
from toolaudit.formats.streams import Finished, StreamError
from toolaudit.history import Checked, HistoryCall
from toolaudit.history import check as check_history
from toolaudit.history.check import check_counted
from toolaudit.history.fast import checked_from_str, history_prefixes
from toolaudit.jsonutil import is_beyond_exact_reading, loads_exact, may_be_misread_by_orjson
from toolaudit.pipeline.fast_paths import FastPaths
from toolaudit.pipeline.judge import judge, judge_apart
from toolaudit.pipeline.options import AuditOptions
from toolaudit.pipeline.recorder import Recorder, Where
from toolaudit.pipeline.stack import FRAMES, frames_for_a_batch
from toolaudit.pipeline.toolsets import RecordTools
from toolaudit.pipeline.triage import triage
from toolaudit.results.tally import Tally

if TYPE_CHECKING:
    from toolaudit.pipeline.scoring import Scorer

_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError


class GeneralReader:
    """Reads records into ``recorder``, judged by ``record_tools`` (the tools records
    carry, else the schemas); tells ``fast_paths`` of each record's format."""

    def __init__(
        self,
        recorder: Recorder,
        record_tools: RecordTools,
        options: AuditOptions,
        fast_paths: FastPaths,
    ) -> None:
        self._recorder = recorder
        self._forced = options.input_format
        self._max_open_streams = options.max_open_streams
        self._conversations = options.conversations
        self._history_calls = options.history
        # An agent's spans carry its history again at every turn, a turn longer: each
        # span's input messages read on from where the last one's ended (checked_from_str).
        self._prefixes = history_prefixes() if options.conversations else None
        self.record_tools = record_tools
        self._fast_paths = fast_paths
        #: The streamed responses being reassembled, of the source being read.
        self._streams = StreamLanes(options.max_open_streams)
        #: Whether a record was a chunk of a stream (see whole_reason).
        self.holds_streams = False
        #: The tally the record being read was counted in, once chosen.
        self._tally: Tally | None = None
        #: The number of the line being read when an interruption came (0: none came).
        self.interrupted_at = 0
        #: Scores each record against its expected calls (--expected), if set.
        self.scorer: Scorer | None = None
        fast_paths.general = self  # the typed stream reader reads on in our streams

    @property
    def streams(self) -> StreamLanes:
        """The streams open in the source being read (the typed stream reader's too)."""
        return self._streams

    @property
    def whole_reason(self) -> str | None:
        """Why the inputs read cannot be cut into parts audited apart, if they cannot: a
        record defined tools for later records, or a stream may run on past a cut."""
        if self.record_tools.defines_tools:
            return (
                "defines tools for the records after them (an MCP tools/list result or a "
                "batch input line)"
            )
        if self.holds_streams:
            return "holds streamed responses, whose chunks may run on past any cut"
        return None

    def new_source(self) -> None:
        """A new source: its streams and its MCP tools/list start afresh."""
        self.record_tools.new_stream()
        self._streams = StreamLanes(self._max_open_streams)

    def end_source(self) -> None:
        """The source ended: streams still open were cut, and their calls are judged as
        they came, each row saying so (with the stack a batch of lines has)."""
        with frames_for_a_batch():
            for stream in self._streams.close():
                self.judge_stream(stream)

    def read_lines(self, lines: list[bytes], start: int, first_line: int) -> int:
        """Read ``lines`` from ``start`` (at least that one) until one makes the typed path
        ready; return where it stopped. ``first_line`` is the number of ``lines[0]``."""
        fast_paths = self._fast_paths
        position = start
        try:
            for position in range(start, len(lines)):
                if position != start and fast_paths.ready:
                    return position
                self.read_line(lines[position], first_line + position)
        except KeyboardInterrupt:
            self.interrupted_at = first_line + position
            raise
        return len(lines)

    def read_line(self, line: bytes, lineno: int, tally: Tally | None = None) -> None:
        """Read one line, whatever it holds (``tally``: see :meth:`read_record`)."""
        try:
            record = _loads(line)
        except _JSONDecodeError as error:
            self.read_refused(line, error, lineno)
        else:
            self.read_record(record, lineno, line, tally)

    def read_refused(self, line: bytes, error: ValueError, lineno: int) -> None:
        """A line orjson refused: no record, a record after all, or a located error."""
        found = triage(line, error)
        if found is None:
            self._recorder.blank += 1
        elif isinstance(found, str):
            self._recorder.record_error(Where(self._recorder.source, lineno), "json", found)
        else:
            self.read_record(found[0], lineno, found[1])

    def read_record(
        self, record: object, lineno: int, line: bytes | None, tally: Tally | None = None
    ) -> None:
        """Read one parsed record; what goes wrong in reading it is its own row.

        ``line`` is the record's text when orjson parsed it, which turns integers beyond
        64 bits into floats and numbers below a double's range into 0: where it may hold
        one, the line is parsed again exactly and read on that. ``tally`` is given when
        the record was already counted in one.
        """
        self._tally = tally
        try:
            self._read(record, lineno, line, tally)
        except ToolAuditError:
            raise  # what stops the run (no schemas at all to judge a call by)
        except RecursionError:
            where = Where(self._recorder.source, lineno)
            self._recorder.record_error(where, "record", too_deep(record), self._tally)
        except Exception as error:  # a bug met on this line: the run goes on
            self.record_bug(error, lineno, self._tally)

    def record_bug(self, error: Exception, lineno: int, tally: Tally | None) -> None:
        """A bug met on a line: its ``malformed:internal`` row, and the run goes on."""
        where = Where(self._recorder.source, lineno)
        self._recorder.record_error(where, "internal", internal_detail(error), tally)

    def _read(self, record: object, lineno: int, line: bytes | None, tally: Tally | None) -> None:
        recorder = self._recorder
        # An integer past 64 bits, which orjson reads as a float, or a number below a
        # double's range, which it reads as 0: whatever the line holds (calls, a stream's
        # chunk, a request logged alone, tools), it is read on the exact parse; past what
        # is read exactly, it is refused as a line orjson refuses for such a number is
        # (triage), in the same tally. A false alarm (19 digits in a text) costs a parse.
        if line is not None and may_be_misread_by_orjson(line):
            exact_record, beyond = _exact(line)
            if beyond is not None:
                recorder.record_error(Where(recorder.source, lineno), "json", beyond, tally)
                return
            if exact_record is not None:
                record, line = exact_record, None
        if not isinstance(record, dict):
            detail = f"expected a JSON object holding tool calls, got {kind_phrase(record)}"
            recorder.record_error(Where(recorder.source, lineno), "record", detail)
            return
        try:
            extracted = extract(record, self._forced)
        except UnknownShape as shape:
            tally = self._tally = tally or recorder.tally_for(record, None)
            recorder.record_error(Where(recorder.source, lineno), "record", str(shape), tally)
            if self.scorer is not None:
                self.scorer.record(record, None, tally, (recorder.source, lineno))
            return
        if tally is None:
            tally = self._tally = self._tally_of(record, extracted)
        self._fast_paths.seen(extracted.container or extracted.format)
        if extracted.stream is not None:
            self._feed_stream(extracted, lineno, tally)
        elif extracted.defines is not None:
            # The tools judging later records are not the global ones.
            self.record_tools.remember(extracted)
            self._fast_paths.stop()
            self._judge_calls(extracted, lineno, tally, line)
            self._check_history(extracted, lineno, tally)
        else:
            self._judge_calls(extracted, lineno, tally, line)
            if self.scorer is not None:
                self.scorer.record(record, extracted, tally, (recorder.source, lineno))
            self._check_history(extracted, lineno, tally)

    def _check_history(self, extracted: Extracted, lineno: int, tally: Tally) -> None:
        """Check the conversation a record carries, if it carries one and they are checked."""
        history = extracted.history
        if history is None or not self._conversations:
            return
        if self._history_calls:
            checked = check_history(history.messages, history.shape, path=history.path)
        else:
            recorder = self._recorder
            worded = recorder.rows is not None  # (no rows: its problems' words unread)
            counted = None
            text = history.text
            if text is not None:
                # Held as JSON text (an OTel span's), read from it where the speedups are
                # sure, without the objects parsing it would make (most of its cost).
                counted = checked_from_str(
                    text,
                    history.shape,
                    history.path,
                    worded,
                    tally.conversations,
                    extracted.model,
                    self._prefixes,
                )
            if counted is None:
                counted = check_counted(
                    history.messages,
                    history.shape,
                    history.path,
                    tally.conversations,
                    extracted.model,
                    worded,
                )
            if counted is True:  # the commonest, counted in the tally's tables already
                return
            if isinstance(counted, tuple):  # calls left unanswered, counted without words
                recorder.unanswered_history(tally, extracted.model, *counted)
                return
            if not isinstance(counted, Checked):  # every call answered, a first name
                self._recorder.all_answered_history(tally, extracted.model, counted)
                return
            checked = counted
        where = Where(self._recorder.source, lineno, model=extracted.model)
        self._recorder.history(tally, where, checked)
        if checked.calls:
            self._judge_history_calls(extracted, checked.calls, where, tally)

    def _judge_history_calls(
        self, extracted: Extracted, calls: list[HistoryCall], where: Where, tally: Tally
    ) -> None:
        """--history: judge the calls a conversation holds by the record's tools."""
        validator, why_unjudged = self.record_tools.validator_for(
            extracted, where.source, where.line
        )
        if validator is None:
            return  # the record's tools are malformed: its own row says so
        for index, held in enumerate(calls):
            call = Call(index, held.name, held.arguments, id=held.id, encoding=held.encoding)
            verdict = judge(call, validator, why_unjudged, exact=True)
            at = Where(where.source, where.line, None, held.id, where.model)
            self._recorder.history_call(tally, at, held.path, verdict)

    def _tally_of(self, record: dict[str, object], extracted: Extracted) -> Tally:
        """The tally of a record: with --group-by, a stream's records count in the group of
        its first, which names its model where the chunks after it do not (Anthropic's
        message_start)."""
        recorder = self._recorder
        if recorder.grouped and extracted.stream is not None:
            continued = self._streams.context_of(extracted)
            if isinstance(continued, Tally):
                continued.records += 1
                return continued
        return recorder.tally_for(record, extracted.model, extracted.fields)

    def _judge_calls(
        self,
        extracted: Extracted,
        lineno: int,
        tally: Tally,
        line: bytes | None,
        *,
        assembled: bool = False,
    ) -> None:
        """Judge and count the calls of one record (``line``: the text orjson parsed it
        from, None when it was parsed exactly), or of one assembled stream (whose arguments
        were never parsed with a line: each is judged apart, exactly)."""
        recorder = self._recorder
        if not extracted.calls:
            tally.records_without_calls += 1
            return
        where = Where(recorder.source, lineno)
        validator, why_unjudged = self.record_tools.validator_for(extracted, where.source, lineno)
        if validator is None:
            detail = f"its tool definitions are malformed: {why_unjudged}"
            recorder.record_error(where, "record", detail, tally)
            return
        if get_format(extracted.format).unique_call_ids:  # (BFCL's carry their question's id)
            note_repeated_ids(extracted.calls)
        if assembled:
            verdicts = [judge_apart(call, validator, why_unjudged)[0] for call in extracted.calls]
        else:
            exact = line is None
            verdicts = [
                judge(call, validator, why_unjudged, exact=exact) for call in extracted.calls
            ]
        model = extracted.model
        recorder.calls(
            tally,
            [
                (Where(where.source, lineno, call.index, call.id, model), verdict)
                for call, verdict in zip(extracted.calls, verdicts, strict=True)
            ],
        )
        for call, verdict in zip(extracted.calls, verdicts, strict=True):
            if is_cut_off(call.note):
                tally.count_cut_off(verdict[0])

    def _feed_stream(self, extracted: Extracted, lineno: int, tally: Tally) -> None:
        """One chunk of a streamed response: judge the streams it finishes (and any
        it pushed out past --max-open-streams)."""
        self.holds_streams = True
        try:
            began, finished = self._streams.feed(extracted, lineno, tally)
        except StreamError as error:
            self._recorder.record_error(
                Where(self._recorder.source, lineno), "record", str(error), tally
            )
            return
        if not began:  # its calls, if any, count on the line the stream began on
            tally.records_without_calls += 1
        for stream in finished:
            self.judge_stream(stream)

    def judge_stream(self, stream: Finished) -> None:
        """Count one reassembled stream, and judge its calls on the line it began on."""
        tally = stream.context
        assert isinstance(tally, Tally)
        tally.streams += 1
        if stream.cut is not None:
            tally.streams_incomplete += 1
        self._judge_calls(stream.extracted, stream.line, tally, None, assembled=True)


def _exact(line: bytes) -> tuple[object, str | None]:
    """The line parsed exactly (integers beyond 64 bits as integers), or None; and why it
    is not audited when it holds a number past what is read exactly (``-1e-20000``,
    which orjson reads as 0 without a word)."""
    try:
        return loads_exact(line), None
    except ValueError as refused:
        return None, f"not audited: {refused}" if is_beyond_exact_reading(refused) else None
    except RecursionError:
        return None, None


def too_deep(record: object) -> str:
    """What a record is told whose values nest deeper than the audit's walk goes: the
    parser reads 1,024 levels, the walk as deep as Python's recursion limit lets it
    (measured here, on this rare path only, without recursion)."""
    depth, pending = 0, [(record, 1)]
    while pending:
        value, level = pending.pop()
        depth = max(depth, level)
        if isinstance(value, dict):
            pending.extend((item, level + 1) for item in value.values())
        elif isinstance(value, list):
            pending.extend((item, level + 1) for item in value)
    return (
        f"nested {depth} levels deep, deeper than the audit walks a record's values "
        f"(Python's recursion limit, {FRAMES}, less the audit's own calls); "
        "not audited"
    )


def internal_detail(error: BaseException) -> str:
    """What a row says of an exception no input should raise: its type, where it was
    raised, and that it is a bug to report."""
    frames = traceback.extract_tb(error.__traceback__)
    place = ""
    if frames:
        frame = frames[-1]
        place = f" at {Path(frame.filename).name}:{frame.lineno} in {frame.name}"
    message = str(error)
    if len(message) > 200:
        message = message[:200] + "..."
    return (
        f"toolaudit failed on this record ({type(error).__name__}{place}: {message}); "
        "this is a bug, please report it with the line"
    )
