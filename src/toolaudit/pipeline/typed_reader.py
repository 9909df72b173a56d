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

from collections.abc import Callable
from typing import Any

import orjson
from msgspec import UNSET

from toolaudit.contract import Validator
from toolaudit.formats import JSON_STRING, OBJECT, Call
from toolaudit.formats.base import repeated_ids
from toolaudit.formats.flat import FLAT
from toolaudit.formats.flat import call_id as flat_call_id
from toolaudit.formats.openai import request_tools
from toolaudit.formats.typed import (
    DECODE_FAILURES,
    REQUEST_TOOL_FIELDS,
    RecordTools,
    TypedCall,
    TypedShape,
    typed_shapes,
)
from toolaudit.jsonutil import may_hold_long_integers, orjson_may_differ
from toolaudit.pipeline.judge import Verdict, judge, number_may_be_inexact, object_verdict
from toolaudit.pipeline.toolsets import RECORD_TOOLS_CACHE
from toolaudit.results.tally import Tally
from toolaudit.typed.arguments import (
    DECODER_DECIDES_LENGTH,
    REFUSALS,
    DecodersOnDemand,
    accepts,
    beyond_decoders,
    is_utf8,
)
from toolaudit.typed.flat import FlatCalls

#: Told of each call the reader did not call valid, with its verdict: (its line's group's
#: tally, None without groups; its line, its index, its id, the model, the verdict).
Judged = Callable[["Tally | None", int, int, object, "str | None", Verdict], object]
#: Makes a valid call's report row of (its line, its index, its id, its tool, the model).
ValidRow = Callable[[int, int, object, str, "str | None"], object]

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
        self.decoders = DecodersOnDemand(validator)
        self.names = {name: tool.name for name, tool in validator.tools.items()}


class TypedReader:
    """Reads lines of the formats with a typed shape, against one validator's tools
    (None: only records that carry their own are read) and the tools records carry,
    compiled by ``compile_tools`` (a Validator, or why the tools cannot be)."""

    __slots__ = (
        "_by_format",
        "_compile_tools",
        "_flat",
        "_global",
        "_off",
        "_record_toolsets",
        "current",
        "interrupted_at",
    )

    def __init__(
        self,
        validator: Validator | None,
        input_format: str | None = None,
        compile_tools: Callable[[list[Any]], Validator | str] | None = None,
    ) -> None:
        shapes = [
            shape
            for shape in typed_shapes()
            if (input_format is None or shape.format == input_format)
            and (shape.record_tools is None or compile_tools is not None)
        ]
        self._by_format: dict[str, TypedShape | FlatCalls] = {s.format: s for s in shapes}
        #: The shape lines are tried as: the format the last line read was of.
        self.current: TypedShape | FlatCalls | None = shapes[0] if shapes else None
        self._global = _ToolSet(validator) if validator is not None else None
        #: Flat calls need the global tools: flat records carry none.
        self._flat: FlatCalls | None = None
        if self._global is not None and input_format in (None, FLAT.name):
            self._flat = self._by_format[FLAT.name] = FlatCalls(self._global.decoders)
        self._compile_tools = compile_tools
        self._record_toolsets: dict[tuple[bytes | None, ...], _ToolSet | None] = {}
        self._off = False
        #: The number of the line being read when an interruption came (0: none came).
        self.interrupted_at = 0

    @property
    def formats(self) -> frozenset[str]:
        return frozenset(self._by_format)

    def seen(self, format_name: str) -> None:
        """The general path read a record of this format: try its shape next (or none)."""
        if not self._off:
            self.current = self._by_format.get(format_name)

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
        self,
        lines: list[bytes],
        start: int,
        first_line: int,
        valid: Callable[[str], object],
        add_row: Callable[[Any], object] | None,
        valid_row: ValidRow,
        judged: Judged,
        group_of: Callable[[str | None], Tally] | None = None,
    ) -> int:
        """Read ``lines`` from ``start`` while each is of the current shape; return the
        index of the first one it cannot read (``len(lines)`` when it read them all),
        which the general path reads.

        Each valid call's tool is given to ``valid``, and when rows of valid calls are
        wanted (``add_row`` not None), the row ``valid_row`` makes of it to ``add_row``;
        every other call goes to ``judged``, in order. ``first_line`` is the line
        number of ``lines[0]``. With ``--group-by model``, ``group_of`` gives the tally
        of a line's model (counting one more record in it), which counts its valid calls.
        """
        shape = self.current
        assert shape is not None
        if isinstance(shape, FlatCalls):
            return self._read_flat(
                shape, lines, start, first_line, valid, add_row, valid_row, judged, group_of
            )
        decode = shape.decoder.decode
        calls_of = shape.calls
        record_tools = shape.record_tools
        toolset = self._global
        if toolset is None:
            if record_tools is None:
                return start  # no tools to judge these lines by: the general path says so
            toolset = _NO_TOOLSET
        decoders = toolset.decoders
        tools = toolset.names
        end = len(lines)
        position = start
        try:
            for position in range(start, end):
                line = lines[position]
                # msgspec does not check the UTF-8 of what it skips; the general path does.
                if not line.isascii() and not is_utf8(line):
                    return position
                if len(line) > MOST_OPENING_BRACKETS and (
                    line.count(b"[") + line.count(b"{") > MOST_OPENING_BRACKETS
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
                    count = valid if group_of is None else group_of(model).count_one_ok
                    for index, (call_id, name, _) in enumerate(calls):
                        tool = tools[name]
                        count(tool)
                        if add_row is not None:
                            add_row(valid_row(first_line + position, index, call_id, tool, model))
                    continue
                verdicts = self._judge_line(line, calls, failed, toolset)
                if verdicts is None:
                    return position
                lineno = first_line + position
                tally = None if group_of is None else group_of(model)
                for index, (call_id, _, _) in enumerate(calls):
                    verdict = verdicts[index]
                    if isinstance(verdict, str):
                        if tally is None:
                            valid(verdict)
                        else:
                            tally.count_one_ok(verdict)
                        if add_row is not None:
                            add_row(valid_row(lineno, index, call_id, verdict, model))
                    else:
                        judged(tally, lineno, index, call_id, model, verdict)
            return end
        except KeyboardInterrupt:  # the audit counts the lines up to this one as read
            self.interrupted_at = first_line + position
            raise

    def _read_flat(
        self,
        flat: FlatCalls,
        lines: list[bytes],
        start: int,
        first_line: int,
        valid: Callable[[str], object],
        add_row: Callable[[Any], object] | None,
        valid_row: ValidRow,
        judged: Judged,
        group_of: Callable[[str | None], Tally] | None,
    ) -> int:
        """:meth:`read_lines` for flat calls, a call a line: valid if its decode says so,
        else judged as the audit judges a flat call (orjson, then the contract; judge()
        for a tool the schemas lack), or left to the general path when it is not a flat
        call whose arguments are an object."""
        assert self._global is not None
        validator = self._global.validator
        declared = validator.tools
        decode = flat.decoder_worth_trying()
        loads = orjson.loads
        end = len(lines)
        position = start
        failing = 0
        try:
            for position in range(start, end):
                line = lines[position]
                if not line.isascii() and not is_utf8(line):  # as in read_lines
                    return position
                if len(line) > DECODER_DECIDES_LENGTH and beyond_decoders(line):
                    return position
                if decode is not None:
                    try:
                        call = decode(line)
                    except DECODE_FAILURES:
                        pass
                    else:  # most lines
                        tool = call.tool
                        if group_of is None:
                            valid(tool)
                        else:
                            group_of(call.model).count_one_ok(tool)
                        if add_row is not None:
                            lineno = first_line + position
                            add_row(valid_row(lineno, 0, call.call_id_or_id, tool, call.model))
                        continue
                try:
                    record = loads(line)
                except _JSONDecodeError:
                    return position
                if type(record) is not dict:
                    return position
                name = record.get("name")
                arguments = record.get("arguments")
                if type(name) is not str or type(arguments) is not dict:
                    return position
                judge_by = declared.get(name)
                if judge_by is None:
                    # A tool the schemas do not declare (a model's invention, often in a
                    # log of failing calls): judged as the general path judges it, which
                    # parses the line again exactly if it may hold a long integer.
                    if may_hold_long_integers(line):
                        return position
                    call = Call(0, name, arguments, id=flat_call_id(record), encoding=JSON_STRING)
                    verdict = judge(call, validator, None, exact=False)
                    problems = verdict[1]
                else:
                    problems = judge_by.check(arguments)
                    # An integer past 64 bits, which orjson read as a float, may be why the
                    # call fails: the general path judges it on the exact parse.
                    if problems and (
                        number_may_be_inexact(problems, arguments) and may_hold_long_integers(line)
                    ):
                        return position
                model = record.get("model")
                if type(model) is not str:
                    if model is not None and group_of is not None:
                        return position  # its group is named by the value: the general path's
                    model = None
                tally = None if group_of is None else group_of(model)
                lineno = first_line + position
                if judge_by is None:
                    failing += bool(problems)
                    judged(tally, lineno, 0, call.id, model, verdict)
                    continue
                if problems:
                    failing += 1
                    verdict = object_verdict(judge_by, arguments, problems)
                    judged(tally, lineno, 0, flat_call_id(record), model, verdict)
                    continue
                # Valid, and not decoded: of a tool the decoder does not know yet (or
                # cannot type), or one it was not worth trying on.
                if name not in flat:
                    flat.add(name, judge_by.name)
                    decode = flat.decoder_worth_trying()
                if tally is None:
                    valid(judge_by.name)
                else:
                    tally.count_one_ok(judge_by.name)
                if add_row is not None:
                    add_row(valid_row(lineno, 0, flat_call_id(record), judge_by.name, model))
            return end
        except KeyboardInterrupt:  # the audit counts the lines up to this one as read
            self.interrupted_at = first_line + position
            raise
        finally:
            flat.lines += position - start
            flat.failing += failing

    def read(
        self, line: bytes
    ) -> tuple[str | None, list[tuple[int, object, str | Verdict]]] | None:
        """(the model, each call's (index, id, and its tool when valid, else its verdict))
        of one line, or None when the general path reads it: :meth:`read_lines` on one
        line, to look at what it decides."""
        found: list[tuple[int, object, str | Verdict]] = []
        models: list[str | None] = [None]

        def valid_row(_: int, index: int, call_id: object, tool: str, model: str | None) -> None:
            models[0] = model
            found.append((index, call_id, tool))

        def judged(
            _: object, __: int, index: int, call_id: object, model: str | None, verdict: Verdict
        ) -> None:
            models[0] = model
            found.append((index, call_id, verdict))

        if not self.read_lines([line], 0, 1, _ignored, _ignored, valid_row, judged):
            return None
        return models[0], found

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
                # float (as the inline path checks for flat calls). The problems are
                # looked at first: most rule it out without reading the text again.
                problems = tool.check(value)
                if (
                    problems
                    and number_may_be_inexact(problems, value)
                    and may_hold_long_integers(text)
                ):
                    return None
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


def _ignored(_: object) -> None:
    """Where :meth:`TypedReader.read` sends what it does not keep."""


#: The tool set of lines of a pair format when there are no global tools: none
#: (a record without tools of its own then goes to the general path, which says so).
_NO_TOOLSET = _ToolSet(Validator({}))
