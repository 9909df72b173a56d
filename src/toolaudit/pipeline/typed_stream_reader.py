"""The audit's typed stream reader: chunk and event lines decoded by msgspec, placed in
the general reader's open streams, and the calls of the streams they finish judged by
the tools' typed argument decoders.

The streams are one: the general reader's :class:`~toolaudit.formats.streams.StreamAssembler`,
which either path feeds, line after line, so a stream begun on one path ends on the
other as it would on one. A line goes in by one of the assembler's lanes (a piece of a
call's arguments appended, a chunk that adds nothing) or as the step its format module
would make of it (:mod:`toolaudit.formats.typed_streams`); a line the typed shape does
not read exactly, or that the assembler cannot place, is left to the general path
before anything is changed, and the general path words what is wrong with it.

A finished stream's calls are valid here only when each one's typed decoder takes its
arguments; any other stream (cut, noted, failing, an unknown tool) is judged by the
general reader. So rows and summaries are the general path's, byte for byte
(tests/pipeline/test_typed_streams.py compares them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

from toolaudit.contract import Validator
from toolaudit.errors import ToolAuditError
from toolaudit.formats import stream_speedups
from toolaudit.formats.base import repeated_ids
from toolaudit.formats.stream_lanes import BEGAN, NOT_PLACED, OpenCall, OpenStream
from toolaudit.formats.streams import Finished, StreamError
from toolaudit.formats.typed import DECODE_FAILURES
from toolaudit.formats.typed_stream_shape import (
    ACCOMPANY,
    APPEND,
    BEGIN_CALL,
    CONTINUE,
    END,
    Lane,
    QuickDecoding,
    TypedStreamShape,
)
from toolaudit.jsonutil import may_hold_long_integers, may_hold_tiny_numbers
from toolaudit.pipeline.judge import Verdict, object_verdict
from toolaudit.pipeline.recorder import Recorder, Where
from toolaudit.results.tally import Tally
from toolaudit.typed.arguments import (
    DECODER_DECIDES_LENGTH,
    MOST_LINE_BRACKETS,
    DecodersOnDemand,
    accepts,
    line_beyond_decoders,
)
from toolaudit.typed.decoders import may_misread_numbers

if TYPE_CHECKING:
    from toolaudit.pipeline.general_reader import GeneralReader

_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError


class TypedStreamReader:
    """Reads the lines of one stream format (``shape``) into ``general``'s open streams,
    judging finished streams' calls by ``validator``'s tools: with ``decoders`` (by the
    name a call gives; ``names`` gives the tool's own name), else by the contract. Only
    for an audit without --group-by: a stream's lines are counted in the audit's tally."""

    __slots__ = ("_declared", "_decoders", "_general", "_names", "_shape", "interrupted_at")

    def __init__(
        self,
        shape: TypedStreamShape,
        decoders: DecodersOnDemand,
        names: dict[str, str],
        validator: Validator,
        general: GeneralReader,
    ) -> None:
        self._shape = shape
        self._decoders = decoders
        self._names = names
        self._declared = validator.tools
        self._general = general
        #: The number of the line being read when an interruption came (0: none came).
        self.interrupted_at = 0

    @property
    def format(self) -> str:
        return self._shape.format

    def read_lines(
        self, lines: list[bytes], start: int, first_line: int, recorder: Recorder
    ) -> int:
        """Read ``lines`` from ``start`` into ``recorder`` while each is a line of the shape
        the streams take; return the index of the first one it leaves to the general path
        (``len(lines)``: none). ``first_line`` is the number of ``lines[0]``."""
        general = self._general
        general.holds_streams = True
        streams = general.streams
        shape = self._shape
        decoding = QuickDecoding(shape)
        decode = decoding.decode
        lane_of = shape.lane
        append, touch, end = streams.append, streams.touch, streams.end
        judge = self._judge_ended
        tally = recorder.tally
        without_calls = 0  # lines that began no stream: their calls count where it began
        # The C speedups place the commonest lines, from progress[0] on, counting those
        # that begin no stream in progress[1], and hand back a stream a line ended (its
        # one valid call's name in progress[3]), or the first other line decoded (None:
        # not decoded).
        place = stream_speedups.placer(
            shape.format,
            MOST_LINE_BRACKETS,
            streams,
            first_line,
            tally,
            self._decoders,
            DECODER_DECIDES_LENGTH,
        )
        progress: list[Any] = [start, 0, 0, None]
        end_at = len(lines)
        position = start - 1
        try:
            while True:
                position += 1
                record = None
                if place is not None:
                    progress[0] = position
                    record = place(lines, decoding.first, progress)
                    position = progress[0]
                    if type(record) is OpenStream:  # it ended on this line
                        judge(record, first_line + position, tally, recorder, progress[3])
                        without_calls += 1
                        continue
                if position >= end_at:
                    return end_at
                if record is None:
                    line = lines[position]
                    # (What the check looks for needs a line not ASCII or a long one: most
                    # are neither, and cost two tests.)
                    if (not line.isascii() or len(line) > MOST_LINE_BRACKETS) and (
                        line_beyond_decoders(line)
                    ):
                        return position
                    if may_misread_numbers(line):
                        # A number past 1e±10000 msgspec would skip (the general path
                        # finds the line malformed:json), or below a double's range.
                        return position
                    try:
                        record = decode(line)
                    except DECODE_FAILURES:
                        return position
                lane = lane_of(record)
                if lane is not None:
                    what = lane[0]
                    if what == APPEND:  # most lines
                        _, key, slot, group, text, model = lane
                        if append(key, slot, group, text, model):
                            without_calls += 1
                            continue
                    elif what == END:
                        ended = end(lane[1], lane[2], lane[3], first_line + position)
                        if ended is not None:
                            for stream in ended:
                                judge(stream, first_line + position, tally, recorder)
                            without_calls += 1
                            continue
                    elif what in (ACCOMPANY, CONTINUE):
                        if touch(lane[1], lane[2], accompanies=what == ACCOMPANY):
                            without_calls += 1
                            continue
                    else:
                        placed = self._lane(lane, first_line + position, tally)
                        if placed is not None:
                            without_calls += not placed
                            continue
                began = self._step(record, first_line + position, tally, recorder)
                if began is None:
                    return position
                without_calls += not began
        except KeyboardInterrupt:  # the audit counts the lines before this one as read
            # (progress is the placer's, ahead of position if it came as one returned)
            self.interrupted_at = first_line + max(position, progress[0])
            raise
        finally:
            tally.records_without_calls += without_calls + progress[1]

    def _lane(self, lane: Lane, lineno: int, tally: Tally) -> bool | None:
        """A lane that may begin a stream: whether the line began one, or None when the
        lane did nothing (the step then)."""
        streams = self._general.streams
        if lane[0] == BEGIN_CALL:
            _, key, slot, group, call_id, name, text, placeholder, model, may_begin = lane
            placed = streams.begin_call(
                key, slot, group, call_id, name, text, placeholder, model, may_begin, lineno, tally
            )
            return None if placed == NOT_PLACED else placed == BEGAN
        return True if streams.begin_stream(lane[1], lane[2], lineno, tally) else None

    def _step(self, record: Any, lineno: int, tally: Tally, recorder: Recorder) -> bool | None:
        """Feed the line's step: whether it began a stream, or None when the general path
        must read the line (nothing changed)."""
        step = self._shape.step(record)
        if step is None:
            return None
        try:
            began, finished = self._general.streams.feed_step(step, lineno, tally)
        except StreamError:
            return None  # the general path words it
        for stream in finished:
            self._judge(stream, lineno, tally, recorder)
        return began

    def _judge_ended(
        self,
        stream: OpenStream,
        lineno: int,
        tally: Tally,
        recorder: Recorder,
        valid: str | None = None,
    ) -> None:
        """Judge a stream a lane ended: most hold one valid call, counted here at once
        (``valid``: the name it gives, when the C speedups found it valid)."""
        try:
            if valid is not None:
                self._count_valid(stream, valid, recorder)
                return
            if not stream.notes and stream.failure is None:
                call = stream.only_call()
                if call is not None and self._one_valid(stream, call, recorder):
                    return
        except ToolAuditError:
            raise
        except Exception as error:  # as GeneralReader.read_record records it
            self._general.record_bug(error, lineno, tally)
            return
        self._judge(stream, lineno, tally, recorder)

    def _judge(
        self, stream: Finished | OpenStream, lineno: int, tally: Tally, recorder: Recorder
    ) -> None:
        """Judge a stream the line finished, as the general reader would on that line."""
        try:
            if not self._judged(stream, recorder):
                self._general.judge_stream(
                    stream if isinstance(stream, Finished) else stream.finished(None)
                )
        except ToolAuditError:
            raise
        except Exception as error:  # as GeneralReader.read_record records it
            self._general.record_bug(error, lineno, tally)

    def _judged(self, stream: Finished | OpenStream, recorder: Recorder) -> bool:
        """Count a finished stream whose calls are judged here (most): False, having
        counted nothing, for any other (cut, noted, ...), which the general reader judges."""
        if isinstance(stream, Finished):
            found = stream.extracted.calls
            if stream.cut is not None or any(c.note or c.failure for c in found):
                return False
            calls = [(c.id, c.name, c.arguments) for c in found]
            model = stream.extracted.model
        else:
            if stream.notes or stream.failure is not None:
                return False
            # (A stream of one valid call was counted by _judge_ended.)
            calls = [(c.id, c.name, c.arguments()) for c in stream.pending()]
            model = stream.model
        if not calls:
            return False
        verdicts = self._verdicts(calls)
        if verdicts is None:
            return False
        tally = stream.context
        assert isinstance(tally, Tally)
        tally.streams += 1
        source, line = recorder.source, stream.line
        recorder.calls(
            tally,
            [
                (Where(source, line, index, call[0], model), verdict)
                for index, (call, verdict) in enumerate(zip(calls, verdicts, strict=True))
            ],
        )
        return True

    def _one_valid(self, stream: OpenStream, call: OpenCall, recorder: Recorder) -> bool:
        """Count a stream of one call (``call``) its tool's typed decoder takes (most), as
        Recorder.calls() counts a valid call; False, having counted nothing, for any other."""
        name, arguments = call.name, call.arguments()
        if not isinstance(name, str) or type(arguments) is not str:
            return False
        if may_hold_tiny_numbers(arguments):
            return False  # a number below a double's range, which msgspec reads as 0
        decoder = self._decoders[name]
        if decoder is None or not accepts(decoder, arguments):
            return False
        self._count_valid(stream, name, recorder)
        return True

    def _count_valid(self, stream: OpenStream, name: str, recorder: Recorder) -> None:
        """Count a stream of one valid call, which gives ``name``, as Recorder.calls()
        counts a valid call."""
        tally = stream.context
        assert isinstance(tally, Tally)
        tally.streams += 1
        tool = self._names[name]
        tally.count_one_ok(tool)
        rows = recorder.valid_rows
        if rows is not None:
            call = stream.only_call()
            assert call is not None
            rows.append(recorder.valid_row(stream.line, 0, call.id, tool, stream.model))

    def _verdicts(self, calls: list[tuple[object, object, object]]) -> list[str | Verdict] | None:
        """Each call's tool when its typed decoder takes its arguments, else its verdict as
        the general reader's judge_apart() gives it for arguments that are an object; None
        when the general reader must judge them (an unknown tool, arguments that are no
        object or may hold an integer orjson reads otherwise, ids repeated)."""
        decoders, names, declared = self._decoders, self._names, self._declared
        verdicts: list[str | Verdict] = []
        for _, name, arguments in calls:
            if not isinstance(name, str) or type(arguments) is not str:
                return None
            if may_hold_tiny_numbers(arguments):
                return None  # a number below a double's range: judge_apart reads it exactly
            decoder = decoders[name]
            if decoder is not None and accepts(decoder, arguments):
                verdicts.append(names[name])
                continue
            tool = declared.get(name)
            if tool is None:
                return None
            try:
                value = _loads(arguments)
            except _JSONDecodeError:
                return None
            if type(value) is not dict:
                return None
            if may_hold_long_integers(arguments):
                return None  # an integer orjson read as a float may fail or pass the call
            problems = tool.check(value)
            verdicts.append(object_verdict(tool, value, problems))
        if len(calls) > 1 and repeated_ids(call[0] for call in calls):
            return None  # each such call's row notes it: the general path's
        return verdicts
