"""The audit's typed fast path: a line decoded into its format's typed shape, and each
call's arguments into its tool's typed struct, by msgspec, without the general path.

It only ever says "valid" from a typed decode: a call whose arguments its tool's
decoder does not take is judged as the general judge judges it (by the contract, on
the arguments orjson reads), and a line it cannot read as a whole goes to the general
path unread. So the rows and the summary are the general path's, byte for byte
(tests/pipeline/test_typed_path.py compares them on every case, the real corpus and
generated records).

The reader reads a batch of lines in one loop, not a call per line: what a line costs
in Python beyond the two decodes is most of what the fast path costs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import orjson
from msgspec import UNSET

from toolaudit.contract import Validator
from toolaudit.errors import ToolAuditError
from toolaudit.formats import OBJECT, Call
from toolaudit.formats.base import repeated_ids
from toolaudit.formats.flat import FLAT
from toolaudit.formats.openai import request_tools
from toolaudit.formats.typed import (
    DECODE_FAILURES,
    REQUEST_TOOL_FIELDS,
    RecordTools,
    TypedCall,
    TypedShape,
    typed_shapes,
)
from toolaudit.history import Checked
from toolaudit.history.fast import AllAnswered
from toolaudit.jsonutil import may_hold_long_integers, opening_brackets, orjson_may_differ
from toolaudit.pipeline.judge import Verdict, judge, object_verdict
from toolaudit.pipeline.options import AuditOptions
from toolaudit.pipeline.recorder import Recorder, Where
from toolaudit.pipeline.shape_rests import ShapeRests
from toolaudit.pipeline.toolsets import RECORD_TOOLS_CACHE
from toolaudit.pipeline.typed_flat_reader import TypedFlatReader
from toolaudit.pipeline.typed_histories import UNREAD, TypedHistories
from toolaudit.pipeline.typed_stream_reader import TypedStreamReader
from toolaudit.typed.arguments import DECODER_DECIDES_LENGTH, REFUSALS, accepts, is_utf8
from toolaudit.typed.decoders import may_misread_numbers, typed_decoders
from toolaudit.typed.flat import FlatCalls

if TYPE_CHECKING:
    from toolaudit.pipeline.general_reader import GeneralReader
    from toolaudit.pipeline.scored_lines import TypedLine
    from toolaudit.pipeline.scoring import Scorer
    from toolaudit.results.tally import Tally

_JSONDecodeError = orjson.JSONDecodeError
#: Fewer opening brackets than this cannot nest as deep as the standard library's
#: limit (about 990 levels), where it and msgspec part ways by a few levels.
MOST_OPENING_BRACKETS = 900


class _ToolSet:
    """The tools that judge some lines: the validator, their decoders, and each name a
    call may give -> the tool's own name (aliases)."""

    __slots__ = ("decoders", "names", "validator")

    def __init__(self, validator: Validator) -> None:
        self.validator = validator
        self.decoders = typed_decoders(validator)
        self.names = {name: tool.name for name, tool in validator.tools.items()}


class TypedReader:
    """Reads lines of the formats with a typed shape, against one validator's tools
    (None: only records that carry their own are read) and the tools records carry,
    compiled by ``compile_tools`` (a Validator, or why the tools cannot be)."""

    __slots__ = (
        "_by_format",
        "_compile_tools",
        "_flat",
        "_flat_reader",
        "_global",
        "_histories",
        "_interrupted_at",
        "_off",
        "_record_toolsets",
        "_request_histories",
        "_rests",
        "_scorer",
        "_streams",
        "current",
    )

    def __init__(
        self,
        validator: Validator | None,
        input_format: str | None = None,
        compile_tools: Callable[[list[Any]], Validator | str] | None = None,
        streams: GeneralReader | None = None,
        *,
        scorer: Scorer | None = None,
        histories: TypedHistories | None = None,
        request_histories: TypedHistories | None = None,
    ) -> None:
        #: Scores the records read against their expected calls (--expected), if given.
        self._scorer = scorer
        #: Checks the conversations of the records read (pairs' requests), if they are;
        #: those of requests logged alone (their paths without "request."), if they are.
        self._histories = histories
        self._request_histories = request_histories
        shapes = [
            shape
            for shape in typed_shapes()
            if (input_format is None or shape.format == input_format)
            and (shape.record_tools is None or compile_tools is not None)
            # A request logged alone is scored (--expected) by the general path.
            and (shape.holds_calls or scorer is None)
        ]
        self._by_format: dict[str, TypedShape | FlatCalls] = {s.format: s for s in shapes}
        #: The shape lines are tried as: the format the last line read was of.
        self.current: TypedShape | FlatCalls | TypedStreamReader | None = (
            shapes[0] if shapes else None
        )
        self._global = _ToolSet(validator) if validator is not None else None
        #: The stream formats' readers, on ``streams``' open streams (judged by the
        #: global tools: stream records carry none).
        self._streams = _stream_readers(self._global, input_format, streams)
        #: Flat calls need the global tools: flat records carry none.
        self._flat: FlatCalls | None = None
        if self._global is not None and input_format in (None, FLAT.name):
            self._flat = self._by_format[FLAT.name] = FlatCalls(self._global.decoders)
        self._flat_reader = (
            TypedFlatReader(self._flat, validator, scorer=scorer)
            if validator is not None and self._flat is not None
            else None
        )
        self._compile_tools = compile_tools
        self._record_toolsets: dict[tuple[bytes | None, ...], _ToolSet | None] = {}
        self._off = False
        self._interrupted_at = 0
        #: Shapes that refuse line after line rest (their decode would be thrown away).
        self._rests = ShapeRests()

    @property
    def formats(self) -> frozenset[str]:
        return frozenset(self._by_format)

    def seen(self, format_name: str) -> None:
        """The general path read a record of this format: try its shape next (or none)."""
        if self._off or self._rests.resting(format_name):
            self.current = None
        else:
            self.current = self._by_format.get(format_name) or self._streams.get(format_name)

    def flat_call_seen(self, name: str) -> None:
        """The general path read a flat call to the tool called ``name``: read flat calls
        next, that tool's among them."""
        if not self._off and self._flat is not None:
            assert self._global is not None
            self._flat.add(name, self._global.names[name])
            self.current = self._flat

    def stop(self) -> None:
        """A record defined tools for the records after it (an MCP tools/list result, a
        batch input line): those are not the validator's, so the general path reads
        every line from now on."""
        self.current, self._off = None, True

    def read_lines(
        self, lines: list[bytes], start: int, first_line: int, recorder: Recorder
    ) -> int:
        """Read ``lines`` from ``start`` into ``recorder`` while each is of the current
        shape; return the index of the first one it cannot read (``len(lines)`` when it
        read them all), which the general path reads. ``first_line`` is the number of
        ``lines[0]``.

        A line is counted only once every call of it is judged: one it cannot judge, or
        whose judging raises, is left to the general path whole.
        """
        shape = self.current
        assert shape is not None
        if isinstance(shape, FlatCalls):
            assert self._flat_reader is not None
            return self._flat_reader.read_lines(lines, start, first_line, recorder)
        if isinstance(shape, TypedStreamReader):
            return shape.read_lines(lines, start, first_line, recorder)
        end = self._read_lines(shape, lines, start, first_line, recorder)
        self._rests.tried(shape.format, end > start)
        return end

    @property
    def interrupted_at(self) -> int:
        """The number of the line being read when an interruption came (0: none came)."""
        flat = self._flat_reader.interrupted_at if self._flat_reader is not None else 0
        streams = (reader.interrupted_at for reader in self._streams.values())
        return max(self._interrupted_at, flat, *streams)

    def _read_lines(
        self, shape: TypedShape, lines: list[bytes], start: int, first_line: int, recorder: Recorder
    ) -> int:
        decode = shape.decoder.decode
        calls_of = shape.calls
        record_tools = shape.record_tools
        toolset = self._global
        holds_calls = shape.holds_calls
        if toolset is None:
            if record_tools is None and holds_calls:
                return start  # no tools to judge these lines by: the general path says so
            toolset = _NO_TOOLSET
        decoders = toolset.decoders
        tools = toolset.names
        valid = recorder.ok.append
        rows = recorder.valid_rows
        worded = recorder.rows is not None  # (no rows: a problem's words are never read)
        add_row = rows.append if rows is not None else None
        valid_row = recorder.valid_row
        grouped = recorder.grouped
        scorer = self._scorer
        scoring: TypedLine | str | bool | None = None
        # A provider record's one call scored in C (Scorer.call_kernel): its id read
        # before the line is counted, its call scored after.
        kernel = scorer.call_kernel(recorder.source) if scorer is not None else None
        id_of = kernel.id_of if kernel is not None else None
        score_call = kernel.score if kernel is not None else None
        histories = self._histories if holds_calls else self._request_histories
        request_of = shape.request if histories is not None else None
        checked: Checked | AllAnswered | object | None = None
        end = len(lines)
        position = start
        try:
            for position in range(start, end):
                line = lines[position]
                # msgspec does not check the UTF-8 of what it skips; the general path does.
                if not line.isascii() and not is_utf8(line):
                    return position
                if len(line) > MOST_OPENING_BRACKETS and (
                    opening_brackets(line) > MOST_OPENING_BRACKETS
                ):
                    # Nesting this deep may be refused by the standard library, which parses
                    # the lines orjson refuses, and not by msgspec: the general path decides.
                    return position
                try:
                    record = decode(line)
                except DECODE_FAILURES:
                    return position
                named = calls_of(record)
                if named is None:
                    return position
                model, calls = named
                if not holds_calls:  # a request logged alone: a record without calls
                    if orjson_may_differ(line):
                        # A number orjson may refuse (past 1e10000, in a field msgspec
                        # skips, the general path finds the line malformed:json).
                        return position
                    if request_of is not None:
                        assert histories is not None
                        # Nothing after its check may fail: the C reader counts a history
                        # whose every call was answered itself, but in a group.
                        tables = None if grouped else recorder.tally.conversations
                        checked = histories.check(record, line, worded, tables, model)
                        if checked is UNREAD:
                            return position
                    record_tally = recorder.tally_for(None, model)
                    record_tally.records_without_calls += 1
                    if checked is not None and checked is not True:  # (True: counted)
                        _history(checked, recorder, record_tally, first_line + position, model)
                    continue
                if len(calls) > 1 and repeated_ids(call_id for call_id, _, _ in calls):
                    return position  # each such call's row notes it: the general path's
                if record_tools is not None:  # its own tools, or the global ones
                    found_toolset = self._toolset_of(record_tools(record))
                    if found_toolset is None:
                        return position
                    toolset = found_toolset
                    decoders, tools = toolset.decoders, toolset.names
                # (``failed`` is read after the loop: the call that broke it.)
                for failed, (_, name, arguments) in enumerate(calls):  # noqa: B007
                    decoder = decoders[name]
                    if decoder is None:
                        break
                    # A short text needs no more than its decoder (a Raw is a slice of the
                    # line, whose UTF-8 was checked above); a long one, accepts().
                    if len(arguments) > DECODER_DECIDES_LENGTH:
                        if not accepts(decoder, arguments):
                            break
                    else:
                        try:
                            decoder.decode(arguments)
                        except REFUSALS:
                            break
                else:  # every call valid: most lines
                    if may_misread_numbers(line):
                        # A number below a double's range or past 1e±10000 (skipped by
                        # msgspec): the general path reads the line on its exact parse.
                        return position
                    if scorer is not None:
                        scoring = id_of(line, calls) if id_of is not None else None
                        if scoring is None:
                            scoring = scorer.typed_calls(
                                line, shape.format, model, calls, kernel is not None
                            )
                            if scoring is None:
                                return position
                        elif scoring is False:
                            return position  # (an integer past 64 bits: read exactly)
                    if request_of is not None:
                        assert histories is not None
                        # The line read whole, nothing counted yet: where no more than
                        # its calls is counted after (no group, no row, no score), the C
                        # reader counts a history whose every call was answered itself.
                        tables = (
                            recorder.tally.conversations
                            if not grouped and add_row is None and scoring is None
                            else None
                        )
                        checked = histories.check(request_of(record), line, worded, tables, model)
                        if checked is UNREAD:
                            return position
                    group = recorder.tally_for(None, model) if grouped else None
                    count = group.count_one_ok if group is not None else valid
                    for index, (call_id, name, _) in enumerate(calls):
                        tool = tools[name]
                        count(tool)
                        if add_row is not None:
                            add_row(valid_row(first_line + position, index, call_id, tool, model))
                    if scoring is not None:
                        lineno = first_line + position
                        if type(scoring) is not str or not score_call(  # type: ignore[misc]
                            scoring,
                            calls,
                            model,
                            group if group is not None else recorder.tally,
                            lineno,
                        ):
                            _score(scorer, scoring, recorder, group, lineno, calls, model)
                    if checked is not None and checked is not True:  # (True: counted)
                        _history(checked, recorder, group, first_line + position, model)
                    continue
                if may_misread_numbers(line):
                    # A call its decoder refused, on a line that may hold a number below a
                    # double's range or past it: judged by the general path, exactly.
                    return position
                verdicts = self._judge_line(line, calls, failed, toolset)
                if verdicts is None:
                    return position
                if scorer is not None:
                    scoring = id_of(line, calls) if id_of is not None else None
                    if scoring is None:
                        scoring = scorer.typed_calls(
                            line, shape.format, model, calls, kernel is not None
                        )
                        if scoring is None:
                            return position
                    elif scoring is False:
                        return position
                if request_of is not None:
                    assert histories is not None
                    checked = histories.check(request_of(record), line, worded)
                    if checked is UNREAD:
                        return position
                lineno = first_line + position
                tally = recorder.tally_for(None, model) if grouped else None
                source = recorder.source
                recorder.calls(
                    tally,
                    [
                        (Where(source, lineno, index, call_id, model), verdicts[index])
                        for index, (call_id, _, _) in enumerate(calls)
                    ],
                    valid if tally is None else None,
                )
                if scoring is not None:
                    counted_in = tally if tally is not None else recorder.tally
                    if type(scoring) is not str or not score_call(  # type: ignore[misc]
                        scoring, calls, model, counted_in, lineno
                    ):
                        _score(scorer, scoring, recorder, tally, lineno, calls, model)
                if checked is not None:
                    _history(checked, recorder, tally, lineno, model)
            return end
        except KeyboardInterrupt:  # the audit counts the lines before this one as read
            self._interrupted_at = first_line + position
            raise
        except ToolAuditError:
            raise
        except Exception:  # hostile input it did not expect: the general path reads the line
            return position

    def read(
        self, line: bytes
    ) -> tuple[str | None, list[tuple[int, object, str | Verdict]]] | None:
        """(the model, each call's (index, id, and its tool when valid, else its verdict))
        of one line, or None when the general path reads it: :meth:`read_lines` on one
        line, to look at what it decides."""
        probe = _Probe()
        if not self.read_lines([line], 0, 1, probe):
            return None
        return probe.model, probe.found

    def _toolset_of(self, fields: RecordTools) -> _ToolSet | None:
        """The tools that judge a record whose tool fields are ``fields`` (JSON text or
        UNSET): its own, compiled as the general path compiles them, or the global ones
        where it has none; None when the general path must read it (tools it cannot
        compile, no tools at all, numbers orjson may read otherwise than the exact parse
        the general path may make)."""
        if all(field is UNSET for field in fields):
            return self._global
        key = tuple(None if field is UNSET else bytes(field) for field in fields)
        if key in self._record_toolsets:
            return self._record_toolsets[key]
        toolset = self._record_toolset(key)
        if len(self._record_toolsets) >= RECORD_TOOLS_CACHE:
            self._record_toolsets.clear()
        self._record_toolsets[key] = toolset
        return toolset

    def _record_toolset(self, texts: tuple[bytes | None, ...]) -> _ToolSet | None:
        if any(text is not None and orjson_may_differ(text) for text in texts):
            return None
        try:
            values = [None if text is None else orjson.loads(text) for text in texts]
        except _JSONDecodeError:
            return None
        # The fields a request keeps its tools in, read as the extractor reads them.
        tools = request_tools(dict(zip(REQUEST_TOOL_FIELDS, values, strict=True)))
        if not tools:
            return self._global
        assert self._compile_tools is not None
        compiled = self._compile_tools(tools)
        return None if isinstance(compiled, str) else _ToolSet(compiled)

    def _judge_line(
        self, line: bytes, calls: list[TypedCall], failed: int, toolset: _ToolSet
    ) -> list[str | Verdict] | None:
        """Each call's tool when valid, else its verdict as judge() gives it, for a line
        whose call ``failed`` (an index) the typed decoders did not take, after valid
        ones; None when the general path must read the line."""
        tools = toolset.names
        declared = toolset.validator.tools
        verdicts: list[str | Verdict] = [tools[name] for _, name, _ in calls[:failed]]
        for index in range(failed, len(calls)):
            call_id, name, arguments = calls[index]
            if index != failed:
                decoder = toolset.decoders[name]
                if decoder is not None and accepts(decoder, arguments):
                    # Exact: integers bounded to 64 bits, 1e400 refused. So valid here is
                    # valid for the general path, whichever way it parses the line.
                    verdicts.append(tools[name])
                    continue
            tool = declared.get(name)
            # A Raw is read as the line's orjson parse made it.
            text: str | bytes = arguments if isinstance(arguments, str) else bytes(arguments)
            value: Any = None
            if tool is not None or type(text) is bytes:
                try:
                    value = orjson.loads(text)
                except _JSONDecodeError:
                    if type(text) is bytes:
                        return None  # orjson refuses the line: the general path is exact
            if tool is not None and type(value) is dict:
                # What judge() does with arguments that are an object, without a Call:
                # most failing calls of a log. Its parse differs from the exact one the
                # general path may make only for an integer past 64 bits, turned into a
                # float, which may fail or pass the call: such a line is the general
                # path's (a search of the text, on the calls the decoders refused only).
                if may_hold_long_integers(text):
                    return None
                problems = tool.check(value)
                verdicts.append(object_verdict(tool, value, problems))
                continue
            if orjson_may_differ(line):
                # The general path may read this line with the standard library, which
                # words what orjson refuses in its own way.
                return None
            if isinstance(arguments, str):
                call = Call(index, name, arguments, id=call_id)
            else:
                call = Call(index, name, value, id=call_id, encoding=OBJECT)
            verdicts.append(judge(call, toolset.validator, None, exact=False))
        return verdicts


def _score(
    scorer: Scorer | None,
    scoring: TypedLine | str | bool,
    recorder: Recorder,
    tally: Tally | None,
    lineno: int,
    calls: list[TypedCall],
    model: str | None,
) -> None:
    """Score a record the typed path counted, in the tally that counted it (None: the
    audit's), as the general path scores it (see :meth:`Scorer.typed_record`):
    ``scoring`` what :meth:`Scorer.typed_calls` read, or the id whose one call the
    kernel left (:meth:`Scorer.call_kernel`)."""
    assert scorer is not None
    tally = tally if tally is not None else recorder.tally
    where = (recorder.source, lineno)
    if isinstance(scoring, str):
        scorer.typed_call(scoring, calls, model, tally, where)
        return
    assert not isinstance(scoring, bool)  # (False: the reader left the line)
    scorer.typed(scoring, tally, where)


def _history(
    checked: Checked | AllAnswered | object,
    recorder: Recorder,
    tally: Tally | None,
    lineno: int,
    model: str | None,
) -> None:
    """Count the conversation a record the typed path read carries, in the tally that
    counted the record (None: the audit's), as the general path counts it."""
    tally = tally if tally is not None else recorder.tally
    if type(checked) is dict:  # the commonest: every call answered, no failure
        recorder.all_answered_history(tally, model, checked)
        return
    if type(checked) is tuple:  # calls left unanswered, counted without words
        recorder.unanswered_history(tally, model, *checked)
        return
    assert isinstance(checked, Checked)
    recorder.history(tally, Where(recorder.source, lineno, model=model), checked)


def _stream_readers(
    toolset: _ToolSet | None, input_format: str | None, general: GeneralReader | None
) -> dict[str, TypedStreamReader]:
    """The typed stream reader of each stream format with a typed shape, by name: none
    without the general reader's streams to read on or global tools to judge by."""
    if general is None or toolset is None:
        return {}
    from toolaudit.formats.typed_streams import typed_stream_shapes

    return {
        name: TypedStreamReader(shape, toolset.decoders, toolset.names, toolset.validator, general)
        for name, shape in typed_stream_shapes().items()
        if input_format is None or name == input_format
    }


class _Probe(Recorder):
    """A recorder that keeps what :meth:`TypedReader.read` shows."""

    def __init__(self) -> None:
        super().__init__(AuditOptions(), want_rows=True)
        self.start_source("-")
        self.valid_row = self._valid_row
        self.model: str | None = None
        self.found: list[tuple[int, object, str | Verdict]] = []

    def _valid_row(self, _: int, index: int, call_id: object, tool: str, model: str | None) -> None:
        self.model = model
        self.found.append((index, call_id, tool))

    def calls(
        self, tally: object, judged: Iterable[tuple[Where, str | Verdict]], _: object = None
    ) -> None:
        for where, verdict in judged:
            assert where.index is not None
            self.model = where.model
            self.found.append((where.index, where.call_id, verdict))


#: The tool set of lines of a pair format when there are no global tools: none
#: (a record without tools of its own then goes to the general path, which says so).
_NO_TOOLSET = _ToolSet(Validator({}))
