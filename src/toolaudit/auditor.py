"""The streaming audit: sources -> lines -> records -> calls -> report rows + summary.

Nothing here prints. The loop in :meth:`Audit._audit_source` is the hot path:
it handles the common case (a line holding one flat, well-formed call to a
declared tool) inline, and hands everything else to :meth:`Audit._audit_record`,
which may be slower because it is rarer: format detection, decoding,
record-carried tools, malformed input.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, BinaryIO

import orjson

from toolaudit import __version__
from toolaudit.errors import InputError, SchemaError, ToolAuditError
from toolaudit.folding import DEFAULT_MAX_PARAMS, DEFAULT_MAX_TOOLS
from toolaudit.formats import ABSENT, JSON_STRING, OBJECT, Call, Extracted, UnknownShape, extract
from toolaudit.jsonutil import canonical, dumps_any, loads_exact, may_hold_long_integers
from toolaudit.schemas import NO_SCHEMAS, SchemaSet
from toolaudit.sources import (
    DEFAULT_MAX_LINE_BYTES,
    DamagedInput,
    OversizedLine,
    Source,
    expand_paths,
    read_line_batches,
)
from toolaudit.folding import OTHER, Folding
from toolaudit.summary import MAX_GROUPS, NO_NAME, NULL_GROUP, SourceStatus, Summary, ToolSummary, merged_counts
from toolaudit.tally import Tally
from toolaudit.tooldefs import normalize_tools
from toolaudit.validate import (
    ENUM,
    MALFORMED,
    TYPE,
    UNKNOWN_TOOL,
    Problem,
    ToolValidator,
    Validator,
    compile_schemas,
    format_problems,
    kind_phrase,
)

Row = dict[str, Any]
Problems = tuple[Problem, ...] | list[Problem]

_BOM = b"\xef\xbb\xbf"
_NOTHING: Mapping[str, Any] = {}
_NO_TOOLS = Validator({})
_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError
ORJSON_MAX_DEPTH = 1024
#: Compiled tool sets of records (logged requests) kept for reuse, at most.
RECORD_TOOLS_CACHE = 1024


class NoSchemasError(ToolAuditError):
    """A call has no schemas to be judged by: no --schemas, and its record carries no tools."""


@dataclass(frozen=True)
class AuditOptions:
    """What to audit and what to keep, beyond the inputs and the schemas."""

    #: Keep report rows only for calls and records that fail.
    errors_only: bool = False
    #: A longer line is reported as malformed instead of being parsed.
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    #: Read every record as this format (a key of formats.EXTRACTORS); None detects per line.
    input_format: str | None = None
    #: Processes for run() (0: one per core); the outputs are those of one process.
    jobs: int = 1
    #: Distinct tool names, and parameter names per tool, kept in the summary;
    #: the others are folded into "<other>" (see folding.py).
    max_tools: int = DEFAULT_MAX_TOOLS
    max_params: int = DEFAULT_MAX_PARAMS
    #: Record fields to group the summary by (dotted paths; "model" is the model
    #: the record's format names); see summary.Summary.groups.
    group_by: tuple[str, ...] = ()


class Audit:
    """One audit run over some inputs against one schema set.

    Iterate it for the report rows (dicts), or call :meth:`run` to write them as
    JSONL; either way :attr:`summary` is set once the inputs are exhausted.
    """

    #: The inline path for flat calls; tests turn it off to check it changes nothing.
    inline_fast_path = True

    def __init__(
        self,
        inputs: Iterable[str | Source],
        schemas: SchemaSet = NO_SCHEMAS,
        options: AuditOptions = AuditOptions(),
        *,
        on_bytes: Callable[[int], object] | None = None,
        stdin: BinaryIO | None = None,
    ) -> None:
        self.sources = [s if isinstance(s, Source) else Source(s) for s in inputs]
        self.schemas = schemas
        self.options = options
        #: Told how many bytes each read consumed (progress); may be set until run().
        self.on_bytes = on_bytes
        self._stdin = stdin
        #: Counts every line; with --group-by, the groups count the records and calls.
        self._global = Tally(options.max_tools, options.max_params)
        #: Where the record being audited is counted: the global tally or its group's.
        self._tally = self._global
        self._groups: dict[str, Tally] = {}
        self._group_folding = Folding(MAX_GROUPS)
        self._statuses: list[SourceStatus] = []
        # Tools that records define for later records: an MCP tools/list result
        # (for the rest of its stream) and OpenAI Batch input lines (by custom_id).
        self._stream_tools: list[Any] | None = None
        self._stream_more_pages = False
        self._keyed_tools: dict[object, Validator | str] = {}
        self._compiled_tools: dict[bytes, Validator | str] = {}
        #: Whether a record defined tools for later records (see parallel.py).
        self.defines_tools = False
        self.summary: Summary | None = None

    @classmethod
    def of_paths(
        cls, paths: Iterable[str], schemas: SchemaSet = NO_SCHEMAS, options: AuditOptions = AuditOptions(), **kwargs: Any
    ) -> Audit:
        """An audit of files, directories (walked) and ``-``; missing paths raise now."""
        return cls(expand_paths(paths), schemas, options, **kwargs)

    def __iter__(self) -> Iterator[Row]:
        for rows in self._row_batches(want_rows=True):
            yield from rows

    def run(self, report: BinaryIO | None = None) -> Summary:
        """Audit everything; write the report rows to ``report`` (JSONL) if given.

        With ``options.jobs`` other than 1 the work is shared among processes
        (see :mod:`toolaudit.parallel`); the results are the same.
        """
        if self.options.jobs != 1:
            from toolaudit.parallel import run_in_parallel

            return run_in_parallel(self, report, self.on_bytes)
        return self.run_here(report)

    def run_here(self, report: BinaryIO | None = None) -> Summary:
        """:meth:`run`, in this process."""
        # Each row is written as soon as it is dumped: holding many orjson
        # results alive at once (a list, a join) was 10x slower, measured.
        try:
            for rows in self._row_batches(want_rows=report is not None):
                if report is not None:
                    write_rows(report, rows)
        except KeyboardInterrupt:
            self.finish(interrupted=True)  # interrupted while writing: the summary still says so
            raise
        assert self.summary is not None
        return self.summary

    def _row_batches(self, *, want_rows: bool) -> Iterator[list[Row]]:
        """The report rows, a batch at a time; sets :attr:`summary` at the end.

        Interrupted (Ctrl-C, SIGTERM), it still yields every complete row and
        sets a summary that says it is incomplete, then lets the interruption go on.
        """
        try:
            for source in self.sources:
                status = SourceStatus(source.name)
                self._statuses.append(status)
                self._stream_tools, self._stream_more_pages = None, False
                yield from self._audit_source(source, status, want_rows)
        except KeyboardInterrupt:
            self.finish(interrupted=True)
            raise
        self.finish()

    def finish(self, *, interrupted: bool = False) -> Summary:
        """Set :attr:`summary` from what was counted (once; an interrupted run is incomplete)."""
        if self.summary is None:
            if interrupted and self._statuses and self._statuses[-1].complete:
                last = self._statuses[-1]
                last.complete, last.error = False, "interrupted before the end"
            complete = not interrupted and all(s.complete for s in self._statuses)
            summary = self._global.summary(
                version=__version__, schemas_digest=self.schemas.digest, sources=self._statuses, complete=complete
            )
            if self.options.group_by:
                summary = self._with_groups(summary)
            self.summary = summary
        return self.summary

    def _with_groups(self, total: Summary) -> Summary:
        """The summary of the groups merged (their counts), with the global line counts."""
        groups = {}
        for key, tally in self._groups.items():
            tally.lines = tally.records  # a group has records, not lines (blank lines have no group)
            groups[key] = tally.summary(version=total.toolaudit_version, schemas_digest=total.schemas_digest, sources=[], complete=True)
        merged = replace(total, by_tool={}, records_without_calls=0, record_errors={})
        for group in groups.values():
            merged.records_without_calls += group.records_without_calls
            merged.record_errors = merged_counts(merged.record_errors, group.record_errors)
            for name, tool in group.by_tool.items():
                merged.by_tool[name] = merged.by_tool[name].merged(tool) if name in merged.by_tool else tool.merged(ToolSummary())
        return replace(merged, group_by=self.options.group_by, groups=groups, samples=list(self._global.samples))

    def _use_group(self, key: str) -> None:
        """Count what follows (one record) in the group ``key``."""
        tally = self._groups.get(key)
        if tally is None:
            if not self._group_folding.admits(key):
                key = OTHER
            tally = self._groups.get(key)
            if tally is None:
                self._group_folding.maybe_compact(self._groups, Tally.absorbed)
                tally = self._groups[key] = Tally(self.options.max_tools, self.options.max_params)
        tally.records += 1
        self._tally = tally

    # -- the hot loop -------------------------------------------------------------

    def _audit_source(self, source: Source, status: SourceStatus, want_rows: bool) -> Iterator[list[Row]]:
        tally = self._global
        global_tools = self.schemas.validator
        inline = (
            self.inline_fast_path
            and global_tools is not None
            and self.options.input_format in (None, "flat")
            and not self.options.group_by  # grouping takes the general path
        )
        tools_get = global_tools.tools.get if global_tools is not None else _NO_TOOLS.tools.get
        ok_batch: list[str] = []
        ok_names = ok_batch.append
        count_ok = tally.count_ok
        ok_rows = want_rows and not self.options.errors_only
        name_of_source = source.name
        loads = _loads
        decode_error = _JSONDecodeError
        rows: list[Row] = []  # the current batch's rows, yielded after each batch
        kept: list[Row] | None = None
        lineno = source.first_line - 1
        blank = 0
        try:
            for lines in read_line_batches(
                source, max_line_bytes=self.options.max_line_bytes, on_bytes=self.on_bytes, stdin=self._stdin
            ):
                if want_rows:
                    rows = kept = []
                for line in lines:
                    lineno += 1
                    try:
                        record = loads(line)
                    except decode_error as error:
                        record = self._unparsable(line, lineno, error, name_of_source, kept)
                        if record is _BLANK:
                            blank += 1
                            continue
                        if record is _REPORTED:
                            continue
                    # The common case, inline: a flat call to a declared tool, arguments an object.
                    # (formats.detect() reads name + arguments as a flat call, whatever else is there.)
                    if inline and type(record) is dict:
                        name = record.get("name")
                        arguments = record.get("arguments")
                        if type(name) is str and type(arguments) is dict:
                            tool = tools_get(name)
                            if tool is not None:
                                problems = tool.check(arguments)
                                if problems:
                                    if _number_may_be_inexact(problems, arguments) and may_hold_long_integers(line):
                                        self._audit_record(record, lineno, name_of_source, kept, line)
                                        continue
                                    self._count_and_report(
                                        tool.name, name, problems, None, _flat_id(record), 0, record.get("model"),
                                        lineno, name_of_source, kept,
                                    )
                                    continue
                                ok_names(tool.name)
                                if ok_rows:
                                    call_id = record["call_id"] if "call_id" in record else record.get("id")
                                    model = record.get("model")
                                    if type(model) is str:
                                        rows.append({"source": name_of_source, "line": lineno, "index": 0, "id": call_id,
                                                     "tool": tool.name, "model": model, "ok": True, "errors": []})
                                    else:
                                        rows.append({"source": name_of_source, "line": lineno, "index": 0, "id": call_id,
                                                     "tool": tool.name, "ok": True, "errors": []})
                                continue
                    self._audit_record(record, lineno, name_of_source, kept, line if type(line) is bytes else None)
                # Valid calls are tallied per batch, in C: cheaper than a dict update per call.
                count_ok(ok_batch)
                ok_batch.clear()
                if rows:
                    yield rows
                    rows = []
        except DamagedInput as damage:
            status.complete = False
            status.error = f"{damage}; reading stopped after line {lineno}"
        except InputError as error:
            status.complete = False
            status.error = str(error)
        except KeyboardInterrupt:
            status.complete = False
            status.error = f"interrupted after line {lineno}"
            self._count_lines(source, status, lineno, blank)
            if rows:
                yield rows  # every complete row of the batch in progress
            raise
        self._count_lines(source, status, lineno, blank)

    def _count_lines(self, source: Source, status: SourceStatus, lineno: int, blank: int) -> None:
        tally = self._global
        lines_read = lineno - (source.first_line - 1)
        status.lines = lines_read
        tally.lines += lines_read
        tally.blank_lines += blank
        tally.records += lines_read - blank

    # -- the rare paths -------------------------------------------------------------

    def _unparsable(
        self, line: bytes | OversizedLine, lineno: int, error: ValueError, source: str, rows: list[Row] | None
    ) -> Any:
        """A line orjson refused: blank, a BOM to skip, or a malformed record.

        Returns the record when the line is fine after all, ``_BLANK`` for a
        blank line, ``_REPORTED`` when it was reported as malformed.
        """
        if isinstance(line, OversizedLine):
            detail = f"line is {line.length} bytes, over the --max-line-bytes limit"
            self._group_of(None, None)
            self._record_error("json", source, lineno, detail, rows)
            return _REPORTED
        if not line.strip() or line == _BOM:
            return _BLANK
        message = getattr(error, "msg", str(error))
        if "depth limit" in message:
            detail = f"nested deeper than the parser's limit of {ORJSON_MAX_DEPTH} levels; not audited"
        else:
            try:
                # Valid JSON that orjson refuses: 1e400, a lone surrogate escape, a
                # UTF-8 byte order mark (an editor's, or from concatenated files).
                return loads_exact(line)
            except (ValueError, RecursionError):
                pass
            detail = f"not valid JSON: {message} (column {getattr(error, 'colno', '?')})"
        self._group_of(None, None)
        self._record_error("json", source, lineno, detail, rows)
        return _REPORTED

    def _record_error(self, reason: str, source: str, lineno: int, detail: str, rows: list[Row] | None) -> None:
        error = f"{MALFORMED}:{reason}"
        errors = self._tally.record_errors
        errors[error] = errors.get(error, 0) + 1
        row = {"source": source, "line": lineno, "index": None, "id": None, "tool": None, "ok": False, "errors": [error], "detail": detail}
        if rows is not None:
            rows.append(row)
        self._keep_sample(row)

    def _keep_sample(self, row: Row) -> None:
        """Keep a failing row as one of the first few (see summary.SAMPLE_ROWS)."""
        if self._tally.wants_sample():
            self._tally.samples.append(row)
        if self._tally is not self._global and self._global.wants_sample():
            self._global.samples.append(row)

    def _audit_record(
        self, record: object, lineno: int, source: str, rows: list[Row] | None, line: bytes | None = None, *, grouped: bool = False
    ) -> None:
        """Everything but the inline case. ``line`` is the record's text when it was
        parsed by orjson, which turns integers beyond 64 bits into floats: if a call
        then fails, the line is parsed again exactly and judged on that."""
        if not isinstance(record, dict):
            what = kind_phrase(record)
            self._group_of(None, None)
            self._record_error("record", source, lineno, f"expected a JSON object holding tool calls, got {what}", rows)
            return
        try:
            extracted = extract(record, self.options.input_format)
        except UnknownShape as shape:
            if not grouped:
                self._group_of(record, None)
            self._record_error("record", source, lineno, str(shape), rows)
            return
        if not grouped:
            self._group_of(record, extracted.model)
        if extracted.defines is not None:
            self._remember_tools(extracted, source, lineno)
        if not extracted.calls:
            self._tally.records_without_calls += 1
            return
        validator, why_unjudged = self._validator_for(extracted, source, lineno)
        if validator is None:
            self._record_error("record", source, lineno, f"its tool definitions are malformed: {why_unjudged}", rows)
            return
        exact = line is None
        verdicts = [self._judge(call, validator, why_unjudged, exact) for call in extracted.calls]
        if not exact and any(problems for _, problems, _ in verdicts) and may_hold_long_integers(line):
            try:
                exact_record = loads_exact(line)
            except (ValueError, RecursionError):
                exact_record = None
            if exact_record is not None:
                self._audit_record(exact_record, lineno, source, rows, grouped=True)
                return
        for call, (tool_key, problems, detail) in zip(extracted.calls, verdicts):
            self._count_and_report(tool_key, call.name, problems, detail, call.id, call.index, extracted.model, lineno, source, rows)

    def _group_of(self, record: Mapping[str, Any] | None, model: str | None) -> None:
        """With --group-by, count this record in its group (see group_key)."""
        if self.options.group_by:
            self._use_group(group_key(record, model, self.options.group_by))

    def _validator_for(self, extracted: Extracted, source: str, lineno: int) -> tuple[Validator | None, str | None]:
        """Which schemas judge this record's calls: its own tools first, then tools
        keyed to it (batch input, BFCL question), then its stream's, then --schemas.
        Returns (None, why) when the record's own tools are malformed."""
        if extracted.tools is not None and extracted.defines is None:
            compiled = self._compile_tools(extracted.tools)
            return (None, compiled) if isinstance(compiled, str) else (compiled, None)
        key = extracted.key
        if isinstance(key, (str, int)):  # a key from the log may be any JSON value
            keyed = self._keyed_tools.get(key)
            if isinstance(keyed, Validator):
                return keyed, None
            if isinstance(keyed, str):
                return None, keyed
            if self.schemas.keyed:
                question = self.schemas.keyed.get(str(key))
                if question is not None:
                    return question, None
                if self.schemas.validator is None:
                    return _NO_TOOLS, f"no question with id {key!r} in the schemas"
        if extracted.format == "mcp" and self._stream_tools is not None:
            compiled = self._compile_tools(self._stream_tools)
            return (None, compiled) if isinstance(compiled, str) else (compiled, None)
        if self.schemas.validator is None:
            raise NoSchemasError(
                f"{source}:{lineno}: no tool schemas for this call: the record carries no tool "
                "definitions and no --schemas was given"
            )
        return self.schemas.validator, None

    def _remember_tools(self, extracted: Extracted, source: str, lineno: int) -> None:
        self.defines_tools = True
        if extracted.defines == "stream":
            tools = list(extracted.tools or ())
            if self._stream_more_pages and self._stream_tools is not None:
                tools = self._stream_tools + tools
            self._stream_tools, self._stream_more_pages = tools, extracted.more_pages
        elif extracted.defines == "key" and isinstance(extracted.key, (str, int)) and extracted.tools is not None:
            self._keyed_tools[extracted.key] = self._compile_tools(extracted.tools)

    def _compile_tools(self, tools: object) -> Validator | str:
        """A record's tool definitions, compiled (and cached by content), or why they cannot be."""
        cache_key = canonical(tools)
        if cache_key is None:
            return "they cannot be read (nested too deeply)"
        compiled = self._compiled_tools.get(cache_key)
        if compiled is None:
            try:
                compiled = compile_schemas(normalize_tools(tools if isinstance(tools, list) else [tools], source="record"))
            except SchemaError as error:
                compiled = str(error)
            if len(self._compiled_tools) >= RECORD_TOOLS_CACHE:
                self._compiled_tools.clear()
            self._compiled_tools[cache_key] = compiled
        return compiled

    def _judge(
        self, call: Call, validator: Validator, context: str | None, exact: bool
    ) -> tuple[str, Problems, str | None]:
        """(the tool to count it under, its problems, the row's detail) for one call."""
        name = call.name
        details = []
        problems: Problems
        tool_key: str = NO_NAME
        if call.failure is not None and name is None:
            problems = [(MALFORMED, "call")]
            details.append(call.failure)
        elif not isinstance(name, str):
            problems = [(MALFORMED, "name")]
            details.append(f"the call's name is {kind_phrase(name)}, not a string")
        else:
            tool = validator.tools.get(name)
            if tool is None:
                tool_key = name
                problems = [(UNKNOWN_TOOL, name)]
                if context:
                    details.append(context)
            else:
                tool_key = tool.name
                if call.failure is not None:
                    problems = [(MALFORMED, "arguments")]
                    details.append(call.failure)
                else:
                    decoded, why = decode_call_arguments(call, tool, exact=exact)
                    if why:
                        details.append(why)
                    problems = [(MALFORMED, "arguments")] if decoded is None else tool.check(decoded)
        if call.note:
            details.append(call.note)
        return tool_key, problems, "; ".join(details) or None

    def _count_and_report(
        self,
        tool_key: str,
        name: object,
        problems: Problems,
        detail: str | None,
        call_id: object,
        index: int,
        model: object,
        lineno: int,
        source: str,
        rows: list[Row] | None,
    ) -> None:
        tally = self._tally
        if problems:
            tally.count_problems(tool_key, problems)
        else:
            tally.count_ok((tool_key,))
        wanted = rows is not None and (problems or not self.options.errors_only)
        if wanted or (problems and (self._tally.wants_sample() or self._global.wants_sample())):
            row: Row = {
                "source": source,
                "line": lineno,
                "index": index,
                "id": call_id,
                "tool": tool_key if isinstance(name, str) else None,
            }
            if isinstance(model, str):
                row["model"] = model
            row["ok"] = not problems
            row["errors"] = format_problems(problems)
            if detail is not None:
                row["detail"] = detail
            if wanted:
                rows.append(row)  # type: ignore[union-attr]
            if problems:
                self._keep_sample(row)


_BLANK = object()
_REPORTED = object()
_dump_line = functools.partial(orjson.dumps, option=orjson.OPT_APPEND_NEWLINE)


def group_key(record: Mapping[str, Any] | None, model: str | None, fields: tuple[str, ...]) -> str:
    """The group of a record: the values of its --group-by fields, joined by " | ".

    A field is a dotted path into the record (``metadata.prompt_version``);
    ``model`` is the model the record's format names, wherever it keeps it. A
    string stands for itself, a missing field is ``null``, any other value is
    its JSON.
    """
    values = []
    for field_path in fields:
        value: object = record
        if field_path == "model" and model is not None:
            value = model
        else:
            for step in field_path.split("."):
                value = value.get(step) if isinstance(value, Mapping) else None
        if isinstance(value, str):
            values.append(value)
        elif value is None:
            values.append(NULL_GROUP)
        else:
            values.append(dumps_any(value, option=orjson.OPT_SORT_KEYS).decode())
    return " | ".join(values)


def _number_may_be_inexact(problems: Problems, arguments: Mapping[str, Any]) -> bool:
    """Whether a type or enum error may come from orjson's float for a huge integer:
    only a float, or an array or object holding one, can be such a value."""
    for kind, subject in problems:
        if kind == TYPE or kind == ENUM:
            value_type = type(arguments.get(subject))
            if value_type is float or value_type is list or value_type is dict:
                return True
    return False


def write_rows(report: BinaryIO, rows: list[Row]) -> None:
    """Write rows as JSON lines, fast with orjson; a row orjson cannot write (a
    lone surrogate from the standard library's parser) goes through dumps_any."""
    pending = iter(rows)
    while True:
        try:
            report.writelines(map(_dump_line, pending))
            return
        except TypeError:
            # writelines wrote every row before the one that failed; map took that
            # one from `pending` too, so it is just before what `pending` has left.
            rest = list(pending)
            report.write(dumps_any(rows[len(rows) - len(rest) - 1], option=orjson.OPT_APPEND_NEWLINE))
            pending = iter(rest)


def _flat_id(record: Mapping[str, Any]) -> object:
    """A flat record's call id: ``call_id`` where it has one (an OpenAI Responses
    item logged alone, whose ``id`` is the item's), else ``id``."""
    return record["call_id"] if "call_id" in record else record.get("id")


def decode_call_arguments(
    call: Call, tool: ToolValidator, *, exact: bool = False
) -> tuple[Mapping[str, Any] | None, str | None]:
    """A call's arguments as logged -> (the object, a note or None) or (None, why not)."""
    arguments = call.arguments
    if arguments is ABSENT:
        return _NOTHING, None
    if isinstance(arguments, Mapping):
        return arguments, None
    if not isinstance(arguments, str) or call.encoding == JSON_STRING:
        return decode_arguments(arguments, tool, exact=exact)
    if call.encoding == OBJECT:
        decoded, why = decode_arguments(arguments, tool, exact=exact)
        return decoded, why or "arguments were logged as a JSON string, though this format sends an object"
    return None, "arguments are a string, though they should have been parsed into an object (double-encoded?)"


def decode_arguments(
    arguments: object, tool: ToolValidator, *, exact: bool = False
) -> tuple[Mapping[str, Any] | None, str | None]:
    """Arguments as logged -> (the object, None) or (None, why not).

    Providers log arguments as a JSON string; decode it (with orjson, or, when
    ``exact``, with the standard library, which keeps integers beyond 64 bits).
    An empty string is an empty object only for a tool with no required
    parameter (some models send "" for parameterless tools).
    """
    if isinstance(arguments, Mapping):
        return arguments, None
    if not isinstance(arguments, str):
        return None, f"arguments are {kind_phrase(arguments)}, not an object"
    if not arguments.strip():
        if tool.required:
            return None, "arguments are an empty string, but the tool has required parameters"
        return _NOTHING, None
    decoded, error = _decode(arguments, exact)
    if error is not None:
        return None, f"arguments are not valid JSON: {error}"
    if isinstance(decoded, dict):
        return decoded, None
    if isinstance(decoded, str):
        inner, _ = _decode(decoded, exact)
        if isinstance(inner, dict):
            return None, "arguments are double-encoded: a JSON string holding a JSON object"
    return None, f"arguments decode to {kind_phrase(decoded)}, not an object"


def _decode(text: str, exact: bool) -> tuple[Any, str | None]:
    """(the value, None) or (None, the parser's complaint), with orjson or, when
    orjson refuses valid JSON or ``exact`` asks for it, the standard library."""
    if not exact:
        try:
            return _loads(text), None
        except _JSONDecodeError as error:
            complaint = f"{error.msg} (column {error.colno})"
    try:
        return loads_exact(text), None
    except RecursionError:
        return None, "nested too deeply"
    except ValueError as error:
        return None, complaint if not exact else str(error)
