"""The typed path's flat half: a log of flat calls, a call a line, each line's arguments
decoded by its tool's typed struct (msgspec) in one loop.

Valid if the decode says so; else judged as the audit judges a flat call (orjson, then
the contract; judge() for a tool the schemas lack), or left to the general path when it
is not a flat call whose arguments are an object. So rows and summaries are the general
path's, byte for byte (tests/pipeline/test_typed_path.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import orjson

from toolaudit.contract import Validator
from toolaudit.errors import ToolAuditError
from toolaudit.formats import JSON_STRING, Call
from toolaudit.formats.flat import call_id as flat_call_id
from toolaudit.formats.typed import DECODE_FAILURES
from toolaudit.jsonutil import may_hold_long_integers
from toolaudit.pipeline.judge import judge
from toolaudit.pipeline.recorder import Recorder, Where
from toolaudit.typed.arguments import DECODER_DECIDES_LENGTH, beyond_decoders, is_utf8
from toolaudit.typed.decoders import may_misread_numbers
from toolaudit.typed.flat import FlatCalls

if TYPE_CHECKING:
    from toolaudit.pipeline.scoring import Scorer

_JSONDecodeError = orjson.JSONDecodeError


class TypedFlatReader:
    """Reads flat calls to ``validator``'s tools, decoded by ``flat``'s structs."""

    __slots__ = ("_flat", "_scorer", "_validator", "interrupted_at")

    def __init__(
        self, flat: FlatCalls, validator: Validator, *, scorer: Scorer | None = None
    ) -> None:
        self._flat = flat
        #: Scores each call read against its expected calls (--expected), if given.
        self._scorer = scorer
        self._validator = validator
        #: The number of the line being read when an interruption came (0: none came).
        self.interrupted_at = 0

    def read_lines(
        self, lines: list[bytes], start: int, first_line: int, recorder: Recorder
    ) -> int:
        """Read ``lines`` from ``start`` into ``recorder`` while each is a flat call it can
        judge; return the index of the first one it cannot (``len(lines)``: none)."""
        flat = self._flat
        validator = self._validator
        declared = validator.tools
        decode = flat.decoder_worth_trying()
        loads = orjson.loads
        valid = recorder.ok.append
        rows = recorder.valid_rows
        add_row = rows.append if rows is not None else None
        valid_row = recorder.valid_row
        grouped = recorder.grouped
        tally_for = recorder.tally_for
        count_failing = recorder.count_failing
        failing_call = recorder.failing_call
        scorer = self._scorer
        scoring = None
        # (A grouped audit's tally is known only once the line is counted: not here.)
        quick = scorer.flat_kernel(recorder.source) if scorer is not None and not grouped else None
        end = len(lines)
        position = start
        failing = 0
        try:
            for position in range(start, end):
                line = lines[position]
                # msgspec does not check the UTF-8 of what it skips; the general path does.
                if not line.isascii() and not is_utf8(line):
                    return position
                if len(line) > DECODER_DECIDES_LENGTH and beyond_decoders(line):
                    return position
                if decode is not None:
                    try:
                        call = decode(line)
                    except DECODE_FAILURES:
                        pass
                    else:  # most lines
                        if may_misread_numbers(line):
                            # Below a double's range, or past 1e±10000: read on its exact
                            # parse by the general path (past 1e±10000, malformed:json).
                            return position
                        if scorer is not None:
                            if quick is not None and quick(
                                line, recorder.tally, first_line + position
                            ):
                                scoring = None  # scored and counted, surely right
                            else:
                                scoring = scorer.typed_flat(line, None)
                                if scoring is None:
                                    return position
                        tool = call.tool
                        group = tally_for(None, call.model) if grouped else None
                        if group is not None:
                            group.count_one_ok(tool)
                        else:
                            valid(tool)
                        if add_row is not None:
                            lineno = first_line + position
                            add_row(valid_row(lineno, 0, call.call_id_or_id, tool, call.model))
                        if scorer is not None and scoring is not None:
                            lineno = first_line + position
                            scorer.typed(
                                scoring,
                                recorder.tally if group is None else group,
                                (recorder.source, lineno),
                            )
                        continue
                if may_misread_numbers(line):
                    # A line its decoder refused that may hold a number below a double's
                    # range is the general path's, which judges it on its exact parse (as
                    # the inline reader leaves it); decoders refuse where such a number
                    # could pass (a Literal takes no float; deep mode's limits).
                    return position
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
                # An integer past 64 bits, which orjson read as a float, may fail or pass
                # the call: the general path judges it on the exact parse.
                if may_hold_long_integers(line):
                    return position
                if judge_by is None:
                    # A tool the schemas do not declare (a model's invention, often in a
                    # log of failing calls): judged as the general path judges it.
                    call = Call(0, name, arguments, id=flat_call_id(record), encoding=JSON_STRING)
                    verdict = judge(call, validator, None, exact=False)
                    problems = verdict[1]
                else:
                    problems = judge_by.check(arguments)
                model = record.get("model")
                if type(model) is not str:
                    if model is not None and grouped:
                        return position  # its group is named by the value: the general path's
                    model = None
                if scorer is not None and quick is None:
                    scoring = scorer.typed_flat(line, record)
                    if scoring is None:
                        return position
                tally = tally_for(None, model) if grouped else None
                lineno = first_line + position
                if judge_by is None:
                    failing += bool(problems)
                    recorder.call(tally, Where(recorder.source, lineno, 0, call.id, model), verdict)
                elif problems:
                    failing += 1
                    # (Counted alone where no row is wanted, else judged and recorded.)
                    if not count_failing(tally, judge_by.name, problems):
                        call_id = flat_call_id(record)
                        failing_call(tally, judge_by, arguments, problems, lineno, call_id, model)
                else:
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
                if scorer is not None:
                    counted_in = recorder.tally if tally is None else tally
                    if quick is not None:
                        # Scored once counted (a row's making may fail: the general path
                        # then reads the line, not yet scored). typed_flat reads such a
                        # line (no long integer: left above) under the default match.
                        if quick(line, counted_in, lineno):
                            continue
                        scoring = scorer.typed_flat(line, record)
                    if scoring is not None:
                        scorer.typed(scoring, counted_in, (recorder.source, lineno))
            return end
        except KeyboardInterrupt:  # the audit counts the lines before this one as read
            self.interrupted_at = first_line + position
            raise
        except ToolAuditError:
            raise
        except Exception:  # hostile input it did not expect: the general path reads the line
            return position
        finally:
            flat.lines += position - start
            flat.failing += failing
