"""The inline reader: the common case of a log of flat calls, judged in one loop.

A line holding one flat call ``{"name", "arguments"}`` to a declared tool, its arguments
an object, is judged right here by the tool's compiled check; any other line goes to the
general reader, parsed once. (The registry reads name + arguments as a flat call, whatever
else is there, so this reader and the general one agree; tests compare them.)
"""

from __future__ import annotations

import orjson

from toolaudit.contract import ToolValidator, Validator
from toolaudit.errors import ToolAuditError
from toolaudit.formats.flat import call_id as flat_call_id
from toolaudit.jsonutil import (
    may_be_misread_by_orjson,
    may_hold_long_integers,
    may_hold_tiny_numbers,
)
from toolaudit.pipeline.fast_paths import FastPaths
from toolaudit.pipeline.general_reader import GeneralReader
from toolaudit.pipeline.recorder import Recorder
from toolaudit.results.tally import Tally

_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError


class InlineReader:
    """Reads flat calls to ``validator``'s tools into ``recorder``; the rest it hands to
    ``general``."""

    def __init__(
        self,
        recorder: Recorder,
        validator: Validator,
        general: GeneralReader,
        fast_paths: FastPaths,
        *,
        deep: bool = False,
    ) -> None:
        self._recorder = recorder
        self._tools = validator.tools
        self._general = general
        self._fast_paths = fast_paths
        self._deep = deep
        #: By tool name: whether an enum of its parameters holds a number past 2**53.
        self._big_enums: dict[str, bool] = {}
        #: The number of the line being read when an interruption came (0: none came).
        self.interrupted_at = 0

    def read_lines(self, lines: list[bytes], start: int, first_line: int) -> int:
        """Read ``lines`` from ``start`` (at least that one) until one makes the typed path
        ready; return where it stopped. ``first_line`` is the number of ``lines[0]``.

        A line whose judging raises is read again by the general reader, which makes it
        its own row: nothing of it was counted here (a call is counted after its check).
        """
        while True:
            try:
                return self._read_lines(lines, start, first_line)
            except _Failed as failed:
                position = failed.position
                tally = failed.tally
            self._general.read_line(lines[position], first_line + position, tally)
            if position + 1 == len(lines) or self._fast_paths.ready:
                return position + 1
            start = position + 1

    def _read_lines(self, lines: list[bytes], start: int, first_line: int) -> int:
        recorder = self._recorder
        general = self._general
        fast_paths = self._fast_paths
        tell_typed = fast_paths.reads_flat_calls
        tools_get = self._tools.get
        # A failing call's line is judged on its exact parse, for its reasons' words.
        deep = self._deep
        big_enums = self._big_enums
        grouped = recorder.grouped
        tally_for = recorder.tally_for
        global_tally = recorder.tally
        ok_names = recorder.ok.append
        valid_rows = recorder.valid_rows
        add_valid = valid_rows.append if valid_rows is not None else None
        valid_row = recorder.valid_row
        wants_model = grouped or valid_rows is not None
        loads = _loads
        decode_error = _JSONDecodeError
        position = start
        chosen_at = -1  # the line whose group's tally was chosen last
        try:
            for position in range(start, len(lines)):
                if position != start and fast_paths.ready:
                    return position  # the last record read makes the typed path read on
                line = lines[position]
                lineno = first_line + position
                try:
                    record = loads(line)
                except decode_error as error:
                    general.read_refused(line, error, lineno)
                    continue
                if type(record) is not dict:
                    general.read_record(record, lineno, line)
                    continue
                name = record.get("name")
                arguments = record.get("arguments")
                if (
                    type(name) is not str
                    or type(arguments) is not dict
                    or (tool := tools_get(name)) is None
                ):
                    general.read_record(record, lineno, line)
                    continue
                if may_hold_tiny_numbers(line):
                    # Judged on its exact parse, as the general reader judges it: such a
                    # number can change a verdict (an enum holding 0, deep mode's limits),
                    # and one past 1e-10000 makes the line malformed:json.
                    general.read_record(record, lineno, line)
                    continue
                if (
                    deep
                    or (big := big_enums.get(name))
                    or (big is None and _enum_holds_big_number(tool, name, big_enums))
                ) and may_hold_long_integers(line):
                    # An integer past 64 bits, which orjson read as a float, may pass the
                    # call where it equals an enum's number (failing calls: below).
                    general.read_record(record, lineno, line)
                    continue
                if tell_typed:  # the typed path reads the next lines as flat calls
                    fast_paths.flat_call_seen(name)
                problems = tool.check(arguments)
                # The model (and a group's tally) are read where a valid call needs them
                # only: one counted in the audit's tally with no row needs neither, and is
                # most calls, often.
                if wants_model:
                    model = m if type(m := record.get("model")) is str else None
                    tally = tally_for(record, model) if grouped else global_tally
                    chosen_at = position
                if not problems:
                    if grouped:  # each group counts its own
                        tally.count_one_ok(tool.name)
                    else:
                        ok_names(tool.name)
                    if add_valid is not None:
                        call_id = flat_call_id(record)
                        add_valid(valid_row(lineno, 0, call_id, tool.name, model))
                    continue
                if not wants_model:  # a failing call's row, or its sample, names it
                    model = m if type(m := record.get("model")) is str else None
                    tally = global_tally
                if may_be_misread_by_orjson(line):
                    # judged on the exact parse: the failure may be orjson's float
                    general.read_record(record, lineno, line, tally)
                elif not recorder.count_failing(tally, tool.name, problems):
                    call_id = flat_call_id(record)
                    recorder.failing_call(tally, tool, arguments, problems, lineno, call_id, model)
        except KeyboardInterrupt:
            self.interrupted_at = first_line + position
            raise
        except ToolAuditError:
            raise
        except Exception as error:
            # The line is read again by the general reader; if its group counted it
            # already, in that group's tally.
            raise _Failed(position, tally if grouped and chosen_at == position else None) from error
        return len(lines)


def _enum_holds_big_number(tool: ToolValidator, name: str, known: dict[str, bool]) -> bool:
    """Whether an enum of the tool's parameters holds a number past a double's exact
    integers (2**53), which orjson's float for a longer integer may equal; kept in
    ``known`` by the name called. Only then may such a float pass a call it should fail."""
    holds = known[name] = any(
        param.enum is not None
        and any(
            isinstance(value, (int, float))
            and not isinstance(value, bool)
            and abs(value) >= _EXACT_IN_A_DOUBLE
            for value in param.enum
        )
        for param in tool.parameters.values()
    )
    return holds


#: The integers a double holds exactly end here: a float of an integer past it is rounded.
_EXACT_IN_A_DOUBLE = 2**53


class _Failed(Exception):
    """Judging the line at ``position`` raised (hostile input the check did not expect)."""

    def __init__(self, position: int, tally: Tally | None) -> None:
        super().__init__(position)
        self.position = position
        #: The tally that counted the line's record already, if one did.
        self.tally = tally
